"""`voicehost train` by microphone: a phrase refused for its wording (a wrong
form, extra words) comes with what the recognizer heard, so a player can
tell their phrasing from a mishearing; an accepted one, or one refused for
another reason, does not. The recognizer here is a named fake that hands
over fixed words, one utterance a chunk."""
from __future__ import annotations

import io

import pytest

from tests.fakes import FakeMicrophone
from voicehost.config import Config
from voicehost.phrases.words import Word
from voicehost.rules import rules_for


class ScriptedRecognizer:
    """A fake recognizer: each accepted chunk returns the next utterance's words
    ("<12>" is twelve seconds of silence); a player pauses 3 s between phrases."""

    def __init__(self, utterances: list[list[str]]) -> None:
        self.audio_time = 0.0
        self.results = []
        for words in utterances:
            out = []
            for text in words:
                if text.startswith("<"):
                    self.audio_time += float(text.strip("<>"))
                    continue
                out.append(Word(text, self.audio_time, self.audio_time + 0.3))
                self.audio_time += 0.4
            self.results.append(out)
            self.audio_time += 3.0   # longer than the trainer's gap between two phrases

    def accept(self, pcm: bytes) -> list:
        return self.results.pop(0) if self.results else []

    def finish(self) -> list:
        return []


def trained(ruleset: str, utterances: list[list[str]]) -> list[str]:
    from voicehost.live.training import Trainer

    out = io.StringIO()
    trainer = Trainer(Config(ruleset=ruleset), rules_for(ruleset), out, mute=True)
    trainer.microphone(ScriptedRecognizer(utterances), FakeMicrophone(b"\0\0" * 640 for _ in range(len(utterances))))
    return out.getvalue().splitlines()[1:]  # after the greeting


def test_a_wrong_form_is_answered_with_what_was_heard():
    lines = trained("4mafia", [["коллеги", "выставляем", "седьмого"]])
    assert len(lines) == 2
    assert "выставляем" in lines[0]
    assert lines[1] == "Я услышал: «выставляем седьмого»"


def test_extra_words_are_answered_with_what_was_heard_and_unknown_words_as_dots():
    lines = trained("4mafia", [["выставляю", "[unk]", "седьмого"], ["выставляю", "вот", "этого", "пятого"]])
    assert lines[1] == "Я услышал: «выставляю … седьмого»"
    assert lines[3] == "Я услышал: «выставляю вот этого пятого»"


def test_an_accepted_phrase_or_another_refusal_has_no_note():
    lines = trained("4mafia", [["выставляю", "седьмого"], ["выставляю", "<12>", "пятого"]])
    assert lines[0] == "Принят номер 7" and len(lines) == 2
    assert "10" in lines[1] and not lines[1].startswith("Принят")  # the pause, not the wording


@pytest.mark.parametrize("ruleset, said", [("ua-club", "Я почув: «виставляємо сьомого»")])
def test_the_note_is_in_the_tables_language(ruleset, said):
    lines = trained(ruleset, [["виставляємо", "сьомого"]])
    assert lines[-1] == said
