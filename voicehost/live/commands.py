"""The host's typed commands: `/votes 7=4 3=2` and the like, read into the
events the moderator takes. Every refusal is one line in the table's
language (the `[live]` block of the phrasebook)."""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from voicehost.errors import InputError
from voicehost.game.events import NULLABLE, ascii_number
from voicehost.game.model import ROLE_COUNTS
from voicehost.jsontypes import JSONOutObject
from voicehost.live.texts import LiveTexts, live_texts
from voicehost.phrases.grammar import Grammar, Kind
from voicehost.phrases.words import Word
from voicehost.refusals import RefuseKey

SEAT_COMMANDS = {"/shot": "shot", "/don": "don_check", "/sheriff": "sheriff_check", "/foul": "foul",
                 "/unfoul": "unfoul", "/dq": "disqualify", "/leave": "leave_table",
                 "/bestplayer": "best_player", "/worst": "worst_player",
                 "/nominate": "nominate",
                 # the city variant's night
                 "/heal": "heal", "/visit": "visit", "/check": "commissar_check", "/maniac": "maniac_kill"}
REPL_WORDS = ("/state", "/help", "/quit", "/undo", "/new")
NOBODY = ("-", "0", "miss", "промах", "никого", "ніхто")
ROLE_LETTERS = {"d": "don", "m": "mafia", "s": "sheriff", "c": "citizen"}


def _russian() -> LiveTexts:
    return live_texts("phrasebook.ru")


def shown(text: str, limit: int = 20) -> str:
    """A typed token as a refusal quotes it: never a screenful."""
    return text if len(text) <= limit else text[:limit] + "…"


def number(text: str) -> int | None:
    """A typed seat or count: ASCII digits only (never "²" or "٣"), as game.events reads them."""
    return ascii_number(text)


def parse_roles(spec: str, texts: LiveTexts | None = None) -> dict[str, str]:
    """`d4 m2 m7 s6`: the don, the mafia and the sheriff, the rest citizens; or
    ROLE=SEAT pairs for any game, with players=N for a city table of 8–11:
    `players=9 mafia=2 commissar=6 doctor=5`."""
    texts = texts or _russian()
    count = 10
    named: list[tuple[str, str]] = []
    for token in spec.replace(",", " ").split():
        pair = re.fullmatch(r"([a-z_]+)=([0-9]{1,2})", token.lower())
        short = re.fullmatch(r"([dmsc])([0-9]{1,2})", token.lower())
        if pair and pair.group(1) == "players":
            count = int(pair.group(2))
        elif pair:
            named.append((str(int(pair.group(2))), pair.group(1)))
        elif short:
            named.append((str(int(short.group(2))), ROLE_LETTERS[short.group(1)]))
        else:
            raise InputError(texts.text("roles_bad_token", word=shown(token)))
    roles = {str(seat): "citizen" for seat in range(1, count + 1)}
    seen: set[str] = set()
    for seat, role in named:
        if seat not in roles:
            raise InputError(texts.text("roles_off_table", seat=seat, count=count))
        if seat in seen:
            raise InputError(texts.text("roles_twice", seat=seat))
        seen.add(seat)
        roles[seat] = role
    return roles


def random_roles(rng: random.Random | None = None) -> dict[str, str]:
    pool = [role.value for role, count in ROLE_COUNTS.items() for _ in range(count)]
    (rng or random.SystemRandom()).shuffle(pool)
    return {str(seat): role for seat, role in zip(range(1, 11), pool, strict=True)}


def _seats(command: str, args: list[str], texts: LiveTexts) -> list[int]:
    seats = []
    for arg in args:
        seat = number(arg)
        if seat is None:
            raise InputError(texts.text("seats_bad", command=command, word=shown(arg)))
        seats.append(seat)
    return seats


def parse_command(line: str, texts: LiveTexts | None = None) -> JSONOutObject | str:
    """A host command as an event, or a word for the terminal itself (state, help, quit, undo, deal)."""
    texts = texts or _russian()
    head, *args = line.split()
    head = head.lower()
    if head in REPL_WORDS or head == "/deal":
        return head[1:]
    if head in ("/pause", "/resume", "/next"):
        return {"type": head[1:]}
    if head == "/names":  # the players' names, for the rating platforms' records
        from voicehost.export.names import names_event

        try:
            return names_event(line.strip()[len("/names"):])
        except InputError:
            raise InputError(texts.text("names_bad")) from None
    if head == "/roles":
        return {"type": "setup", "roles": parse_roles(" ".join(args), texts)}
    if head == "/protest":   # 1.8: /protest red 8 annulled — after the game's end
        if len(args) != 3 or number(args[1]) is None:
            raise InputError(texts.text("protest_bad"))
        return {"type": "protest", "team": args[0].lower(), "votes": number(args[1]), "outcome": args[2].lower()}
    if head == "/seating":   # 1.2: /seating Алиса, Борис, … (drawn) or /seating set … (in seat order)
        rest = line.strip()[len(head):].strip()
        drawn = not rest.lower().startswith("set ")
        names = [n.strip() for n in (rest if drawn else rest[4:]).split(",") if n.strip()]
        return {"type": "seating", "names": names, "draw": drawn}
    if head == "/votes":
        counts: dict[str, int | None] = {}
        for arg in args:
            seat, sep, count = arg.replace(":", "=").partition("=")
            if not sep or number(seat) is None or number(count) is None:
                raise InputError(texts.text("votes_bad", word=shown(arg)))
            if str(number(seat)) in counts:   # the same refusal as the page's (game.events.parse_event)
                raise InputError(f"votes name seat {number(seat)} twice", key=RefuseKey.VOTES_SEAT_TWICE,
                                 values={"seat": number(seat)})
            counts[str(number(seat))] = number(count)
        return {"type": "votes", "counts": counts}
    if head == "/lift":
        if len(args) != 1 or number(args[0]) is None:
            raise InputError(texts.text("lift_bad"))
        return {"type": "lift_votes", "count": number(args[0])}
    if head == "/candidates":
        return {"type": "candidates", "seats": _seats(head, args, texts)}
    if head == "/best":
        return {"type": "best_move", "seats": _seats(head, args, texts)}
    if head in SEAT_COMMANDS:
        if len(args) != 1:
            raise InputError(texts.text("seat_count_bad", command=head))
        if SEAT_COMMANDS[head] in NULLABLE and args[0].lower() in NOBODY:
            return {"type": SEAT_COMMANDS[head], "seat": None}
        return {"type": SEAT_COMMANDS[head], "seat": _seats(head, args, texts)[0]}
    raise InputError(texts.text("unknown_command", command=shown(head)))


@dataclass(frozen=True)
class PastTable:
    """A nomination naming no seat at this table: what was said ("двадцать
    семь", "ноль", "15") and the words it spans, from its trigger on."""

    said: str
    first: int
    last: int


# Tens words: "двадцать семь" is one number past the table, not "двадцать" and a seat 7.
_TENS = ("двадцат", "тридцат", "сорок", "двадцят", "тридцят")


def seats_past_table(words: list[Word], grammar: Grammar, texts: LiveTexts, size: int) -> list[PastTable]:
    """Every number a nomination names that is no seat at this table ("15",
    "ноль", "одиннадцатого", "двадцать семь"), as it was said."""
    found: list[PastTable] = []
    trigger: int | None = None
    index = 0
    while index < len(words):
        text = words[index].word.lower()
        kind = grammar.kind(text)
        if kind is Kind.TRIGGER:
            trigger = index
        elif trigger is not None:
            past = _past_at(words, index, grammar, texts, size)
            if past is not None:
                found.append(PastTable(" ".join(w.word for w in words[index:past + 1]), trigger, past))
                trigger, index = None, past
            elif kind is Kind.NUMBER and grammar.number(text):
                trigger = None   # a seat: the nomination is the listener's to judge
        index += 1
    return found


def _past_at(words: list[Word], index: int, grammar: Grammar, texts: LiveTexts, size: int) -> int | None:
    """The index of the last word of a number past the table starting at `index`, if one does."""
    text = words[index].word.lower()
    if text.isdigit():
        digits = number(text)
        return index if digits is None or not 1 <= digits <= size else None
    said = grammar.number(text) if grammar.kind(text) is Kind.NUMBER else None
    if said and said > size:
        return index
    if said or not any(text.startswith(stem) for stem in texts.beyond_table):
        return None
    following = words[index + 1].word.lower() if index + 1 < len(words) else ""
    if text.startswith(_TENS) and grammar.kind(following) is Kind.NUMBER and grammar.number(following):
        return index + 1
    return index


def seat_past_table(words: list[Word], grammar: Grammar, texts: LiveTexts, size: int) -> str | None:
    """The first number a nomination names that is no seat at this table, as said; None when there is none."""
    found = seats_past_table(words, grammar, texts, size)
    return found[0].said if found else None


def no_such_player(said: str, texts: LiveTexts) -> str:
    if said.isdigit():
        return texts.text("no_such_player", seat=shown(said))
    return texts.text("no_such_player_word", word=shown(said))
