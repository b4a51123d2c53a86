"""The page's words, in the table's language: the [web] block of the game's
phrasebook (grammars/phrasebook.<lang>.toml). Nothing a host reads is English."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from aiohttp import web

from voicehost.errors import DataError
from voicehost.game.records import CheckRecord
from voicehost.jsontypes import JSONObject
from voicehost.phrasebook import formatted, language_of, phrasebook_data, plural_formatter, texts_of
from voicehost.phrasedata import PhraseData, source

_SEAT_INPUTS = ("shot", "don_check", "sheriff_check", "foul", "unfoul", "disqualify", "leave_table",
                "best_player", "worst_player", "heal", "visit", "commissar_check", "maniac_kill")


def load_web_texts(name: str = "phrasebook.ru", folder: Path | PhraseData | None = None) -> dict[str, str]:
    """The [web] block of a phrasebook (over its parent's, for a club's own book),
    with the core's phase and floor names: one wording for the page and the terminal."""
    return _load_web_texts(name, source(folder))


@lru_cache(maxsize=8)
def _load_web_texts(name: str, phrases: PhraseData) -> dict[str, str]:
    data = phrasebook_data(name, phrases)
    section = data.get("web", {})
    if not isinstance(section, dict) or not all(isinstance(v, str) for v in section.values()):
        raise DataError(f"{phrases.path(name + '.toml')}: every [web] text must be text")
    shared = {f"{prefix}_{key}": text for prefix in ("phase", "floor")
              for key, text in texts_of(data.get(prefix)).items()}
    shared["table_night"] = shared.get("phase_night", "")
    shared["table_over"] = shared.get("phase_stopped", "")
    return {**shared, **section}


class _Blank(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return ""


class Texts:
    def __init__(self, phrasebook: str = "phrasebook.ru") -> None:
        self.words = load_web_texts(phrasebook)
        self.plural = plural_formatter(language_of(phrasebook_data(phrasebook)))

    def __call__(self, key: str, **values: object) -> str:
        text = self.words.get(key, key)
        return self.plural.vformat(text, (), _Blank(formatted(values)))

    def input(self, event: JSONObject) -> str:
        """What a host input was, in words (for undo)."""
        kind = str(event.get("type", ""))
        if kind in _SEAT_INPUTS:
            seat = event.get("seat")
            if seat is None:
                return self("input_shot_miss" if kind == "shot" else "input_nobody")
            return self(f"input_{kind}", seat=seat)
        if kind == "votes":
            counts = event.get("counts")
            return self("input_votes", text=", ".join(f"{s}: {c}" for s, c in counts.items())
                        if isinstance(counts, dict) else "")
        if kind == "lift_votes":
            return self("input_lift_votes", count=event.get("count", 0))
        if kind in ("best_move", "candidates"):
            return self(f"input_{kind}", seats=event.get("seats") or [])
        return self(f"input_{kind}")

    def answer(self, check: CheckRecord) -> str:
        """A night's private answer (a Don's, Sheriff's or commissar's check)."""
        role, result = check.role, check.result
        if role == "don":
            key = "answer_don_sheriff" if result == "sheriff" else "answer_don_not_sheriff"
        elif role == "sheriff":
            key = "answer_sheriff_black" if result == "black" else "answer_sheriff_red"
        else:
            key = f"answer_commissar_{result if result in ('mafia', 'maniac') else 'city'}"
        return self(key, seat=check.seat)


TEXTS_KEY = web.AppKey("texts", Texts)
