"""A series on disk (SPEC §6.1): one folder, `series/NAME/` by default.

    series.json        name, ruleset, roster, the lot once drawn
    games/ID.json      each game's protocol (with roles, players, a protest)

Every file is written whole or not at all (files.write_atomic), so a crash in
the middle of an evening leaves the series as it was before the write."""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from voicehost.errors import InputError
from voicehost.files import write_atomic
from voicehost.jsonio import read_json_file
from voicehost.jsontypes import JSONObject
from voicehost.names import check_name, name_key
from voicehost.refusals import RefuseKey
from voicehost.series.standings import Game, Lot, Row, game_from, standings, unnamed

MAX_FILE = 4 * 1024 * 1024
_SERIES_MARKS = frozenset("-_.")


def series_name(name: str) -> str:
    """A series' name is its folder's: letters, digits, '-', '_' and '.', 1–60 long."""
    if not 1 <= len(name) <= 60 or name.startswith(".") \
            or any(not (c.isalnum() or c in _SERIES_MARKS) for c in name):
        raise InputError(f"a series name has 1-60 letters, digits, '-', '_' or '.': {name!r}",
                         key=RefuseKey.SERIES_NAME, values={"word": name})
    return name


class FileRefusal(InputError):
    """A file whose content does not fit: the refusal, and the file it is about."""

    def __init__(self, path: Path, refused: InputError) -> None:
        self.path = path
        super().__init__(f"{path}: {refused}", key=refused.key, values=refused.values)


def read_game(path: Path) -> tuple[JSONObject, Game]:
    """A protocol file and the game the standings read of it."""
    data = read_json_file(path, "protocol", max_bytes=MAX_FILE)
    try:
        return data, game_from(data)
    except InputError as exc:
        raise FileRefusal(path, exc) from None


@dataclass
class Series:
    folder: Path
    name: str
    ruleset: str
    roster: list[str]
    lot: Lot = field(default_factory=Lot)

    # ---------------------------------------------------------------- opening

    @classmethod
    def create(cls, root: Path, name: str, players: Iterable[str], ruleset: str) -> Series:
        folder = root / series_name(name)
        if (folder / "series.json").exists():
            raise InputError(f"the series {name!r} already exists", key=RefuseKey.SERIES_EXISTS,
                             values={"word": name})
        series = cls(folder, name, ruleset, [])
        series.enrol(players, strict=True)
        (folder / "games").mkdir(parents=True, exist_ok=True)
        series.save()
        return series

    @classmethod
    def open(cls, root: Path, name: str) -> Series:
        folder = root / series_name(name)
        path = folder / "series.json"
        if not path.is_file():
            raise InputError(f"no series {name!r} in {root}", key=RefuseKey.SERIES_UNKNOWN, values={"word": name})
        data = read_json_file(path, "series", max_bytes=MAX_FILE)
        try:
            roster = [check_name(n) for n in data["roster"]]
            lot = Lot({str(k): float(v) for k, v in data.get("lot", {}).items()}, data.get("lot_seed"))
            return cls(folder, str(data["name"]), str(data["ruleset"]), roster, lot)
        except (KeyError, TypeError, ValueError, AttributeError, InputError):
            raise InputError(f"{path}: not a series file", key=RefuseKey.FILE_DAMAGED,
                             values={"word": str(path)}) from None

    @staticmethod
    def names(root: Path) -> list[str]:
        return sorted(p.parent.name for p in root.glob("*/series.json")) if root.is_dir() else []

    def save(self) -> None:
        data = {"name": self.name, "ruleset": self.ruleset, "roster": self.roster,
                "lot": self.lot.draws, "lot_seed": self.lot.seed}
        write_atomic(self.folder / "series.json", json.dumps(data, ensure_ascii=False, indent=2) + "\n")

    # ---------------------------------------------------------------- players

    def find(self, name: str) -> str | None:
        """The roster's spelling of `name` (SPEC §6.1's comparison), if enrolled."""
        key = name_key(name)
        return next((n for n in self.roster if name_key(n) == key), None)

    def enrol(self, players: Iterable[str], *, strict: bool = False) -> list[str]:
        """Add players to the roster; the ones new to it. `strict`: a name given
        twice, or already on the roster, is refused."""
        new: list[str] = []
        for raw in players:
            name = check_name(raw)
            if self.find(name) is not None or name_key(name) in map(name_key, new):
                if strict:
                    raise InputError(f"the name {name!r} is on the roster twice", key=RefuseKey.NAME_TWICE,
                                     values={"word": name})
                continue
            new.append(name)
        self.roster += new
        return new

    # ------------------------------------------------------------------ games

    def game_files(self) -> list[Path]:
        return sorted((self.folder / "games").glob("*.json"))

    def games(self) -> list[Game]:
        return [read_game(path)[1] for path in self.game_files()]

    def check_game(self, data: JSONObject) -> Game:
        game = game_from(data)
        if game.ruleset != self.ruleset:
            raise InputError(f"the game was played by {game.ruleset}, the series plays {self.ruleset}",
                             key=RefuseKey.SERIES_RULESET, values={"word": game.ruleset, "input": self.ruleset})
        return game

    def put(self, game_id: str, data: JSONObject) -> list[str]:
        """Keep (or replace) game `game_id`'s protocol; the players new to the roster."""
        game = self.check_game(data)
        new = self.enrol(name for seat, name in game.players.items() if not unnamed(seat, name))
        text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
        (self.folder / "games").mkdir(parents=True, exist_ok=True)
        write_atomic(self.folder / "games" / f"{series_name(game_id)}.json", text)
        if new:
            self.save()
        return new

    def add_file(self, path: Path) -> tuple[str, list[str]]:
        """A protocol from another table's device joins the series: its id, the newcomers."""
        data, _ = read_game(path)
        game_id = path.name.removesuffix(".json").removesuffix(".protocol")
        target = self.folder / "games" / f"{series_name(game_id)}.json"
        if target.exists():
            raise InputError(f"a game {game_id!r} is already in the series", key=RefuseKey.SERIES_HAS_GAME,
                             values={"word": game_id})
        return game_id, self.put(game_id, data)

    def standings(self, seed: int | None = None) -> list[Row]:
        """The table; the lot, drawn the first time a tie needs it, is kept."""
        if seed is not None and not self.lot.draws:
            self.lot.seed = seed
        drawn = len(self.lot.draws)
        rows = standings(self.games(), self.lot, {name_key(n): n for n in self.roster})
        if len(self.lot.draws) != drawn:
            self.save()
        return rows
