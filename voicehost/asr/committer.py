"""The partial committer: Vosk's text partials and final results -> words,
each taken once. Pure: no Vosk, no audio; `voicehost.asr.vosk` feeds it.

A partial word counts once it has meant the same to the rules for
`stable_seconds` of audio, or a later word has appeared after it; each word
is judged on its own. "The same" is `rule_meaning`: a number word by its
value, whatever case ending the partial shows while the ending is still
being heard ("седьмой" -> "седьмого"), any wrong form of the trigger as a
wrong form, a word the rules ignore as any other; the trigger, fillers,
forbidden words and the rest by their exact text.
The text partial has no times, so a word taken from it carries estimated
times (`PartialCommitter.estimate`). The final result brings the exact times:
the recognizer then hands over a `Revision` (provisional words -> final
words), and the table replays the utterance with them (voicehost.journal.revision),
so every rule that depends on word times (the 10 s pause, the 1.5 s after
"пас", the speech limit) is in the end judged on the exact times; when a
decision changes, the moderator corrects itself aloud.

To keep those corrections rare, a word whose estimated gap to the word before
it could lie near one of the timing thresholds is not taken from the partial
at all: it waits for the final result and its exact times (see `_risky`)."""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from voicehost.phrases.grammar import Grammar, Kind, normalize
from voicehost.phrases.words import Word


@dataclass(frozen=True)
class Revision:
    """The final result of an utterance replacing the words already taken from
    its partials: same texts with exact times, or different words."""

    old: tuple[Word, ...]
    new: tuple[Word, ...]

    def shifted(self, offset: float) -> Revision:
        return Revision(tuple(w.shifted(offset) for w in self.old), tuple(w.shifted(offset) for w in self.new))

    @property
    def contradicts(self) -> bool:
        """Whether the final result heard other words than the partials did."""
        return [w.word for w in self.old] != [w.word for w in self.new[:len(self.old)]]


class Recognizer(Protocol):
    """Takes 16 kHz mono 16-bit chunks, returns the words it has committed to
    (and `Revision`s of words it committed earlier); `audio_time` is how much
    audio it has been fed."""

    @property
    def audio_time(self) -> float: ...

    def accept(self, pcm: bytes) -> list[Word | Revision]: ...

    def finish(self) -> list[Word | Revision]: ...


# Seconds from a word's end to its first appearance in the text partial, as
# measured with frames-per-chunk 6 (the acoustic model's right context is 0.34 s).
PARTIAL_LAG = 0.4
MARGIN = 0.5  # how far an estimated time may be off


@dataclass(frozen=True)
class SpeechLimits:
    """The timing rules of a speech (SPEC), as the table's rules set them: a
    nomination fails after a pause of more than `pause_limit`, and a pass word
    ends the speech after `pass_silence` with no new word (4mafia: 10 s, 1.5 s)."""

    pause_limit: float = 10.0
    pass_silence: float = 1.5
    pass_words: frozenset[str] = frozenset({"пас"})


FOUR_MAFIA = SpeechLimits()


Meaning = Callable[[str], Hashable]
# What every wrong form of the trigger means (`rule_meaning`): never taken from
# a partial, the final result decides. A wrong form only ever refuses, so
# waiting costs a refusal a quarter of a second; a trigger shown for a moment
# as its wrong form ("выставляем" -> "выставляю", the commonest mishearing near
# the trigger) is then never announced as a refusal and corrected.
WRONG_FORM = ("wrong form",)
# The trigger, and a word the rules do not know: after a taken trigger such a
# word can only refuse the nomination (extra words), and a partial shows one
# where a number is still being heard ("выставляю [unk]" -> "выставляю
# седьмого"), so it too waits for the partial to change or the final result.
TRIGGER = ("trigger",)
OTHER = ("other",)


def exact_text(text: str) -> Hashable:
    """Without a grammar every change of a partial word's text is a new word."""
    return text


def rule_meaning(grammar: Grammar) -> Meaning:
    """What a heard word is to the speech rules, for the partial committer:
    two texts with the same meaning are one word still being heard.

    A number is its seat (1..10, 0 for another number) in any case or form;
    every wrong form of the trigger gets the same refusal, so they are one,
    but never the trigger itself ("выставляю" nominates, "выставляем" does
    not); a word the rules treat as "[unk]" is any such word. The trigger,
    fillers (a ruleset may require one by name), thanks, pass, question and
    forbidden words keep their exact text."""

    def meaning(text: str) -> Hashable:
        word = normalize(text)
        kind = grammar.kind(word)
        if kind is Kind.TRIGGER:
            return TRIGGER
        if kind is Kind.NUMBER:
            return ("number", grammar.number(word))
        if kind is Kind.WRONG_FORM:
            return WRONG_FORM
        if not grammar.reacts_to(text):
            return OTHER
        return (kind.value, word)

    return meaning


class PartialCommitter:
    """Turns Vosk text partials and final results into words, each taken once.

    Partial words are identified by their place in the utterance and their
    `meaning` (the exact text unless told otherwise, `rule_meaning` at the
    table): a word whose meaning changes starts its stability window again,
    and never holds back the words after it. A word is taken with the text
    the partial shows at that moment; the final result has the last word."""

    def __init__(self, stable_seconds: float = 0.1, *, limits: SpeechLimits = FOUR_MAFIA,
                 margin: float = MARGIN, lag: float = PARTIAL_LAG, meaning: Meaning = exact_text) -> None:
        self.stable_seconds = stable_seconds
        self.limits = limits
        self.margin = margin
        self.lag = lag
        self.meaning = meaning
        self._first: dict[tuple[int, Hashable], float] = {}
        self._taken: list[Word] = []  # this utterance's words taken from partials
        self._held = False            # a word is waiting for the final result
        self._attempt = False         # the last words taken are the trigger and fillers
        self.anchor = 0.0             # audio time where this utterance started
        self.last: Word | None = None  # the last word of the last final result (exact times)

    @property
    def pending(self) -> bool:
        """Whether words of this utterance wait for its final result."""
        return bool(self._taken) or self._held

    def partial(self, texts: list[str], audio_time: float) -> list[Word]:
        out: list[Word] = []
        keys = set()
        for index, text in enumerate(texts):
            key = (index, self.meaning(text))
            keys.add(key)
            first = self._first.setdefault(key, audio_time)
            if index != len(self._taken) or self._held:
                continue
            later = index < len(texts) - 1
            if not later and audio_time - first + 1e-9 < self.stable_seconds:
                continue
            if key[1] == WRONG_FORM or (self._attempt and key[1] == OTHER):
                continue  # the words after it wait with it
            word = self.estimate(text, first, audio_time)
            if self._risky(first):
                self._held = True
                continue
            self._taken.append(word)
            out.append(word)
            meaning = key[1]
            filler = isinstance(meaning, tuple) and meaning[:1] == (Kind.FILLER.value,)
            self._attempt = meaning == TRIGGER or (self._attempt and filler)
        self._first = {k: v for k, v in self._first.items() if k in keys}
        return out

    def estimate(self, text: str, first_seen: float, audio_time: float) -> Word:
        """Times for a word seen first at `first_seen`: it ended about `lag`
        before, after the word before it, and inside the audio fed so far."""
        floor = self._taken[-1].end if self._taken else self.anchor
        end = min(audio_time, max(floor, first_seen - self.lag))
        start = max(floor, end - 0.3)
        return Word(text, round(start, 3), round(end, 3), 0.0)

    def _risky(self, first_seen: float) -> bool:
        """Whether the gap before the next word could fall on either side of a
        timing rule's limit: then only the final result's exact times decide.

        The word started at the latest when it was first seen. Inside one
        utterance the endpointer closes the utterance after 2 s of silence, so
        only the 1.5 s after a "пас" can be at stake, judged from the "пас"'s
        estimated end. The first word of an utterance starts after the
        utterance began (`anchor`) and the word before it has exact times, so
        its gap lies in [anchor - end, first_seen - end]."""
        rules = self.limits
        if self._taken:
            before = self._taken[-1]
            return before.word in rules.pass_words and first_seen - before.end + self.margin >= rules.pass_silence
        if self.last is None:
            return False
        low, high = self.anchor - self.last.end - self.margin, first_seen - self.last.end + self.margin
        limits = (rules.pause_limit, rules.pass_silence) if self.last.word in rules.pass_words \
            else (rules.pause_limit,)
        return any(low <= limit <= high for limit in limits)

    def final(self, items: list[dict[str, Any]], audio_time: float) -> list[Word | Revision]:
        words = [Word(str(i["word"]), float(i["start"]), float(i["end"]), float(i.get("conf", 1.0)))
                 for i in items]
        taken, self._taken = self._taken, []
        self._first.clear()
        self._held = self._attempt = False
        self.anchor = audio_time
        if words:
            self.last = words[-1]
        if not taken:
            return list(words)
        return [Revision(tuple(taken), tuple(words))]


def new_words(items: Iterable[Word | Revision]) -> list[Word]:
    """Only the words heard for the first time (training mode, which never corrects itself)."""
    out: list[Word] = []
    for item in items:
        out += list(item.new[len(item.old):]) if isinstance(item, Revision) else [item]
    return out


def plain_words(items: Iterable[Word | Revision]) -> list[Word]:
    """The words a stream of results settles on (for tools that need no revisions)."""
    out: list[Word] = []
    for item in items:
        if isinstance(item, Revision):
            del out[len(out) - len(item.old):]
            out += item.new
        else:
            out.append(item)
    return out
