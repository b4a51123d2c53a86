"""Recognition: Vosk from a local model folder, 16 kHz mono, with word times.

Vosk's word times count from the start of the stream a recognizer was fed;
the live loop adds the game-clock time of that start. Words are committed
from partial results once they have stayed the same for a short window
(default 250 ms of audio), or from the final result, whichever comes first:
that is what lets the moderator answer "Принят номер N" while the speaker
is still talking."""
from __future__ import annotations

import hashlib
import json
import logging
import shutil
from pathlib import Path
from typing import Iterable, Protocol

from voicehost.audio import RATE
from voicehost.errors import VoicehostError
from voicehost.phrases.grammar import Grammar
from voicehost.phrases.words import Word

log = logging.getLogger(__name__)


class AsrError(VoicehostError):
    """A model that cannot be loaded, or a recognizer that cannot start."""


class Recognizer(Protocol):
    """Takes 16 kHz mono 16-bit chunks, returns the words it has committed to;
    `audio_time` is how much audio it has been fed."""

    audio_time: float

    def accept(self, pcm: bytes) -> list[Word]: ...

    def finish(self) -> list[Word]: ...


def grammar_phrases(grammar: Grammar) -> list[str]:
    """The phrase list for grammar-limited mode: every word the rules listen for."""
    words = {grammar.trigger, *grammar.wrong_forms, *grammar.fillers, *grammar.thanks, *grammar.passes,
             *grammar.numbers}
    words |= {w for w in grammar.question_address + grammar.question_subject if len(w) > 3}
    for rule in grammar.forbidden:
        words |= set(rule.words)
    words.discard("№")
    return sorted(words)


def model_problem(model_dir: Path) -> str | None:
    """Why a folder is not a usable Vosk model, or None if it looks like one."""
    if not model_dir.exists():
        return f"no speech model at {model_dir}"
    if not model_dir.is_dir():
        return f"{model_dir} is a file, not a model folder"
    if not (model_dir / "am" / "final.mdl").is_file() and not (model_dir / "final.mdl").is_file():
        return f"{model_dir} is not a Vosk model folder (no am/final.mdl)"
    if not (model_dir / "conf" / "model.conf").is_file():
        return f"{model_dir} is not a complete Vosk model (no conf/model.conf)"
    return None


class WordCommitter:
    """Turns Vosk partial and final results into words, each committed once."""

    def __init__(self, stable_seconds: float = 0.25) -> None:
        self.stable_seconds = stable_seconds
        self._seen: dict[tuple[str, float, float], float] = {}
        self._last_start = -1.0

    def _new(self, item: dict) -> bool:
        return float(item["start"]) > self._last_start + 0.02

    def _word(self, item: dict) -> Word:
        self._last_start = float(item["start"])
        return Word(str(item["word"]), float(item["start"]), float(item["end"]), float(item.get("conf", 1.0)))

    def partial(self, items: list[dict], audio_time: float) -> list[Word]:
        out: list[Word] = []
        keys = set()
        for item in items:
            # A word still being spoken grows at its end; its text and start settle first.
            key = (str(item["word"]), round(float(item["start"]), 1), 0.0)
            keys.add(key)
            first = self._seen.setdefault(key, audio_time)
            if not self._new(item):
                continue
            if audio_time - first + 1e-9 < self.stable_seconds:
                break
            out.append(self._word(item))
        self._seen = {k: v for k, v in self._seen.items() if k in keys}
        return out

    def final(self, items: list[dict]) -> list[Word]:
        self._seen.clear()
        return [self._word(item) for item in items if self._new(item)]


class VoskRecognizer:
    """One recognizer stream over a loaded model (see `load_model`)."""

    def __init__(self, model: object, *, phrases: list[str] | None = None,
                 stable_seconds: float = 0.25) -> None:
        import vosk

        self.model = model
        self.phrases = phrases
        if phrases is not None:
            grammar = json.dumps([p for p in phrases if self.knows(p)] + ["[unk]"], ensure_ascii=False)
            self._rec = vosk.KaldiRecognizer(model, RATE, grammar)
        else:
            self._rec = vosk.KaldiRecognizer(model, RATE)
        self._rec.SetWords(True)
        self._rec.SetPartialWords(True)
        self.audio_time = 0.0
        self._committer = WordCommitter(stable_seconds)

    def knows(self, word: str) -> bool:
        return self.model.vosk_model_find_word(word) >= 0

    def missing(self, words: Iterable[str]) -> list[str]:
        """Words the model's vocabulary lacks: those can never be recognized."""
        return sorted({w for w in words if " " not in w and not self.knows(w)})

    def accept(self, pcm: bytes) -> list[Word]:
        self.audio_time += len(pcm) / 2 / RATE
        if self._rec.AcceptWaveform(pcm):
            return self._committer.final(json.loads(self._rec.Result()).get("result", []))
        partial = json.loads(self._rec.PartialResult()).get("partial_result", [])
        return self._committer.partial(partial, self.audio_time)

    def finish(self) -> list[Word]:
        return self._committer.final(json.loads(self._rec.FinalResult()).get("result", []))


# Kaldi determinizes the partial lattice in chunks; by default a word can wait
# up to 60 frames (1.8 s) before it shows in partial words. These keep it short.
LOW_LATENCY = ("--determinize-max-delay=10", "--determinize-min-chunk-size=5")


def low_latency_view(model_dir: Path, cache: Path) -> Path:
    """The model as Vosk should load it for live play: a folder of links to the
    model's files with a conf/model.conf that also holds LOW_LATENCY. The
    downloaded model itself is never changed."""
    conf = (model_dir / "conf" / "model.conf").read_text("utf-8")
    missing = [opt for opt in LOW_LATENCY if opt.split("=")[0] not in conf]
    if not missing:
        return model_dir
    digest = hashlib.sha256(f"{model_dir.resolve()}\n{conf}".encode()).hexdigest()[:16]
    view = cache / f"{model_dir.name}-{digest}"
    if not (view / "conf" / "model.conf").is_file():
        try:
            (view / "conf").mkdir(parents=True, exist_ok=True)
            for entry in model_dir.iterdir():
                if entry.name != "conf" and not (view / entry.name).exists():
                    (view / entry.name).symlink_to(entry.resolve())
            for entry in (model_dir / "conf").iterdir():
                if entry.name != "model.conf":
                    shutil.copy2(entry, view / "conf" / entry.name)
            (view / "conf" / "model.conf").write_text(conf.rstrip("\n") + "\n" + "\n".join(missing) + "\n",
                                                      "utf-8")
        except OSError as exc:
            log.warning("could not tune %s for low latency (%s); using it as it is", model_dir, exc)
            return model_dir
    return view


def load_model(model_dir: Path, *, low_latency_cache: Path | None = None):
    """Load once, share between recognizers (the vocabulary check, the stream)."""
    problem = model_problem(model_dir)
    if problem:
        raise AsrError(f"{problem}: run `voicehost models download` (or set [asr] model in config.toml)")
    if low_latency_cache is not None:
        model_dir = low_latency_view(model_dir, low_latency_cache)
    try:
        import vosk
    except ImportError:
        raise AsrError("the vosk package is not installed: run scripts/setup") from None
    vosk.SetLogLevel(-2)
    try:
        return vosk.Model(str(model_dir))
    except Exception:
        raise AsrError(f"the speech model at {model_dir} is broken (Vosk could not load it): "
                       f"download it again with `voicehost models download`") from None
