"""`voicehost train`: a player says (or types) a nomination and hears
"Принят номер N" or exactly why not."""
from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TextIO

from voicehost.asr import Recognizer, new_words
from voicehost.audio import Source, SpeakerSink
from voicehost.config import Config
from voicehost.errors import VoicehostError
from voicehost.game.narration import verdict
from voicehost.game.variants import variant_for
from voicehost.live.commands import no_such_player, seats_past_table
from voicehost.live.playback import Speaker
from voicehost.live.texts import live_texts
from voicehost.phrasebook import load_phrasebook
from voicehost.phrases.grammar import Kind, as_said, load_grammar, normalize
from voicehost.phrases.listener import (
    ForbiddenWord,
    HostQuestion,
    ListenerEvent,
    Nomination,
    Reason,
    SpeechEnd,
    SpeechListener,
    StaticContext,
)
from voicehost.phrases.words import Word, words_from_text
from voicehost.rules import RuleOptions
from voicehost.tts import open_voice

log = logging.getLogger(__name__)
# Spoken training: after a decided nomination, a silence this long (seconds)
# starts the next phrase (within one phrase a second nomination is refused).
PHRASE_GAP = 2.0


class Trainer:
    def __init__(self, config: Config, rules: RuleOptions, out: TextIO, *, mute: bool = False) -> None:
        self.rules = rules
        self.out = out
        self.grammar = load_grammar(rules.grammar)
        self.book = load_phrasebook(rules.phrasebook)
        self.texts = live_texts(rules.phrasebook)
        self.size = variant_for(rules).max_seat  # 10, or up to 11 at a city table
        self.speaker: Speaker | None = None
        if not mute:
            try:
                sink = SpeakerSink(config.audio.table_device or None)   # no speaker: no voice to look for
                voice = open_voice(config.voice_file(rules.language), config.tts.espeak_voice or rules.language)
            except VoicehostError as exc:
                log.info("training without a voice: %s", exc)   # the host reads why in the table's language
                out.write(self.texts.text("train_no_voice") + "\n")
            else:
                self.speaker = Speaker(voice, sink, None, lambda: 0.0, tail=0.0)

    def listener(self) -> SpeechListener:
        return SpeechListener(self.grammar, StaticContext(), pause_limit=self.rules.nomination_pause,
                              pass_silence=self.rules.pass_silence,
                              required_fillers=self.rules.required_fillers)

    def verdict(self, event: Nomination) -> str:
        return verdict(self.book, event, self.rules)

    def judge(self, words: Iterable[Word]) -> list[str]:
        """Every verdict a phrase earns, in order: one per nomination (a
        second one in the same phrase is refused, as in a speech), a number
        that is no seat at the table ("выставляю 15", "двадцать семь", "ноль")
        told once and only so, forbidden words, a question to the host, and
        the speech's end ("спасибо"), after which nothing is judged."""
        words = list(words)
        listener = self.listener()
        pasts = seats_past_table(words, self.grammar, self.texts, self.size)
        verdicts: list[str] = []
        nominated = False
        for index, word in enumerate(words):
            past = next((p for p in pasts if p.first <= index <= p.last), None)
            if past is not None and index == past.last:
                verdicts.append(no_such_player(past.said, self.texts))
                nominated = True
            for event in listener.hear(word):
                if isinstance(event, Nomination) and past is None:
                    verdicts.append(self.verdict(event))
                    nominated = True
                elif not isinstance(event, Nomination):
                    verdicts.append(self.event_verdict(event))
        for event in listener.finish():   # a trailing "пас" ends the speech too
            verdicts.append(self.event_verdict(event))
        if not nominated:
            verdicts.insert(len(verdicts) if listener.ended is None else len(verdicts) - 1,
                            self.book.explanation("no_nomination"))
        return verdicts

    def event_verdict(self, event: ListenerEvent) -> str:
        """What training says of a word the game reacts to besides a nomination."""
        if isinstance(event, ForbiddenWord):
            key = "forbidden_disqualify" if event.suggest == "disqualify" else "forbidden_foul"
            return self.book.explanation(key, word=event.word, detail=event.clause)
        if isinstance(event, HostQuestion):
            return self.book.explanation("host_question")
        if isinstance(event, SpeechEnd):
            return self.book.explanation("speech_ended", word=event.word)
        return self.verdict(event)

    def tell(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()
        if self.speaker is not None:
            self.speaker.say(text)

    def typed(self, stdin: TextIO) -> None:
        self.out.write(self.texts.text("train_typed") + "\n")
        for line in stdin:
            if not line.strip():
                break
            try:
                for verdict in self.judge(words_from_text(line)):
                    self.tell(verdict)
            except VoicehostError as exc:
                self.out.write(f"! {' '.join(self.book.refusal(exc).split())}\n")

    def heard_note(self, event: Nomination, heard: list[Word]) -> str | None:
        """For a phrase refused for its wording, what the recognizer heard from
        the trigger (or its wrong form) to the number: the player can tell
        their own phrasing from a mishearing. "[unk]" is a word the grammar
        recognizer heard as none of the rule words."""
        if event.accepted or event.reason not in (Reason.WRONG_FORM, Reason.EXTRA_WORDS) or not heard:
            return None
        return self.texts.text("train_heard", words=" ".join("…" if w.word == "[unk]" else as_said(w.word)
                                                             for w in heard))

    def microphone(self, recognizer: Recognizer, source: Source) -> None:
        """Spoken phrases, judged as `judge` judges a typed line: once a
        nomination was decided (or the speech ended), a silence of
        `PHRASE_GAP` seconds starts the next phrase."""
        self.out.write(self.texts.text("train_microphone") + "\n")
        listener, last_end, decided = self.listener(), 0.0, False
        heard: list[Word] = []  # this attempt's words, from its trigger on
        try:
            for chunk in source.chunks():
                for word in new_words(recognizer.accept(chunk)):
                    if decided and word.start - last_end > PHRASE_GAP:
                        listener, decided = self.listener(), False   # a new phrase: a new nomination may come
                    last_end = word.end
                    if self.grammar.kind(normalize(word.word)) in (Kind.TRIGGER, Kind.WRONG_FORM):
                        heard = []
                    heard.append(word)
                    for event in listener.hear(word):
                        decided = decided or isinstance(event, (Nomination, SpeechEnd))
                        if not isinstance(event, Nomination):
                            self.tell(self.event_verdict(event))
                            continue
                        self.tell(self.verdict(event))
                        note = self.heard_note(event, heard)
                        if note:
                            self.tell(note)
                        heard = []
        except KeyboardInterrupt:
            pass
        finally:
            source.close()

    def close(self) -> None:
        if self.speaker is not None:
            self.speaker.wait(30)
            self.speaker.close()


__all__ = ["Trainer"]
