"""The table's recognizer for the small Korean test model: Korean stand-ins
play the Russian rule words (tools/latency_fixture.py), over a grammar of the
Russian one's size and confusability."""
from __future__ import annotations

from collections.abc import Callable, Hashable
from pathlib import Path

from voicehost.asr import CaptionedRecognizer, SpeechModel, VoskRecognizer
from voicehost.audio import CHUNK_SECONDS
from voicehost.bench.source import source_tool
from voicehost.phrases.grammar import load_grammar
from voicehost.phrases.listener import SpeechListener, StaticContext


def stand_in_grammar(model_dir: str) -> str:
    """The Korean grammar of the Russian one's size (tools/latency_fixture.py
    `table_grammar`) as JSON; the model's words are its grammar FST's, as
    Vosk's own vocabulary is."""
    import json

    from voicehost.vocabulary import unigram_words

    ranked = unigram_words(Path(model_dir) / "graph" / "Gr.fst", 10_000_000)
    known = set(ranked)
    table = source_tool("latency_fixture").table_grammar(ranked[:200_000], known.__contains__)
    return json.dumps(table, ensure_ascii=False)


class StandInTable:
    """The recognizer the table gets for the Korean model, over a grammar of
    the Russian one's size and confusability (tools/latency_fixture.py
    `table_grammar`): `[asr] mode = "auto"` as `recognizer_for` builds it
    (the model has no [unk], so 400 of its frequent words, of two syllables or
    more and like no rule word, are fillers; the trigger counts TRIGGER_WEIGHT times)."""

    def __init__(self, model_dir: Path) -> None:
        """The stand-in grammar is built in a child process: it reads every
        one of the model's 503,352 words (the table reads a few hundred, for
        its fillers, here in this process as there), and their memory is this
        bench's, not the table's."""
        import json
        import subprocess
        import sys

        from voicehost.asr import FILLER_COUNT, grammar_fillers, rule_meaning

        grammar = load_grammar("ru")

        self.model: SpeechModel | None = None
        child = subprocess.run([sys.executable, "-c", "import sys; from voicehost.bench.standins import "
                                "stand_in_grammar as g; print(g(sys.argv[1]))", str(model_dir)],
                               capture_output=True, text=True, encoding="utf-8", timeout=300, check=True)
        table: dict[str, str] = json.loads(child.stdout)
        self.phrases = sorted(table)
        self.stand_ins = {k: v for k, v in table.items() if v}
        self.rule_words = len(self.stand_ins)
        # a filler must not sound like a word the Russian rules react to; the
        # other frequent words in the grammar are heard as words the rules do not know, as [unk] is
        self.fillers = grammar_fillers(model_dir, None, self.phrases, FILLER_COUNT, alike=self.stand_ins)[0]
        self.russian = rule_meaning(grammar)
        self.grammar = grammar
        self.trigger = next(k for k, v in self.stand_ins.items() if v == grammar.trigger)

    def meaning(self, text: str) -> Hashable:
        """What a Korean word means to the Russian rules: that of the word it plays."""
        return self.russian(self.stand_ins.get(text, text))

    def recognizer(self, captions: bool = False) -> VoskRecognizer | CaptionedRecognizer:
        from voicehost.asr import TRIGGER_WEIGHT, grammar_phrases, overheard_words
        from voicehost.asr.factory import listening_recognizer
        from voicehost.config import AsrSettings

        model = self.model
        assert model is not None, "the model is loaded before a recognizer is made"
        decider = listening_recognizer(model, AsrSettings(mode="auto"), self.phrases, meaning=self.meaning,
                                       fillers=self.fillers, weights={self.trigger: TRIGGER_WEIGHT})
        if not captions:
            return decider
        # as at the table: a final result with an [unk] waits (at most CATCH_UP) for the captions to
        # catch up, for a forbidden form they heard (the Korean captions never hold a Russian one)
        return CaptionedRecognizer(decider, VoskRecognizer(model),
                                   overheard=overheard_words(self.grammar, grammar_phrases(self.grammar)))


def false_nominations(make: Callable[[], VoskRecognizer | CaptionedRecognizer], pcm: bytes, stand_ins: dict[str, str],
                      warm: bool = False) -> tuple[int, int, int]:
    """(nominations, refused attempts, words) the rules find in free speech heard by `make()`, fed
    unpaced; `warm`: after the warm-up the table gives its recognizer (half a second of silence).
    A nomination is one the rules accept, which the table confirms aloud; a refused attempt (the
    trigger heard, then a number after other words) puts nobody up, and the 4mafia table says
    nothing of it (`explain_rejections = false`)."""
    from voicehost.asr import plain_words
    from voicehost.audio import RATE
    from voicehost.phrases.listener import Nomination

    fixture = source_tool("latency_fixture")
    recognizer = make()
    if warm:
        recognizer.warm_up()
    step = int(RATE * CHUNK_SECONDS) * 2
    items = []
    for i in range(0, len(pcm), step):
        items += recognizer.accept(pcm[i:i + step])
    items += recognizer.finish()
    recognizer.close()
    grammar = load_grammar("ru")
    words = plain_words(fixture.translate(items, stand_ins))
    listener, found, refused = SpeechListener(grammar, StaticContext()), 0, 0
    for word in words:
        for event in listener.hear(word):
            if isinstance(event, Nomination):
                found += event.accepted
                refused += not event.accepted
                listener = SpeechListener(grammar, StaticContext())
    return found, refused, len(words)
