"""A scripted recognizer for the captions' tests: what it hears, chunk by
chunk, and a captioned pair of two of them."""
from __future__ import annotations

import time

from voicehost.asr import CaptionedRecognizer, grammar_phrases, overheard_words
from voicehost.phrases.grammar import load_grammar

GRAMMAR = load_grammar("ru")
OVERHEARD = overheard_words(GRAMMAR, grammar_phrases(GRAMMAR))


class Scripted:
    """A recognizer that hears, on its n-th chunk, the n-th entry of its
    script: (items, whether that chunk ended an utterance); `delay` seconds a chunk."""

    def __init__(self, script: list[tuple[list, bool]], delay: float = 0.0) -> None:
        self.script = list(script)
        self.delay = delay
        self.audio_time = 0.0
        self.ended = False
        self.phrases = grammar_phrases(GRAMMAR)
        self.fillers: frozenset[str] = frozenset()
        self.pending = False
        self.closed = False

    def accept(self, pcm: bytes) -> list:
        time.sleep(self.delay)
        self.audio_time += len(pcm) / 32000
        items, self.ended = self.script.pop(0) if self.script else ([], False)
        return list(items)

    def finish(self) -> list:
        self.ended = True
        return []

    def warm_up(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def pair(decider: Scripted, captioner: Scripted) -> CaptionedRecognizer:
    return CaptionedRecognizer(decider, captioner, overheard=OVERHEARD)  # type: ignore[arg-type]
