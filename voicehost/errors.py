"""The one error family. Boundaries turn these into a one-line message (CLI,
exit code 2) or a 4xx (web); nothing below them prints or exits."""
from __future__ import annotations

from typing import Literal

from voicehost.refusals import RefuseKey


class VoicehostError(Exception):
    """Base of every error voicehost reports to a person.

    `key` and `values`, when set, name the refusal in the phrasebooks' [refuse]
    section, for the table's language; the message stays English, for the logs
    and the command line."""

    key: str = ""
    values: dict[str, object] = {}  # never mutated: instances set their own


class ConfigError(VoicehostError):
    """A setting that does not exist, has the wrong type, or a bad value."""


class DataError(VoicehostError):
    """Committed data (grammar, phrasebook, presets) that does not load."""


class InputError(VoicehostError):
    """Input that cannot be read: malformed JSON, missing or mistyped fields."""

    key: RefuseKey | Literal[""]

    def __init__(self, message: str, *, key: RefuseKey | Literal[""] = "",
                 values: dict[str, object] | None = None) -> None:
        self.key = key
        self.values = values or {}
        super().__init__(message)


class GameError(VoicehostError):
    """An input the game cannot accept where it stands.

    Carries the input and the phase, so every message names both."""

    key: RefuseKey | Literal[""]

    def __init__(self, message: str, *, phase: str = "", event: str = "", key: RefuseKey | Literal[""] = "",
                 values: dict[str, object] | None = None) -> None:
        self.reason = message
        self.phase = phase
        self.event = event
        # The refusal in the phrasebooks' [refuse] section, for the table's language.
        self.key = key
        self.values = values or {}
        where = f" (phase: {phase})" if phase else ""
        super().__init__(f"{message}{where}")


class JournalError(InputError):
    """A journal that cannot be used: held by another table, damaged, edited."""


class JournalWriteError(JournalError):
    """Writing the journal failed (disk full, read-only, deleted, closed).

    The game must stop taking inputs: it would otherwise go on unrecorded."""
