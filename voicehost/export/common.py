"""What both exports share: the refusal of games no platform takes, the
`comment` that names what the platform has no field for (in the table's
language, from the phrasebook), the vote counts kept beside it, and times."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from voicehost.errors import VoicehostError
from voicehost.export.facts import Facts
from voicehost.game.moderator import Moderator
from voicehost.jsontypes import JSONOutObject
from voicehost.phrasebook import load_phrasebook

# The key both exports add beside the documented fields: what voicehost knows
# that the platform has no field for, as data (records.py reads it back).
EXTENSION = "voicehost"


class ExportError(VoicehostError):
    """A game that cannot be exported; `key` is its phrasebook text for the host."""

    def __init__(self, message: str, key: str = "") -> None:
        super().__init__(message)
        self.key = key


def check_exportable(game: Moderator) -> None:
    if not game.variant.exportable:
        raise ExportError("the city variant cannot be exported: mafiaratings and Polemica "
                          "record sports mafia only", "export_city_refused")
    if game.winner is None:
        raise ExportError(f"the game is not over yet ({game.where()}): export it after its end",
                          "export_not_over")


def host_text(error: ExportError, phrasebook: str) -> str:
    """The refusal as the host reads it, in the table's language."""
    return load_phrasebook(phrasebook).text(error.key) if error.key else str(error)


class Notes:
    """The comment's lines, rendered from the table's phrasebook."""

    def __init__(self, phrasebook: str) -> None:
        self.book = load_phrasebook(phrasebook)
        self.lines: list[str] = []

    def add(self, key: str, **values: object) -> None:
        self.lines.append(self.book.text(key, **values))

    def text(self) -> str:
        return "\n".join(self.lines)


def vote_notes(notes: Notes, facts: Facts) -> None:
    """Every tally, since neither platform has a field for counts without voters."""
    rounds = []
    for vote in facts.record.votes:
        if vote.lift is not None:
            rounds.append(notes.book.text("export_lift_round", day=vote.day, count=vote.round,
                                          word=vote.lift))
        else:
            counts = ", ".join(f"{seat} — {n}" for seat, n in (vote.counts or {}).items())
            rounds.append(notes.book.text("export_vote_round", day=vote.day, count=vote.round,
                                          word=counts))
    if rounds:
        notes.add("export_votes", word="; ".join(rounds))


def common_notes(notes: Notes, facts: Facts) -> None:
    vote_notes(notes, facts)
    for night, seat in sorted(facts.shots.items()):
        if seat is None:
            notes.add("export_missed", day=night - 1)
    notes.add("export_points", word=facts.ruleset,
              seats=[f"{seat}: {value:g}" for seat, value in facts.points.items()])


def extension(facts: Facts) -> JSONOutObject:
    return {"ruleset": facts.ruleset, "votes": [v.to_json() for v in facts.record.votes],
            "points": {str(seat): p for seat, p in facts.points.items()}}


def times(facts: Facts, ended: datetime | None) -> tuple[str, str]:
    """Start and end in ISO 8601: the game clock runs in real seconds from the deal."""
    end = (ended or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    start = end - timedelta(seconds=round(facts.seconds))
    return start.isoformat(), end.isoformat()
