"""`voicehost train`: a player says (or types) a nomination and hears
"Принят номер N" or exactly why not."""
from __future__ import annotations

import logging
from typing import Iterable, TextIO

from voicehost.asr import new_words
from voicehost.audio import Source, SpeakerSink
from voicehost.config import Config
from voicehost.errors import VoicehostError
from voicehost.phrasebook import load_phrasebook
from voicehost.phrases.grammar import load_grammar
from voicehost.phrases.listener import Nomination, SpeechListener, StaticContext
from voicehost.phrases.words import Word, words_from_text
from voicehost.rules import RuleOptions
from voicehost.tts import Speaker, open_voice

log = logging.getLogger(__name__)
NOTHING = "Номинации не было: скажите «выставляю» и номер игрока"


class Trainer:
    def __init__(self, config: Config, rules: RuleOptions, out: TextIO, *, mute: bool = False) -> None:
        self.rules = rules
        self.out = out
        self.grammar = load_grammar(rules.grammar)
        self.book = load_phrasebook(rules.phrasebook)
        self.speaker: Speaker | None = None
        if not mute:
            try:
                voice = open_voice(config.path(config.tts.voice), config.tts.espeak_voice or rules.language)
                sink = SpeakerSink(config.audio.table_device or None)
            except VoicehostError as exc:
                out.write(f"({exc}; verdicts are printed only)\n")
            else:
                self.speaker = Speaker(voice, sink, None, lambda: 0.0, tail=0.0)

    def listener(self) -> SpeechListener:
        return SpeechListener(self.grammar, StaticContext(), pause_limit=self.rules.nomination_pause,
                              pass_silence=self.rules.pass_silence,
                              required_fillers=self.rules.required_fillers)

    def verdict(self, event: Nomination) -> str:
        if event.accepted:
            return self.rules.confirmation.format(seat=event.target) or self.book.text("accepted",
                                                                                        seat=event.target)
        if event.reason == "wrong_form" and event.culprit is None:
            return self.book.explanation("extra_words_required", word=" ".join(self.rules.required_fillers))
        return self.book.explanation(event.reason or "", word=event.culprit or "", seat=event.target,
                                     pause=round(event.pause or 0.0, 1), limit=self.rules.nomination_pause)

    def judge(self, words: Iterable[Word]) -> list[str]:
        """Every verdict a phrase earns, in order (one per number reached)."""
        listener = self.listener()
        verdicts = []
        for word in words:
            for event in listener.hear(word):
                if isinstance(event, Nomination):
                    verdicts.append(self.verdict(event))
                    listener = self.listener()
        return verdicts or [NOTHING]

    def tell(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()
        if self.speaker is not None:
            self.speaker.say(text)

    def typed(self, stdin: TextIO) -> None:
        self.out.write("Тренировка: наберите фразу («выставляю <12> седьмого»: <N> — N секунд тишины); "
                       "пустая строка — выход\n")
        for line in stdin:
            if not line.strip():
                break
            try:
                for verdict in self.judge(words_from_text(line)):
                    self.tell(verdict)
            except VoicehostError as exc:
                self.out.write(f"! {exc}\n")

    def microphone(self, recognizer, source: Source) -> None:
        self.out.write("Тренировка: говорите фразу выдвижения; Ctrl+C — выход\n")
        listener = self.listener()
        try:
            for chunk in source.chunks():
                for word in new_words(recognizer.accept(chunk)):
                    for event in listener.hear(word):
                        if isinstance(event, Nomination):
                            self.tell(self.verdict(event))
                            listener = self.listener()
        except KeyboardInterrupt:
            pass
        finally:
            source.close()

    def close(self) -> None:
        if self.speaker is not None:
            self.speaker.wait(30)
            self.speaker.close()


__all__ = ["Trainer", "NOTHING"]
