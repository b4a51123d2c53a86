"""The journal's line format and its reader: one JSON object per line, each
chained to the one before by a short hash ("h"); `scan_bytes` checks the chain
and finds where a torn tail (a crash mid-write) starts.

Heard words, by far the most common input, are kept short. A run of words is
one line, `{"ws": [...], "cs": [...]}`: the words ("[unk]", a word the rules
have no use for, as 0), and per word three whole numbers of centiseconds
("ms" instead of "cs" when the times need milliseconds): its start (the first
word's from 0, the others' from the end of the word before), its length, and
the time it was applied less its start. Times off both grids, and single words
of older journals, use `{"w": [word, start, end]}` with "t" when it is not the
start. A clock mark (a timer fired) is `{"k": t}`.

Since version 5 the checks are keyed (an HMAC, see keys.py): a key of the game's
own, in a 0600 file beside the journal, so an edit with recomputed checks is
refused; the header names the game (a random identity and the time it started),
so two games' headers always differ. Versions 3 and 4 (a plain hash) still read.

Only the part after the last newline is a torn write (a crash mid-write never
ends in a newline): a complete line that fails its check was damaged, and is
refused naming its line; a torn header (no complete line at all) is
`TornHeader`, from which a new game (or a resume) starts anew."""
from __future__ import annotations

import hashlib
import hmac
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from voicehost.config import check_phrase_data
from voicehost.errors import JournalError
from voicehost.jsonio import loads_strict
from voicehost.jsontypes import JSONObject, JSONValue
from voicehost.rules import RuleOptions, rules_for

VERSION = 5
READS = (3, 4, 5)   # 3: no runs of words, revisions without "from"; 4: unkeyed checks, no game identity
KEYED = 5           # the first version with keyed checks
UNK = "[unk]"
BATCH_WORDS = 200  # words in one line at most
HASH_CHARS = 10
_HASH_PREFIX = b',"h":"'
_SUFFIX_LEN = len(_HASH_PREFIX) + HASH_CHARS + 2      # ,"h":"0123456789"}


@dataclass(slots=True)
class Entry:
    """One accepted input (or a clock mark: {"type": "tick"}) as the game
    applied it: its game time and its event, the SPEC's JSON object; read
    as `entry.t` and `entry.event`. Not frozen, like the engine's effects:
    one is made per input and clock mark, and a frozen dataclass costs three
    times as much to build; nothing assigns to an entry once it is made."""

    t: float
    event: JSONObject


TICK: JSONObject = {"type": "tick"}


class TornHeader(JournalError):
    """A journal whose header never reached the disk whole: nothing was played."""


def entry_hash(previous: str, body: bytes, key: bytes | None = None) -> str:
    """The chained check of one line: the line before it, and this line's bytes
    without the check itself (so any change to a byte shows); keyed (an HMAC)
    when the journal has a key, so that nobody without it can recompute one."""
    data = previous.encode("ascii") + b"\n" + body
    if key is None:
        return hashlib.sha256(data).hexdigest()[:HASH_CHARS]
    return hmac.new(key, data, hashlib.sha256).hexdigest()[:HASH_CHARS]


def compact(entry: JSONObject) -> JSONObject:
    """A recognized word in a short form: {"w": [word, start, end]}, with "t"
    only when it is not the word's start; a clock mark as {"k": t}."""
    event = entry.get("event")
    if event == {"type": "tick"}:
        return {"k": entry["t"]}
    if isinstance(event, dict) and event.get("type") == "word" and set(event) == {"type", "word", "start", "end"}:
        short: JSONObject = {} if entry["t"] == event["start"] else {"t": entry["t"]}
        short["w"] = [event["word"], event["start"], event["end"]]
        return short
    return entry


_WORD_KEYS = frozenset({"type", "word", "start", "end"})


def _is_word(t: float, event: JSONObject) -> bool:
    """A plain heard word, or one with the seat whose channel heard it (SPEC §7.1)."""
    keys = set(event)
    return event.get("type") == "word" and (keys == _WORD_KEYS or keys == _WORD_KEYS | {"seat"}
                                            and is_seat(event["seat"])) \
        and isinstance(event["word"], str) and not isinstance(t, bool)


def is_seat(value: object) -> bool:
    return type(value) is int and 1 <= value <= 99


def _on_grid(values: Sequence[object], unit: int) -> list[int] | None:
    out = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return None
        whole = round(value * unit)
        if whole / unit != value:
            return None
        out.append(whole)
    return out


def word_run(entries: list[Entry]) -> JSONObject | None:
    """Heard words applied one after another, as one line; None when some
    entry is no plain word, or its times are on neither grid."""
    if not entries or not all(_is_word(e.t, e.event) for e in entries):
        return None
    seats = {e.event.get("seat") for e in entries}
    if len(seats) != 1:
        return None
    flat = [x for e in entries for x in (e.event["start"], e.event["end"], e.t)]
    key, whole = "cs", _on_grid(flat, 100)
    if whole is None:
        key, whole = "ms", _on_grid(flat, 1000)
    if whole is None:
        return None
    numbers: list[int] = []
    previous_end = 0
    for i in range(0, len(whole), 3):
        start, end, t = whole[i:i + 3]
        numbers += [start - previous_end, end - start, t - start]
        previous_end = end
    words: list[JSONValue] = [0 if e.event["word"] == UNK else e.event["word"] for e in entries]
    run: JSONObject = {"ws": words, key: list[JSONValue](numbers)}
    seat = seats.pop()
    if seat is not None:
        run["seat"] = seat   # every word of the run heard on this seat's channel
    return run


def _run_entries(entry: JSONObject) -> list[JSONObject]:
    words = entry.get("ws")
    keys = set(entry) - {"ws", "seat"}
    seat = entry.get("seat")
    if len(keys) != 1 or not keys <= {"cs", "ms"} or "seat" in entry and not is_seat(seat):
        return [{"bad": True}]
    key = keys.pop()
    unit = 100 if key == "cs" else 1000
    numbers = entry[key]
    if not isinstance(words, list) or not words or not isinstance(numbers, list) \
            or len(numbers) != 3 * len(words) \
            or not all(type(n) is int and abs(n) < 10 ** 12 for n in numbers) \
            or not all(w == 0 and type(w) is int or isinstance(w, str) for w in words):
        return [{"bad": True}]
    whole = cast("list[int]", numbers)   # checked above: whole numbers
    out: list[JSONObject] = []
    previous_end = 0
    for index, word in enumerate(words):
        gap, length, late = whole[3 * index:3 * index + 3]
        start = previous_end + gap
        end = start + length
        previous_end = end
        event: JSONObject = {"type": "word", "word": UNK if word == 0 else word, "start": start / unit,
                             "end": end / unit}
        if seat is not None:
            event["seat"] = seat
        out.append({"t": (start + late) / unit, "event": event})
    return out


def run_of_words(words: list[tuple[str, float, float]]) -> JSONValue:
    """Words (a revision's final words) in the short form of a run, or as
    [word, start, end] lists when their times are on neither grid."""
    run = word_run([Entry(start, {"type": "word", "word": w, "start": start, "end": end}) for w, start, end in words])
    return run if run is not None else [[w, start, end] for w, start, end in words]


def words_of_run(data: object) -> list[JSONObject] | None:
    """The word events of a run (`run_of_words`'s), or None if it is not one."""
    if not isinstance(data, dict) or "ws" not in data:
        return None
    entries = _run_entries(data)
    return None if entries[0].get("bad") else [e for entry in entries if isinstance(e := entry["event"], dict)]


def _expand(entry: JSONObject) -> list[JSONObject]:
    if "ws" in entry:
        return _run_entries(entry)
    if "k" in entry:
        return [{"t": entry["k"], "event": {"type": "tick"}} if set(entry) == {"k"} else {"bad": True}]
    word = entry.get("w")
    if word is None:
        return [entry]
    if not (isinstance(word, list) and len(word) == 3) or set(entry) - {"t", "w"}:
        return [{"bad": True}]
    event = {"type": "word", "word": word[0], "start": word[1], "end": word[2]}
    return [{"t": entry.get("t", word[1]), "event": event}]


def encode_line(previous: str, entry: JSONObject, key: bytes | None = None) -> tuple[bytes, str]:
    text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        body = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escaped, it is still the same JSON
        body = json.dumps(entry, separators=(",", ":"), allow_nan=False).encode("ascii")
    digest = entry_hash(previous, body, key)
    return body[:-1] + _HASH_PREFIX + digest.encode("ascii") + b'"}\n', digest


_HEX = frozenset(b"0123456789abcdef")


def _split(raw: bytes) -> tuple[bytes, str] | None:
    """A line's body (as it was hashed) and its check, if it has the shape of one."""
    if len(raw) <= _SUFFIX_LEN or not raw.endswith(b'"}') or raw[-_SUFFIX_LEN:-HASH_CHARS - 2] != _HASH_PREFIX:
        return None
    digest = raw[-HASH_CHARS - 2:-2]
    if not _HEX.issuperset(digest):
        return None
    return raw[:-_SUFFIX_LEN] + b"}", digest.decode("ascii")


# ------------------------------------------------------------------ reading


@dataclass
class Scan:
    """What a journal file holds: its checked lines, and where its good part ends."""

    path: Path
    header: JSONObject
    entries: list[tuple[int, JSONObject]] = field(default_factory=list)  # (line number, entry)
    last_hash: str = ""
    end: int = 0          # bytes of the good part; anything after it is a torn tail
    torn: int = 0         # bytes in the torn tail
    key: bytes | None = None   # the key of its checks (version 5 on)

    def torn_note(self, command: str) -> str | None:
        """The one line `replay` and `export` print when they leave a torn tail out."""
        if not self.torn:
            return None
        return (f"voicehost {command}: {self.path}: the last {self.torn} bytes are a torn write (a line without "
                f"its newline, never answered): left out")

    @property
    def game(self) -> str | None:
        """The game's identity (version 5 on)."""
        game = self.header.get("game")
        return game if isinstance(game, str) else None


def _parse(raw: bytes) -> JSONObject | None:
    """One line as a JSON object, or None when it cannot be read at all."""
    try:
        data = loads_strict(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


HEADER_START = b'{"journal":'


def is_torn_header(data: bytes) -> bool:
    """No complete line, but the start of a header: the table stopped while it
    was writing it, before anything was played."""
    return bool(data) and b"\n" not in data and (HEADER_START.startswith(data) or data.startswith(HEADER_START))


def torn_header(path: Path) -> TornHeader:
    return TornHeader(f"{path}:1: the header was torn (the table stopped while the game was starting; "
                      f"nothing was played): a new game with --journal {path} starts anew in it")


def _line(raw: bytes) -> tuple[JSONObject, bytes, str | None] | None:
    """A line's entry, the bytes its check covers, and its check (None: it has none)."""
    split = _split(raw)
    body = _parse(split[0]) if split else None
    if split is not None and body is not None:
        return body, split[0], split[1]
    whole = _parse(raw)       # readable, but not with a check: a changed line
    return None if whole is None else (whole, raw, None)


TRUST_FLAG = "--trust-unkeyed"


def _header_key(path: Path, header: JSONObject, trust_unkeyed: bool) -> bytes | None:
    """The key a header's version calls for: none before version 5, whose key lies beside the journal.
    An unkeyed version is read only when its reader trusts it (`trust_unkeyed`): its
    checks anyone can recompute, and its header names no game."""
    from voicehost.journal.keys import has_key, read_key

    found = header.get("journal")
    if not (type(found) is int and found in READS):
        what = f"version {found}; this voicehost reads versions {READS[0]} to {READS[-1]}" \
            if type(found) is int else "its header names no version"
        raise JournalError(f"{path}:1: not a voicehost journal ({what})")
    if found < KEYED:
        if has_key(path):   # a keyed game made to look like an old one, to recompute its checks
            raise JournalError(f"{path}:1: the journal was changed here (its header says version {found}, "
                               f"unkeyed, but its key is beside it); it would replay a different game")
        if not trust_unkeyed:
            raise JournalError(f"{path}:1: an unkeyed journal (version {found}): anyone can edit it and recompute "
                               f"its checks, so it is read only with {TRUST_FLAG}, which trusts that nobody did")
        return None
    game = header.get("game")
    if not isinstance(game, str) or not game:
        raise JournalError(f"{path}:1: the journal was changed here (its header names no game)")
    return read_key(path, game)


def scan_bytes(path: Path, data: bytes, *, trust_unkeyed: bool = False) -> Scan:
    """Check the chain of every complete line; raise naming the first line that
    was changed or damaged. Only the part after the last newline is torn.
    `trust_unkeyed`: read an unkeyed journal (versions 3 and 4), trusting the file."""
    lines = data.split(b"\n")
    complete = lines[:-1]          # the part after the last newline is torn: never acknowledged
    if not complete:
        if not data:
            raise JournalError(f"{path}: the journal is empty")
        if is_torn_header(data):
            raise torn_header(path)
        raise JournalError(f"{path}:1: not a voicehost journal (no readable header)")
    first = _line(complete[0])
    if first is None:
        raise JournalError(f"{path}:1: not a voicehost journal (no readable header)")
    scan = Scan(path, first[0])
    scan.key = _header_key(path, first[0], trust_unkeyed)
    previous = ""
    for index, raw in enumerate(complete):
        number = index + 1
        item = first if index == 0 else _line(raw)
        if item is None:
            raise JournalError(f"{path}:{number}: not a journal entry (a damaged line: it ends in its "
                               f"newline, so it was written whole)")
        entry, hashed, digest = item
        if digest is None or digest != entry_hash(previous, hashed, scan.key):
            raise JournalError(f"{path}:{number}: the journal was changed here (its check does not match); "
                               f"it would replay a different game")
        previous = digest
        if number > 1:
            scan.entries += [(number, expanded) for expanded in _expand(entry)]
    scan.last_hash = previous
    scan.end = len(data) - len(lines[-1])
    scan.torn = len(lines[-1])
    if _newline_damaged(lines[-1], previous, scan.key):
        raise JournalError(f"{path}:{len(complete) + 1}: the journal was damaged here (a whole line whose "
                           f"newline is another byte: a torn write never leaves one); it would replay a "
                           f"different game")
    return scan


def _newline_damaged(tail: bytes, previous: str, key: bytes | None) -> bool:
    """The part after the last newline starts with a whole, checked line and goes on:
    its newline was damaged (a torn write leaves a line's beginning, never all of it
    and then more)."""
    end = tail.find(b'"}')
    while 0 <= end < len(tail) - 2:
        split = _split(tail[:end + 2])
        if split is not None and _parse(split[0]) is not None and split[1] == entry_hash(previous, split[0], key):
            return True
        end = tail.find(b'"}', end + 1)
    return False


def scan_file(path: Path, *, trust_unkeyed: bool = False) -> Scan:
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise JournalError(f"{path} is a folder, not a journal") from None
    except FileNotFoundError:
        raise JournalError(f"no journal at {path}") from None
    except OSError as exc:
        raise JournalError(f"cannot read the journal {path}: {exc.strerror or exc}") from None
    return scan_bytes(path, data, trust_unkeyed=trust_unkeyed)


def header_rules(header: JSONObject, where: str) -> RuleOptions:
    rules = header.get("rules", {})
    if not isinstance(rules, dict):
        raise JournalError(f"{where}: the header's rules are not a table")
    rules = dict(rules)
    name = rules.pop("name", header.get("ruleset", "4mafia"))
    if not isinstance(name, str):
        raise JournalError(f"{where}: the header's ruleset is not a name")
    checked = rules_for(name, rules, where=f"{where} header")
    check_phrase_data(checked, f"{where} header")
    return checked


def checked_entry(number: int, entry: JSONObject, where: Path) -> Entry:
    t, event = entry.get("t"), entry.get("event")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) \
            or not isinstance(event, dict) or set(entry) != {"t", "event"}:
        raise JournalError(f"{where}:{number}: not a journal entry")
    return Entry(float(t), event)
