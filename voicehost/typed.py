"""Typed play: a whole game from a terminal (or a braille display).

Each typed line is what the current speaker said (`<N>` is N seconds of
silence); lines starting with "/" are the host's inputs. After every line a
short status says where the game stands."""
from __future__ import annotations

import random
import re
from typing import Any

from voicehost.errors import InputError
from voicehost.game.events import NULLABLE, ascii_number
from voicehost.game.model import ROLE_COUNTS, Output, Phase
from voicehost.phrasebook import Phrasebook
from voicehost.live import LiveTable
from voicehost.phrases.words import words_from_text

HELP = """\
Команды ведущего (всё остальное — слова текущего игрока; <N> — N секунд тишины):
  /roles d4 m2 m7 s6     раздать роли: дон, мафия, шериф (остальные — мирные)
  /roles players=9 mafia=2 commissar=6 doctor=5   раздача для «города»
  /deal                  раздать роли случайно (ответ — только ведущему)
  /votes 7=4 3=2         голоса за кандидатов (последнему — остаток)
  /lift 6                сколько за то, чтобы все голосуемые покинули стол
  /shot 5   /shot -      выстрел мафии или промах
  /don 4   /sheriff 2    проверки Дона и Шерифа
  /best 2 5 9            лучший ход убитого в ночь 2
  /foul 6  /unfoul 6  /dq 6  /leave 6   фол, снять фол, дисквалификация, ушёл из-за стола
  /bestplayer 3  /worst 8    лучший и худший игрок (после игры)
  /pause  /resume  /next     пауза, продолжить, закрыть текущую речь
  город: /candidates 2 8, /heal 3, /visit 9, /check 4, /maniac 1 (никого: -)
  /state  /help  /quit"""

SEAT_COMMANDS = {"/shot": "shot", "/don": "don_check", "/sheriff": "sheriff_check", "/foul": "foul",
                 "/unfoul": "unfoul", "/dq": "disqualify", "/leave": "leave_table",
                 "/bestplayer": "best_player", "/worst": "worst_player",
                 # the city variant's night
                 "/heal": "heal", "/visit": "visit", "/check": "commissar_check", "/maniac": "maniac_kill"}
NOBODY = ("-", "0", "miss", "промах", "никого")
ROLE_LETTERS = {"d": "don", "m": "mafia", "s": "sheriff", "c": "citizen"}
_SILENCE = re.compile(r"^<(\d+(?:\.\d+)?)>$")


def parse_roles(spec: str) -> dict[str, str]:
    """`d4 m2 m7 s6`: the don, the mafia and the sheriff, the rest citizens; or
    ROLE=SEAT pairs for any game, with players=N for a city table of 8–11:
    `players=9 mafia=2 commissar=6 doctor=5`."""
    tokens = spec.replace(",", " ").split()
    count = 10
    named: list[tuple[str, str]] = []
    for token in tokens:
        pair = re.fullmatch(r"([a-z_]+)=([0-9]{1,2})", token.lower())
        short = re.fullmatch(r"([dmsc])([0-9]{1,2})", token.lower())
        if pair and pair.group(1) == "players":
            count = int(pair.group(2))
        elif pair:
            named.append((pair.group(2), pair.group(1)))
        elif short:
            named.append((short.group(2), ROLE_LETTERS[short.group(1)]))
        else:
            raise InputError(f"roles: '{token}' is neither a role letter and a seat (d4, m2, s6) "
                             f"nor ROLE=SEAT (mafia=2, players=9)")
    roles = {str(seat): "citizen" for seat in range(1, count + 1)}
    for seat, role in named:
        if seat not in roles:
            raise InputError(f"roles: seat {seat} is not at a table of {count}")
        roles[seat] = role
    return roles


def random_roles(rng: random.Random | None = None) -> dict[str, str]:
    pool = [role.value for role, count in ROLE_COUNTS.items() for _ in range(count)]
    (rng or random.SystemRandom()).shuffle(pool)
    return {str(seat): role for seat, role in zip(range(1, 11), pool)}


def parse_command(line: str) -> dict[str, Any] | str:
    """A host command as an event, or a word for the REPL itself (state, help, quit)."""
    head, *args = line.split()
    head = head.lower()
    if head in ("/state", "/help", "/quit"):
        return head[1:]
    if head in ("/pause", "/resume", "/next"):
        return {"type": head[1:]}
    if head == "/roles":
        return {"type": "setup", "roles": parse_roles(" ".join(args))}
    if head == "/deal":
        return {"type": "setup", "roles": random_roles()}
    if head == "/votes":
        counts = {}
        for arg in args:
            seat, sep, count = arg.replace(":", "=").partition("=")
            if not sep or ascii_number(seat) is None or ascii_number(count) is None:
                raise InputError(f"votes: '{arg[:20]}' is not SEAT=COUNT")
            counts[seat] = int(count)
        return {"type": "votes", "counts": counts}
    if head == "/lift":
        if len(args) != 1 or ascii_number(args[0]) is None:
            raise InputError("lift takes one number: /lift 6")
        return {"type": "lift_votes", "count": int(args[0])}
    if head == "/candidates":
        if not all(ascii_number(a) is not None for a in args):
            raise InputError("candidates takes seats: /candidates 2 8 (none: /candidates)")
        return {"type": "candidates", "seats": [int(a) for a in args]}
    if head == "/best":
        if not all(ascii_number(a) is not None for a in args):
            raise InputError("best takes three seats: /best 2 5 9")
        return {"type": "best_move", "seats": [int(a) for a in args]}
    if head in SEAT_COMMANDS:
        if len(args) != 1:
            raise InputError(f"{head} takes one seat, e.g. {head} 5")
        miss = SEAT_COMMANDS[head] in NULLABLE and args[0] in NOBODY
        if not miss and ascii_number(args[0]) is None:
            raise InputError(f"{head}: '{args[0][:20]}' is not a seat")
        return {"type": SEAT_COMMANDS[head], "seat": None if miss else int(args[0])}
    raise InputError(f"unknown command {head}; /help lists them")


def status(live: LiveTable) -> str:
    game = live.game
    parts = []
    if game.phase not in (Phase.SETUP, Phase.GAME_OVER):
        parts.append(f"ночь {game.night}" if game.phase.is_night else f"день {game.day}")
    if game.floor is not None:
        left = max(0, int(round(game.floor.end - game.now)))
        floor = game.book.status_floor[game.floor.kind.value].format(seat=game.floor.seat)
        parts.append(floor + f", осталось {left} с")
    else:
        parts.append(game.book.status.get(game.phase.value, game.phase.value))
    if game.today and game.phase not in (Phase.SETUP, Phase.GAME_OVER):
        parts.append("выставлены " + ", ".join(map(str, game.today)))
    if game.paused_at is not None:
        parts.append("пауза")
    return "· " + " · ".join(parts)


def format_output(output: Output, book: Phrasebook) -> str:
    minutes, seconds = divmod(int(output.t), 60)
    text = book.render(output)
    if output.kind == "suggest":
        verdict = "фол" if output.data.get("suggest") == "foul" else "дисквалификация"
        return f"[{minutes:02d}:{seconds:02d}] ? игрок {output.data.get('seat')}: «{text}» — {verdict}?"
    mark = "(только ведущему) " if output.private else ""
    return f"[{minutes:02d}:{seconds:02d}] {mark}{text}"


def handle_line(live: LiveTable, line: str) -> str | None:
    """Apply one typed line; returns 'quit', 'help' or 'state' for the REPL."""
    line = line.strip()
    if not line:
        return None
    if line.startswith("/"):
        command = parse_command(line)
        if isinstance(command, str):
            return command
        live.apply_json(command)
        return None
    silence = _SILENCE.match(line)
    if silence:
        live.skip(float(silence.group(1)))
        return None
    if live.game.floor is None:
        raise InputError(f"nobody holds the floor now ({status(live)[2:]}); words are not judged")
    start = live.game_now()
    words = [w.shifted(start) for w in words_from_text(line)]
    live.hear(words)
    live.clock.skip_to(words[-1].end + live.lag)
    live.tick()
    return None
