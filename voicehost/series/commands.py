"""`voicehost standings` and `voicehost series …`: the bodies of the commands.
Refusals come out in the table's language (the phrasebook's [refuse] block),
one line, with the file they are about."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from voicehost.config import Config
from voicehost.errors import InputError, VoicehostError
from voicehost.livetexts import LiveTexts, live_texts
from voicehost.phrasebook import Phrasebook, load_phrasebook
from voicehost.refusals import RefuseKey
from voicehost.rules import RuleOptions, rules_for
from voicehost.series.render import standings_csv, standings_json, standings_text
from voicehost.series.standings import Game, Lot, Row, standings
from voicehost.series.store import FileRefusal, Series, read_game


class Refused(VoicehostError):
    """A refusal already in the table's words."""


def refused(error: InputError, book: Phrasebook) -> Refused:
    line = book.refusal(error)
    if isinstance(error, FileRefusal):
        line = f"{error.path}: {line}"
    return Refused(line)


def _language(ruleset: str) -> tuple[Phrasebook, LiveTexts, RuleOptions]:
    try:
        rules = rules_for(ruleset)
    except VoicehostError:
        rules = rules_for("4mafia")
    return load_phrasebook(rules.phrasebook), live_texts(rules.phrasebook), rules


def root(config: Config) -> Path:
    return config.path(config.series_dir)


def render(rows: list[Row], texts: LiveTexts, fmt: str, title: str = "") -> str:
    if fmt == "json":
        return standings_json(rows)
    if fmt == "csv":
        return standings_csv(rows, texts)
    return standings_text(rows, texts, title)


def standings_command(config: Config, sources: Sequence[str], fmt: str, seed: int | None) -> str:
    """SPEC §6.4: a series by name, or protocol files (each one game)."""
    book, texts, _ = _language(config.ruleset)
    try:
        if len(sources) == 1 and not sources[0].endswith(".json") and not Path(sources[0]).is_file():
            series = Series.open(root(config), sources[0])
            book, texts, _ = _language(series.ruleset)
            rows = series.standings(seed)
            title = texts.text("standings_title", name=series.name, count=len(series.game_files()))
            return render(rows, texts, fmt, title)
        games: list[Game] = []
        for source in sources:
            games.append(read_game(Path(source))[1])
        book, texts, _ = _language(games[0].ruleset)
        return render(standings(games, Lot(seed=seed)), texts, fmt)
    except InputError as exc:
        raise refused(exc, book) from None


def series_command(config: Config, action: str, name: str | None, players: str | None,
                   roster: Path | None, files: Sequence[Path], ruleset: str) -> str:
    book, texts, _ = _language(ruleset)
    try:
        if action == "list":
            return _list(config, texts)
        assert name is not None  # the parser asks for it
        if action == "new":
            names = _roster(players, roster)
            series = Series.create(root(config), name, names, ruleset)
            return texts.text("series_created", name=series.name, count=len(series.roster)) + "\n"
        series = Series.open(root(config), name)
        book, texts, _ = _language(series.ruleset)
        if action == "add":
            lines = []
            for path in files:
                game_id, new = series.add_file(path)
                lines.append(texts.text("series_added", game=game_id, name=series.name))
                if new:
                    lines.append(texts.text("series_newcomers", names=", ".join(new)))
            return "\n".join(lines) + "\n"
        return _show(series, texts)
    except InputError as exc:
        raise refused(exc, book) from None


def _roster(players: str | None, roster: Path | None) -> list[str]:
    """Names from --players "А, Б, В" or a roster file (one name a line)."""
    if roster is not None:
        try:
            text = roster.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise InputError(f"{roster}: cannot read the roster", key=RefuseKey.FILE_DAMAGED,
                             values={"word": str(roster)}) from None
        return [line for line in text.splitlines() if line.strip()]
    return [part for part in (players or "").split(",") if part.strip()]


def _list(config: Config, texts: LiveTexts) -> str:
    names = Series.names(root(config))
    if not names:
        return texts.text("series_none") + "\n"
    lines = []
    for name in names:
        series = Series.open(root(config), name)
        lines.append(texts.text("series_line", name=name, ruleset=series.ruleset,
                                players=len(series.roster), games=len(series.game_files())))
    return "\n".join(lines) + "\n"


def _show(series: Series, texts: LiveTexts) -> str:
    games = [p.stem for p in series.game_files()]
    head = [texts.text("series_line", name=series.name, ruleset=series.ruleset,
                       players=len(series.roster), games=len(games)),
            texts.text("series_roster", names=", ".join(series.roster))]
    if games:
        head.append(texts.text("series_games", names=", ".join(games)))
    title = texts.text("standings_title", name=series.name, count=len(games))
    return "\n".join(head) + "\n\n" + standings_text(series.standings(), texts, title)
