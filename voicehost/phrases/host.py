"""The host's spoken commands (SPEC §7.2): a pure parser from heard words to
the input they make (a §4 event as JSON, or a control), or the reason they
make none. No I/O beyond loading the grammar file (grammars/host.<lang>.toml);
the caller judges the event as any other input (`parse_event`, admission)."""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from voicehost.errors import DataError, InputError
from voicehost.jsontypes import JSONObject
from voicehost.phrasedata import PhraseData, source
from voicehost.phrases.grammar import normalize
from voicehost.refusals import RefuseKey

CONTROLS = ("pause", "resume", "next", "undo", "confirm")
SEAT_COMMANDS = ("foul", "disqualify", "best_player", "worst_player")
# Only these may be said with the seat first ("седьмому фол").
SEAT_FIRST = ("foul",)
# Said back and taken only after the host confirms it.
NEEDS_CONFIRM = ("disqualify",)
_DIGITS = re.compile(r"^№?([0-9]{1,2})(?:-?(?:й|я|е|го|му|м|ой|ую|ый|ого|ому|ым|ом|ая|ое|ые|ых|ю|му|им|ий))?$")
_SPLIT = re.compile(r"[\s,;:.!?—–]+")

Phrase = tuple[str, ...]


@dataclass(frozen=True)
class HostGrammar:
    language: str
    wake_word: str
    controls: dict[str, tuple[Phrase, ...]]
    seat_commands: dict[str, tuple[Phrase, ...]]
    each_vote: tuple[Phrase, ...]
    lift: tuple[Phrase, ...]
    before_seat: tuple[Phrase, ...]
    after_count: frozenset[str]
    seats: dict[str, int]     # every case form of 1..10
    counts: dict[str, int]    # cardinal forms of 0..10
    night: frozenset[str]

    def words(self) -> frozenset[str]:
        """Every word a command may hold, for a recognizer that hears only listed words."""
        phrases = [*self.each_vote, *self.lift, *self.before_seat]
        for table in (self.controls, self.seat_commands):
            for forms in table.values():
                phrases += forms
        return frozenset({w for p in phrases for w in p} | set(self.after_count) | set(self.seats)
                         | set(self.counts) | {self.wake_word})


@dataclass(frozen=True)
class HostCommand:
    """What an utterance makes: an event (its §4 JSON) or a control."""

    event: JSONObject | None = None
    control: str | None = None

    @property
    def needs_confirm(self) -> bool:
        return self.event is not None and self.event.get("type") in NEEDS_CONFIRM

    def to_json(self) -> JSONObject:
        if self.event is not None:
            return {"accepted": True, "event": self.event}
        return {"accepted": True, "control": self.control}


# ------------------------------------------------------------ loading


def _phrases(value: object, where: str) -> tuple[Phrase, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise DataError(f"{where} must be a list of phrases")
    return tuple(tuple(normalize(w) for w in v.split()) for v in value)


def _table(data: Mapping[str, object], name: str, keys: tuple[str, ...], where: str) -> dict[str, tuple[Phrase, ...]]:
    table = data.get(name)
    if not isinstance(table, dict):
        raise DataError(f"{where}: [{name}] must be a table")
    missing = [k for k in keys if k not in table]
    if missing or set(table) - set(keys):
        raise DataError(f"{where}: [{name}] must name exactly {', '.join(keys)}")
    return {key: _phrases(table[key], f"{where}: [{name}] '{key}'") for key in keys}


def _numbers(phrases: PhraseData, filename: str, where: str) -> tuple[dict[str, int], dict[str, int]]:
    """Every form of each seat, and the cardinal forms alone (the counts)."""
    seats: dict[str, int] = {}
    counts: dict[str, int] = {}
    for key, forms in phrases.read(filename, "number words").items():
        if not isinstance(forms, dict) or not key.isdigit():
            raise DataError(f"{where}: {filename} [{key}] is not a seat's number words")
        for kind in ("cardinal", "ordinal"):
            for word in forms.get(kind, []):
                seats[normalize(word)] = int(key)
                if kind == "cardinal":
                    counts[normalize(word)] = int(key)
    return seats, counts


def load_host_grammar(language: str = "ru", folder: Path | PhraseData | None = None) -> HostGrammar:
    """The host grammar of a table language (grammars/host.<language>.toml)."""
    return _load(language, source(folder))


@lru_cache(maxsize=8)
def _load(language: str, phrases: PhraseData) -> HostGrammar:
    filename = f"host.{language}.toml"
    where = str(phrases.path(filename))
    data = phrases.read(filename, "host grammar")
    words = data.get("words")
    votes = data.get("votes")
    if not isinstance(words, dict) or not isinstance(votes, dict):
        raise DataError(f"{where}: [words] and [votes] must be tables")
    numbers = data.get("numbers")
    if not isinstance(numbers, str) or Path(numbers).name != numbers:
        raise DataError(f"{where}: 'numbers' must name a number-words file beside it")
    seats, counts = _numbers(phrases, numbers, where)
    for zero in _phrases(words.get("zero", []), f"{where}: [words] 'zero'"):
        counts[" ".join(zero)] = 0

    def single(key: str) -> frozenset[str]:
        return frozenset(" ".join(p) for p in _phrases(words.get(key), f"{where}: [words] '{key}'"))

    return HostGrammar(
        language=str(data.get("language", language)),
        wake_word=normalize(str(data.get("wake_word", ""))),
        controls=_table(data, "controls", CONTROLS, where),
        seat_commands=_table(data, "seat_commands", SEAT_COMMANDS, where),
        each_vote=_phrases(votes.get("each"), f"{where}: [votes] 'each'"),
        lift=_phrases(votes.get("lift"), f"{where}: [votes] 'lift'"),
        before_seat=tuple(sorted(_phrases(words.get("before_seat"), f"{where}: [words] 'before_seat'"),
                                 key=len, reverse=True)),
        after_count=single("after_count"),
        seats=seats,
        counts=counts,
        night=single("night"),
    )


# ------------------------------------------------------------ parsing


def tokens(words: Sequence[str]) -> list[str]:
    """The words as the grammar compares them: split at punctuation, normalised, none empty."""
    return [t for word in words for part in _SPLIT.split(word) if (t := normalize(part))]


def _refuse(message: str, key: RefuseKey, **values: object) -> InputError:
    return InputError(message, key=key, values=values)


def _starts(words: list[str], at: int, phrases: Sequence[Phrase]) -> int:
    """The length of the longest phrase found at `at`, 0 if none."""
    found = [len(p) for p in phrases if tuple(words[at:at + len(p)]) == p]
    return max(found, default=0)


def _seat(words: list[str], at: int, grammar: HostGrammar) -> tuple[int, int] | None:
    """A seat at `at`, after any of "игроку", "номер" and the like ("игроку номер"):
    the seat and where the next word is."""
    for _ in range(3):
        skip = _starts(words, at, grammar.before_seat)
        if not skip:
            break
        at += skip
    seat = _number(words[at], grammar.seats) if at < len(words) else None
    return None if seat is None else (seat, at + 1)


def _number(word: str, forms: dict[str, int]) -> int | None:
    if word in forms:
        return forms[word]
    digits = _DIGITS.match(word)
    return int(digits.group(1)) if digits else None


def _count(words: list[str], at: int, grammar: HostGrammar) -> tuple[int, int] | None:
    if at >= len(words):
        return None
    count = _number(words[at], grammar.counts) if not words[at].startswith("№") else None
    if count is None:
        return None
    at += 1
    if at < len(words) and words[at] in grammar.after_count:
        at += 1
    return count, at


def _done(words: list[str], at: int, command: HostCommand) -> HostCommand:
    if at < len(words):
        rest = " ".join(words[at:])
        raise _refuse(f"extra words after the command: {rest!r}", RefuseKey.EXTRA_WORDS, word=rest)
    return command


def parse_host(words: Sequence[str], grammar: HostGrammar, *, wake: bool = False,
               wake_word: str = "") -> HostCommand:
    """One utterance of the host as the command it makes; an `InputError`
    carrying the refusal's key (and its English) when it makes none.
    `wake`: a shared microphone, where a command starts with the wake word."""
    said = tokens(words)
    wake_word = normalize(wake_word) or grammar.wake_word
    wake_said = tuple(wake_word.split())
    if tuple(said[:len(wake_said)]) == wake_said:
        said = said[len(wake_said):]
    elif wake:
        raise _refuse(f"a command on a shared microphone starts with {wake_word!r}",
                      RefuseKey.NO_WAKE_WORD, word=wake_word)
    if not said:
        raise _refuse("no command was said", RefuseKey.EMPTY_COMMAND)
    command = _command(said, grammar)
    if command is None:
        if any(word in grammar.night for word in said):
            raise _refuse("night inputs are never taken by voice", RefuseKey.NIGHT_INPUT)
        raise _refuse(f"{said[0]!r} starts no host command", RefuseKey.NOT_A_COMMAND, word=said[0])
    return command


def _command(said: list[str], grammar: HostGrammar) -> HostCommand | None:
    for control, phrases in grammar.controls.items():
        length = _starts(said, 0, phrases)
        if length:
            return _done(said, length, HostCommand(control=control))
    lift = _starts(said, 0, grammar.lift)
    if lift:
        count = _count(said, lift, grammar)
        if count is None:
            raise _refuse("a lift vote needs its count", RefuseKey.NO_COUNT, word=" ".join(said[:lift]))
        return _done(said, count[1], HostCommand(event={"type": "lift_votes", "count": count[0]}))
    if _starts(said, 0, grammar.each_vote):
        return _votes(said, grammar)
    for kind, phrases in grammar.seat_commands.items():
        length = _starts(said, 0, phrases)
        if length:
            seat = _seat(said, length, grammar)
            if seat is None:
                raise _refuse(f"{kind} needs a seat", RefuseKey.NO_SEAT, word=" ".join(said[:length]))
            return _done(said, seat[1], HostCommand(event={"type": kind, "seat": seat[0]}))
    first = _seat(said, 0, grammar)
    if first is not None:
        for kind in SEAT_FIRST:
            length = _starts(said, first[1], grammar.seat_commands[kind])
            if length:
                return _done(said, first[1] + length, HostCommand(event={"type": kind, "seat": first[0]}))
    return None


def _votes(said: list[str], grammar: HostGrammar) -> HostCommand:
    """`за <seat> <count>` repeated: the tally (the last candidate may be left out)."""
    counts: JSONObject = {}
    at = 0
    while at < len(said):
        length = _starts(said, at, grammar.each_vote)
        if not length:
            break
        seat = _seat(said, at + length, grammar)
        if seat is None:
            raise _refuse("a tally names a seat after each 'за'", RefuseKey.NO_SEAT, word=said[at])
        count = _count(said, seat[1], grammar)
        if count is None:
            raise _refuse(f"a tally needs the count for seat {seat[0]}", RefuseKey.NO_COUNT,
                          word=" ".join(said[at:seat[1]]))
        if str(seat[0]) in counts:
            raise _refuse(f"votes name seat {seat[0]} twice", RefuseKey.VOTES_SEAT_TWICE, seat=seat[0])
        counts[str(seat[0])] = count[0]
        at = count[1]
    return _done(said, at, HostCommand(event={"type": "votes", "counts": counts}))


__all__ = ["CONTROLS", "HostCommand", "HostGrammar", "load_host_grammar", "parse_host", "tokens"]
