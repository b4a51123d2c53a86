"""An evening of a club's series in one run (`voicehost run --series NAME`,
SPEC §6): each game journaled in the series' folder, the seats drawn or set
and announced, the protocol filed in the series at the end, the standings
shown, and the next game started on "/new". A crash resumes the game in play;
the series' files are only ever replaced whole."""
from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from rapidfuzz import fuzz, process

from voicehost.errors import InputError
from voicehost.game.protocol import protocol
from voicehost.jsontypes import JSONOutObject
from voicehost.live.table import LiveTable
from voicehost.live.texts import LiveTexts
from voicehost.names import check_name, name_key
from voicehost.series.render import standings_text
from voicehost.series.store import Series

K = TypeVar("K")   # a seat as the names come: a number, or its text in an event's JSON

# rapidfuzz's ratio at which a roster name is offered for one the roster lacks ("Алса" ~ "Алиса": 89).
NEAR_NAME = 60.0


def seating_event(names: list[str], draw: bool, seats: int, texts: LiveTexts, series: Series | None = None,
                  rng: random.Random | None = None) -> JSONOutObject:
    """1.2: the seating event for the players present — the roster's spelling
    of each name, in the order given or drawn at random. In a series a name
    the roster lacks is refused, with the nearest roster name offered, unless
    the host marks it as a newcomer ("+Лев"): a slip never joins the roster."""
    marked = [n.strip() for n in names]
    kept = [check_name(n[1:] if n.startswith("+") else n) for n in marked]
    if len(kept) != seats:
        raise InputError(texts.text("seating_count", count=seats, given=len(kept)))
    spelled = [(series.find(n) if series else None) or n for n in kept]
    if series is not None:
        unknown = next((n for n, m in zip(kept, marked, strict=True)
                        if not m.startswith("+") and series.find(n) is None), None)
        if unknown is not None:
            raise InputError(_unknown_name(unknown, series, texts))
    if draw:
        (rng or random.SystemRandom()).shuffle(spelled)
    return {"type": "seating", "names": {str(seat): name for seat, name in enumerate(spelled, start=1)}}


def roster_names(names: Mapping[K, str], series: Series, texts: LiveTexts, refusal: str = "seating_unknown"
                 ) -> dict[K, str]:
    """Names given to seats in a series (`/names`, the page's seat names): each
    as the roster spells it. A name the roster lacks is refused with the nearest
    roster name offered (`refusal`: the line that says so, and how a newcomer
    joins), unless marked as a newcomer ("+Лев"), as at the seating; an empty
    name takes the seat's name back."""
    spelled: dict[K, str] = {}
    for seat, given in names.items():
        name = given.strip()
        newcomer = name.startswith("+")
        name = check_name(name[1:]) if newcomer else name
        found = series.find(name) if name else None
        if name and found is None and not newcomer:
            raise InputError(_unknown_name(name, series, texts, refusal))
        spelled[seat] = found or name
    return spelled


def _unknown_name(name: str, series: Series, texts: LiveTexts, refusal: str = "seating_unknown") -> str:
    """«Нет в составе: Алса. Может быть, Алиса? …»: the closest roster name, if any is close."""
    keys = {name_key(n): n for n in series.roster}
    found = process.extractOne(name_key(name), list(keys), scorer=fuzz.ratio, score_cutoff=NEAR_NAME)
    guess = texts.text("seating_guess", name=keys[found[0]]) if found else ""
    return texts.text(refusal, word=name, guess=guess)


@dataclass
class Evening:
    series: Series
    texts: LiveTexts

    @property
    def journals(self) -> Path:
        return self.series.folder / "journals"

    def next_journal(self) -> tuple[Path, bool]:
        """The journal of the game to play: the last one if it never reached the
        series (a crash), else a new one; True when it goes on from the journal."""
        self.journals.mkdir(parents=True, exist_ok=True)
        played = sorted(self.journals.glob("game-*.jsonl"))
        filed = {p.stem for p in self.series.game_files()}
        if played and played[-1].stem not in filed and played[-1].stat().st_size > 0:
            return played[-1], True
        number = len(played) + 1   # past the games already in the series too (`series add` from other tables)
        while (self.journals / f"game-{number:03d}.jsonl").exists() or f"game-{number:03d}" in filed:
            number += 1
        return self.journals / f"game-{number:03d}.jsonl", False

    def seating(self, names: list[str], draw: bool, seats: int) -> JSONOutObject:
        return seating_event(names, draw, seats, self.texts, self.series)

    def file(self, live: LiveTable) -> list[str]:
        """The finished game into the series; the lines the host reads then."""
        game_id = live.journal_path.stem if live.journal_path else "game"
        new = self.series.put(game_id, protocol(live.game))
        lines = [self.texts.text("series_added", game=game_id, name=self.series.name)]
        if new:
            lines.append(self.texts.text("series_newcomers", names=", ".join(new)))
        title = self.texts.text("standings_title", name=self.series.name, count=len(self.series.game_files()))
        lines.append(standings_text(self.series.standings(), self.texts, title).rstrip("\n"))
        lines.append(self.texts.text("evening_next"))
        return lines
