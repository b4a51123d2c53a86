"""A recognizer for the host's spoken commands (SPEC §7.2): a grammar of the
command words only, and whole utterances out, once each has ended (a command
is judged whole, never from partial words)."""
from __future__ import annotations

import json
from collections.abc import Iterable

from voicehost.asr.model_files import SpeechModel, model_knows
from voicehost.audio import RATE

UNK = "[unk]"


class CommandRecognizer:
    """`words`: what a command may hold; the model's other words are "[unk]"
    and left out of the utterance (an utterance of nothing else is no command)."""

    def __init__(self, model: SpeechModel, words: Iterable[str]) -> None:
        import vosk

        known = sorted(w for w in set(words) if model_knows(model, w))
        grammar = known + ([UNK] if model_knows(model, UNK) else [])
        self.words = frozenset(known)
        self._rec = vosk.KaldiRecognizer(model, RATE, json.dumps(grammar or [UNK], ensure_ascii=False))

    def accept(self, pcm: bytes) -> list[str] | None:
        """The words of the utterance this chunk ended (maybe none), None if it ended none."""
        return self._words(self._rec.Result(), "text") if self._rec.AcceptWaveform(pcm) else None

    def partial(self) -> list[str]:
        """The words heard so far in the utterance under way."""
        return self._words(self._rec.PartialResult(), "partial")

    def finish(self) -> list[str]:
        return self._words(self._rec.FinalResult(), "text")

    @staticmethod
    def _words(result: str, key: str) -> list[str]:
        text = json.loads(result).get(key, "")
        return [w for w in str(text).split() if w != UNK]


__all__ = ["CommandRecognizer"]
