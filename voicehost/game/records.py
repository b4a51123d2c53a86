"""The protocol's records (SPEC §4): what a game writes down as it goes.

Frozen values, read by attribute; each serializes itself to exactly its SPEC
§4 JSON (`to_json`), and only the protocol's edge calls that."""
from __future__ import annotations

from dataclasses import dataclass

from voicehost.jsontypes import JSONObject


@dataclass(frozen=True)
class NominationRecord:
    """2.3: on `day`, seat `by` put up seat `target`."""

    day: int
    by: int
    target: int

    def to_json(self) -> JSONObject:
        return {"day": self.day, "by": self.by, "target": self.target}


@dataclass(frozen=True)
class VoteRecord:
    """One vote round of a day: a tally (`counts`, candidate -> votes in the
    candidates' order) or the answer to "all leave?" (`lift`, the votes for)."""

    day: int
    round: int
    counts: dict[int, int] | None = None
    lift: int | None = None

    @property
    def is_lift(self) -> bool:
        return self.lift is not None

    def to_json(self) -> JSONObject:
        out: JSONObject = {"day": self.day, "round": self.round}
        if self.lift is not None:
            out["lift"] = self.lift
        else:
            out["counts"] = {str(seat): n for seat, n in (self.counts or {}).items()}
        return out


@dataclass(frozen=True)
class CheckRecord:
    """A night check: who checked (`role`), whom, and the answer (SPEC §4:
    a don's `sheriff`/`not_sheriff`, a sheriff's `black`/`red`; a variant's own)."""

    night: int
    role: str
    seat: int
    result: str

    def to_json(self) -> JSONObject:
        return {"night": self.night, "role": self.role, "seat": self.seat, "result": self.result}


@dataclass(frozen=True)
class BestMoveRecord:
    """The night-2 victim's best move: the seats named and the blacks among them."""

    seat: int
    named: tuple[int, ...]
    blacks: int

    def to_json(self) -> JSONObject:
        return {"seat": self.seat, "named": list(self.named), "blacks": self.blacks}
