"""Revisions: the final result of an utterance replacing the words the table
already took from its partial results (issue 10).

Words are decided from the recognizer's text partial as soon as they are
stable, with estimated times. When the utterance's final result comes, the
recognizer hands over a `Revision` (the provisional words, the final words
with exact times). The table then replays the game from the point before the
utterance's first provisional word (the *mark*) with the final words put in
the provisional words' places. So every timing rule (the 10 s pause after the
trigger, the 1.5 s after "пас") is judged again on the exact word times, and
a decision the final result contradicts is corrected aloud.

When the provisional words are still held (not yet written: nothing said
depended on them), the journal simply gets the final words in their place.
Otherwise it keeps the provisional words as they were applied and then a
`revise` entry: where the mark stood ("from", a count of accepted inputs),
which inputs after it were the provisional words ("old", counted from the
mark) and the final words ("new"). Replaying a journal takes the same mark
and does the same replay, so it rebuilds the corrected game. Journals of
version 3 kept both word lists and no "from": their mark is found as the live
table found it then (before the first word after a revision or an undo).
This module holds all of that, with the two steps every replay is made of
(`apply_entry`, `replay_from`); the journaled game (`voicehost.journal.table.Table`)
calls `mark`, `find_places` and `revise`, and its replay loop `ReplayRevisions.see`
once per entry."""
from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

from voicehost.errors import JournalError, VoicehostError
from voicehost.game.events import parse_event
from voicehost.game.model import Output, OutputKind
from voicehost.game.moderator import Moderator, new_game
from voicehost.journal.lines import Entry, run_of_words, words_of_run
from voicehost.jsontypes import JSONObject
from voicehost.phrases.words import Word, parse_words

# A provisional word matches its journaled entry to this many seconds (the
# journal may keep word times to the millisecond).
SAME_TIME = 0.002


@dataclass
class Mark:
    """The game as it stood before an utterance's first provisional word, and
    how many accepted inputs it had then."""

    index: int
    game: Moderator


def mark(game: Moderator, entries: list[Entry]) -> Mark:
    return Mark(len(entries), game.copy())


def revise_json(start: int, places: list[int], new: list[Word] | tuple[Word, ...]) -> JSONObject:
    """The journal entry of a revision: the mark, the provisional words' places after it, the final words."""
    seats = {w.seat for w in new}
    entry: JSONObject = {"type": "revise", "from": start, "old": [p - start for p in places]}
    if any(w.angle is not None for w in new):   # an array heard them: each word with its seat and direction
        entry["new"] = [[w.word, w.start, w.end, w.seat, w.angle] for w in new]
        return entry
    if len(seats) > 1:   # the floor passed on within the utterance: each word with its seat
        entry["new"] = [[w.word, w.start, w.end, w.seat] for w in new]
        return entry
    entry["new"] = run_of_words([(w.word, w.start, w.end) for w in new])
    seat = seats.pop() if seats else None
    if seat is not None:
        entry["seat"] = seat   # the seat whose channel heard the final words (SPEC §7.1)
    return entry


def _is_word(entry: JSONObject, word: Word) -> bool:
    if entry.get("type") != "word" or entry.get("word") != word.word:
        return False
    start, end = entry.get("start"), entry.get("end")
    return isinstance(start, (int, float)) and isinstance(end, (int, float)) \
        and abs(start - word.start) <= SAME_TIME and abs(end - word.end) <= SAME_TIME


def find_places(entries: list[Entry], start: int, old: list[Word] | tuple[Word, ...]) -> list[int]:
    """Where the provisional words `old` were applied, after `start` (a word
    the echo guard dropped never reached the game, and has no place)."""
    places: list[int] = []
    for word in old:
        after = places[-1] + 1 if places else start
        found = next((i for i in range(after, len(entries)) if _is_word(entries[i].event, word)), None)
        if found is not None:
            places.append(found)
    return places


def revised_entries(entries: list[Entry], places: list[int], new: list[Word] | tuple[Word, ...]) -> list[Entry]:
    """`entries` with the words at `places` replaced by `new`, each in the
    place and at the time its provisional word was applied; extra final words
    follow the last one, missing ones are dropped."""
    out = list(entries)
    fresh = [{"type": "word", **w.to_json()} for w in new]
    if not places:
        t = entries[-1].t if entries else 0.0
        return out + [Entry(max(t, w.start), e) for w, e in zip(new, fresh, strict=True)]
    for place, event in zip(places, fresh, strict=False):
        out[place] = Entry(out[place].t, event)
    if len(fresh) > len(places):
        at = places[-1] + 1
        out[at:at] = [Entry(out[places[-1]].t, event) for event in fresh[len(places):]]
    for place in reversed(places[len(fresh):]):
        del out[place]
    return out


def apply_entry(game: Moderator, entry: Entry) -> list[Output]:
    """One accepted input (or clock mark) applied to `game`, as journaled."""
    if entry.event.get("type") == "tick":
        return game.advance(entry.t)
    return game.handle(parse_event(entry.event, game.max_seat), entry.t)


def take_over(game: Moderator, other: Moderator) -> None:
    """`game` becomes the game `other` is, in place: whoever holds `game` (the
    page, the hub, a terminal) holds the rebuilt or revised game from now on.
    `other` is left as it was; what never changes (rules, grammar, phrasebook)
    and the outputs said so far are shared, and whatever in the state names
    `other` (a speech's listener) names `game` instead."""
    if other is game:
        return
    memo: dict[int, object] = {id(other): game, id(other.rules): other.rules, id(other.grammar): other.grammar,
                               id(other.book): other.book, id(other.outputs): list(other.outputs)}
    for name, value in vars(other).items():
        setattr(game, name, copy.deepcopy(value, memo))


def replay_from(game: Moderator, entries: list[Entry]) -> list[Output]:
    """Apply accepted inputs to `game`; what no longer fits is passed over (as an undo's rebuild)."""
    outputs: list[Output] = []
    for entry in entries:
        try:
            outputs += apply_entry(game, entry)
        except VoicehostError:
            continue
    return outputs


def correction(game: Moderator, before: list[Output], after: list[Output], now: float) -> list[Output]:
    """What to say when a revision changed the announcements: the new ones,
    each as a correction, and a withdrawal for a nomination no longer heard."""
    book = game.book

    def said(outputs: list[Output]) -> list[tuple[str, str]]:
        return [(o.key, book.render(o)) for o in outputs if o.kind == OutputKind.SAY and not o.private]

    # a forbidden word only the final result heard: the host gets its suggestion all the same
    suggested = [(o.key, o.values) for o in before if o.kind == OutputKind.SUGGEST]
    suggest = [o for o in after if o.kind == OutputKind.SUGGEST and (o.key, o.values) not in suggested]
    was, now_said = said(before), said(after)
    if was == now_said:
        return suggest
    gone = [o for o in before if o.kind == OutputKind.SAY and (o.key, book.render(o)) not in now_said]
    come = [o for o in after if o.kind == OutputKind.SAY and not o.private and (o.key, book.render(o)) not in was]
    out = [Output(now, OutputKind.SAY, "correction_withdrawn", False, {"seat": o.values.get("seat", "")})
           for o in gone if o.key == "accepted"]
    out += [Output(now, OutputKind.SAY, "correction", False,
                   {"word": book.render(o), **({"seat": o.values["seat"]} if "seat" in o.values else {})})
            for o in come]
    return out + suggest


def revise(game: Moderator, at: Mark | None, entries: list[Entry], places: list[int],
           new: list[Word] | tuple[Word, ...], now: float, *,
           say: bool = True) -> tuple[list[Entry], list[Output]]:
    """Replay from the mark with the final words in the provisional words'
    `places`: `game` (the same object) becomes the revised game; returns its
    accepted inputs and the spoken corrections (none when nothing said
    changed). `say=False` (a journal's replay) skips the corrections."""
    start, base = (at.index, at.game) if at is not None else (0, new_game(game.rules))
    revised = revised_entries(entries, places, new)
    before = replay_from(base.copy(), entries[start:]) if say else []
    take_over(game, base)
    after = replay_from(game, revised[start:])
    t = max(now, game.now)
    after += game.advance(t)   # a timer the final times make due by now (a "пас" that ended the speech)
    return revised, correction(game, before, after, t)


class ReplayRevisions:
    """The journal replay's side of revisions: it takes the mark where the
    live table took it, and applies `revise` entries.

    A revise entry of version 4 on says where its mark stood ("from"): `starts`
    are those counts, in order, and the game is copied when the accepted
    inputs reach the next of them. Revise entries of version 3 had no "from":
    their mark is before the first word after a revision or an undo, taken
    only when the journal has such entries (`legacy`; a version 3 journal
    resumed by this voicehost goes on with entries that say it)."""

    def __init__(self, path: Path, events: list[object]) -> None:
        self.path = path
        revisions = [e for e in events if isinstance(e, dict) and e.get("type") == "revise"]
        self.starts = [e["from"] for e in revisions if type(e.get("from")) is int]
        self.legacy = any("from" not in e for e in revisions)
        self.mark: Mark | None = None          # for the next revision that names its mark
        self.legacy_mark: Mark | None = None   # for the next one that does not

    def see(self, number: int, entry: Entry, game: Moderator, entries: list[Entry]) -> list[Entry] | None:
        """Called before each entry is replayed. For a `revise` entry, `game`
        is revised (in place) and its accepted inputs returned; else None."""
        t, event = entry.t, entry.event
        kind = event.get("type")
        if self.legacy:
            if kind == "undo":
                self.legacy_mark = None
            elif kind == "word" and self.legacy_mark is None:
                self.legacy_mark = mark(game, entries)
        if self.starts and len(entries) == self.starts[0] and kind != "revise":
            self.mark = mark(game, entries)   # the live table's mark: before the input at this count
        if kind != "revise":
            return None
        named = "from" in event
        try:
            new, places = self._read(event, entries) if named else self._read_legacy(event, entries)
        except (KeyError, TypeError, VoicehostError) as exc:
            raise JournalError(f"{self.path}:{number}: not a revision ({' '.join(str(exc).split())})") from None
        at = self.mark if named else self.legacy_mark
        if named:
            if event["from"] == 0 and (at is None or at.index != 0):
                at = None   # the live table had no mark (after an undo): it replayed from the deal
            elif at is None or at.index != event["from"]:
                if len(entries) != event["from"]:
                    raise JournalError(f"{self.path}:{number}: not a revision (its mark is not where it says)")
                at = mark(game, entries)
            if self.starts:
                self.starts.pop(0)
        entries, _ = revise(game, at, entries, places, new, t, say=False)
        self.mark = self.legacy_mark = None
        return entries

    def _read_legacy(self, event: JSONObject, entries: list[Entry]) -> tuple[list[Word], list[int]]:
        """Version 3: both word lists, the provisional words found after the mark."""
        old = parse_words(event["old"], "old")
        start = self.legacy_mark.index if self.legacy_mark is not None else 0
        return parse_words(event["new"], "new"), find_places(entries, start, old)

    def _read(self, event: JSONObject, entries: list[Entry]) -> tuple[list[Word], list[int]]:
        start, offsets, items = event["from"], event["old"], event["new"]
        run = words_of_run(items)
        if run is not None:
            items = [[e["word"], e["start"], e["end"]] for e in run]
        if type(start) is not int or not isinstance(offsets, list) or not isinstance(items, list) \
                or not all(isinstance(i, list) and len(i) in (3, 4, 5) for i in items):
            raise JournalError("its fields are not what a revision holds")
        places: list[int] = []
        for offset in offsets:
            place = start + offset if type(offset) is int and offset >= 0 else -1
            if not (start <= place < len(entries)) or (places and place <= places[-1]) \
                    or entries[place].event.get("type") != "word":
                raise JournalError(f"no provisional word at {offset} after the mark")
            places.append(place)
        seat = event.get("seat")
        new = parse_words([{"word": i[0], "start": i[1], "end": i[2], "seat": i[3] if len(i) >= 4 else seat,
                            "angle": i[4] if len(i) == 5 else None} for i in items if isinstance(i, list)], "new")
        return new, places
