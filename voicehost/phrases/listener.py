"""The speech listener: consumes one floor's words as they arrive and reports
nominations, speech ends, questions to the host and forbidden words.

It decides a nomination the moment its number word arrives, so the live loop
can answer "Принят номер N" without waiting for the speech to end."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from rapidfuzz import fuzz

from voicehost.jsontypes import JSONOutObject
from voicehost.phrases.grammar import Grammar, Kind, as_said, normalize
from voicehost.phrases.words import Word
from voicehost.records import Nomination as Nomination  # the record moved down; its old name stays

# Word times come from floats; "exactly 10.0 s" must stay accepted.
EPSILON = 1e-6


class Reason(StrEnum):
    """Why a nomination was not accepted (the [explain] keys)."""

    EXTRA_WORDS = "extra_words"
    PAUSE_TOO_LONG = "pause_too_long"
    WRONG_FORM = "wrong_form"
    SECOND_NOMINATION = "second_nomination"
    NOT_ALIVE = "not_alive"
    ALREADY_NOMINATED = "already_nominated"


@dataclass(frozen=True)
class HostQuestion:
    t: float

    def to_json(self) -> JSONOutObject:
        return {"type": "host_question", "t": _t(self.t)}


@dataclass(frozen=True)
class SpeechEnd:
    word: str
    t: float

    def to_json(self) -> JSONOutObject:
        return {"type": "speech_end", "word": self.word, "t": _t(self.t)}


@dataclass(frozen=True)
class ForbiddenWord:
    word: str
    suggest: str
    clause: str
    t: float

    def to_json(self) -> JSONOutObject:
        return {"type": "foul_word", "word": self.word, "suggest": self.suggest, "t": _t(self.t)}


ListenerEvent = Nomination | HostQuestion | SpeechEnd | ForbiddenWord


def _t(value: float) -> float:
    return round(value, 3)


class NominationContext(Protocol):
    """What the listener asks the game when a number arrives (a question:
    the listener returns an accepted nomination; its caller records it)."""

    def judge(self, target: int) -> str | None:
        """None when the nomination can be accepted, else the reason."""


@dataclass
class StaticContext:
    """A context of fixed facts, for check-phrase and training."""

    alive: set[int] = field(default_factory=lambda: set(range(1, 11)))
    nominated: list[int] = field(default_factory=list)
    speaker_has_nominated: bool = False

    def judge(self, target: int) -> str | None:
        if self.speaker_has_nominated:
            return Reason.SECOND_NOMINATION
        if target not in self.alive:
            return Reason.NOT_ALIVE
        if target in self.nominated:
            return Reason.ALREADY_NOMINATED
        return None


@dataclass
class _Attempt:
    last_end: float
    reason: str | None = None
    culprit: str | None = None
    pause: float | None = None
    fillers: list[str] = field(default_factory=list)

    def fail(self, reason: str, culprit: str | None = None, pause: float | None = None) -> None:
        if self.reason is None:
            self.reason, self.culprit, self.pause = reason, culprit, pause


class SpeechListener:
    """One floor's listener. `nominations=False` for tie speeches and last words."""

    def __init__(
        self,
        grammar: Grammar,
        context: NominationContext,
        *,
        nominations: bool = True,
        pause_limit: float = 10.0,
        pass_silence: float = 1.5,
        limit: float | None = None,
        required_fillers: tuple[str, ...] = (),
    ) -> None:
        self.grammar = grammar
        self.context = context
        self.nominations = nominations
        self.pause_limit = pause_limit
        self.pass_silence = pass_silence
        self.limit = limit
        self.required = tuple(normalize(w) for w in required_fillers)
        self.ended: SpeechEnd | None = None
        self.pass_at: float | None = None
        self._attempt: _Attempt | None = None
        self._recent: deque[str] = deque(maxlen=max(1, grammar.question_window))
        self._previous: tuple[str, Word] | None = None
        self.accepted: int | None = None  # this speaker's accepted nomination (one a speech)

    @property
    def pass_deadline(self) -> float | None:
        """When a pending "пас" ends the speech if no word starts before it."""
        return None if self.pass_at is None else self.pass_at + self.pass_silence

    def hear(self, word: Word) -> list[ListenerEvent]:
        if self.ended or (self.limit is not None and word.start >= self.limit - EPSILON):
            return []
        events: list[ListenerEvent] = []
        if self.pass_at is not None:
            if word.start - self.pass_at > self.pass_silence + EPSILON:
                return self._end_by_pass()
            self.pass_at = None
        text = normalize(word.word)
        if not text:
            return []
        events += self._forbidden(text, word)
        if self._is_question(text):
            events.append(HostQuestion(word.end))
        if text in self.grammar.thanks:
            self._attempt = None
            self.ended = SpeechEnd(text, word.end)
            return events + [self.ended]
        if text in self.grammar.passes:
            self.pass_at = word.end
        if self.nominations:
            events += self._nomination_step(text, word)
        return events

    def expire(self, now: float) -> list[ListenerEvent]:
        """The clock passed `now` with no new word: a pending "пас" may end the speech."""
        deadline = self.pass_deadline
        if self.ended is None and deadline is not None and now >= deadline - EPSILON:
            return self._end_by_pass()
        return []

    def finish(self) -> list[ListenerEvent]:
        """The input is over (check-phrase): a trailing "пас" ends the speech."""
        return self._end_by_pass() if self.pass_at is not None and not self.ended else []

    def _end_by_pass(self) -> list[ListenerEvent]:
        assert self.pass_at is not None
        self._attempt = None
        self.ended = SpeechEnd(min(self.grammar.passes), self.pass_at)
        return [self.ended]

    def _forbidden(self, text: str, word: Word) -> list[ListenerEvent]:
        events: list[ListenerEvent] = []
        previous, self._previous = self._previous, (text, word)
        if previous is not None:
            rule = self.grammar.forbidden_phrase(previous[0], text)
            if rule:
                phrase = f"{as_said(previous[1].word)} {as_said(word.word)}"
                events.append(ForbiddenWord(phrase, rule.suggest, rule.clause, previous[1].start))
        rule = self.grammar.forbidden_rule(text)
        if rule:
            events.append(ForbiddenWord(as_said(word.word), rule.suggest, rule.clause, word.start))
        return events

    def _is_question(self, text: str) -> bool:
        g = self.grammar
        mine = "address" if text.startswith(g.question_address) else (
            "subject" if text.startswith(g.question_subject) else None
        )
        if mine is None:
            self._recent.append("")
            return False
        other = "subject" if mine == "address" else "address"
        if other in self._recent:
            self._recent.clear()
            return True
        self._recent.append(mine)
        return False

    def _nomination_step(self, text: str, word: Word) -> list[ListenerEvent]:
        kind = self.grammar.kind(text)
        if kind in (Kind.TRIGGER, Kind.WRONG_FORM):
            self._attempt = _Attempt(last_end=word.end)
            if kind is Kind.WRONG_FORM:
                self._attempt.fail(Reason.WRONG_FORM, word.word)
            return []
        attempt = self._attempt
        if attempt is None:
            return []
        gap = word.start - attempt.last_end
        if gap > self.pause_limit + EPSILON:
            attempt.fail(Reason.PAUSE_TOO_LONG, pause=gap)
        attempt.last_end = word.end
        seat = self.grammar.number(text) if kind is Kind.NUMBER else None
        if seat:
            return [self._decide(attempt, seat, word)]
        if kind is Kind.FILLER:
            attempt.fillers.append(text)
        else:
            attempt.fail(Reason.EXTRA_WORDS, word.word)
        return []

    def _decide(self, attempt: _Attempt, seat: int, word: Word) -> Nomination:
        self._attempt = None
        if attempt.reason is None and not self._has_required(attempt.fillers):
            attempt.fail(Reason.WRONG_FORM)
        if attempt.reason:
            return Nomination(seat, False, word.end, attempt.reason, attempt.culprit, attempt.pause)
        reason = Reason.SECOND_NOMINATION if self.accepted is not None else self.context.judge(seat)
        if reason:
            return Nomination(seat, False, word.end, reason)
        self.accepted = seat
        return Nomination(seat, True, word.end)

    def _has_required(self, fillers: list[str]) -> bool:
        """Whether the phrase named every required filler (classic: "кандидатуру игрока")."""
        score = self.grammar.fuzzy_score
        return all(any(f == need or fuzz.ratio(f, need) >= score for f in fillers) for need in self.required)
