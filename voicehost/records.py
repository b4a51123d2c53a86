"""Records that cross layers: what the speech rules decide about a nomination
(made by the listener, judged by the game, explained by the phrasebook's
users) and what the moderator says (made by the game, rendered from the
phrasebook at the edge). Plain data at the bottom, so the layers above share
them without knowing each other."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from voicehost.jsontypes import JSONObject, JSONOutObject


@dataclass(frozen=True)
class Nomination:
    target: int
    accepted: bool
    t: float
    reason: str | None = None
    # The words that were judged, for training mode's explanation.
    culprit: str | None = None
    pause: float | None = None

    def to_json(self) -> JSONOutObject:
        out: JSONOutObject = {"type": "nomination", "target": self.target, "accepted": self.accepted}
        if self.reason:
            out["reason"] = self.reason
        out["t"] = _t(self.t)
        return out


class OutputKind(StrEnum):
    SAY = "say"          # an announcement (private: to the host only)
    SUGGEST = "suggest"  # a hint to the host: a forbidden word may deserve a foul


@dataclass(slots=True)
class Output:
    """Something the moderator does: a phrasebook key with its values. The
    words are rendered at the edge, from the table's phrasebook
    (`Phrasebook.render`), so the core holds no human text. Nothing changes an
    output once made (copies of a game share them); it is not a frozen
    dataclass only because the engine makes hundreds a game and a frozen one
    costs four times as much to build."""

    t: float
    kind: OutputKind
    key: str
    private: bool = False
    values: dict[str, object] = field(default_factory=dict)

    def to_json(self, text: str) -> JSONObject:
        """The SPEC §4 simulate line for this output, given its rendered text."""
        out: JSONObject = {"t": round(self.t, 3), "say": text}
        if self.private:
            out["private"] = True
        return out


def _t(value: float) -> float:
    return round(value, 3)
