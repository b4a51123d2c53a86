"""What the live table itself tells the host (prompts, where files are, the
loud journal failure), in the table's language: the `[live]` block of the
game's phrasebook (grammars/phrasebook.*.toml). The moderator's own sentences
stay in `[say]`, read by voicehost.phrasebook."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from voicehost.errors import DataError
from voicehost.jsontypes import JSONObject
from voicehost.phrasebook import formatted, language_of, phrase, phrasebook_data, table_of, texts_of
from voicehost.phrasedata import PhraseData, source

if TYPE_CHECKING:
    from voicehost.phrasebook import Phrasebook
    from voicehost.records import Output


@dataclass(frozen=True)
class LiveTexts:
    lines: dict[str, str]
    roles: dict[str, str]
    status: dict[str, str]  # the terminal's status line, by phase and floor
    beyond_table: tuple[str, ...]  # stems of number words past any table ("одиннадцат…")
    inputs: dict[str, str] = field(default_factory=dict)  # a host input in words: the page's `input_*`
    protocol: dict[str, str] = field(default_factory=dict)  # the CSV protocol's values ([live.protocol])
    language: str = "ru"   # the plural rules' (CLDR, by Babel)

    def text(self, key: str, **values: object) -> str:
        try:
            return phrase(self.lines[key], values, self.language)
        except KeyError as exc:
            raise DataError(f"phrasebook [live] block: no text '{key}' or no value {exc}") from None

    def role(self, name: str) -> str:
        return self.roles.get(name, name)

    def input(self, event: JSONObject) -> str:
        """A host input in words, as the page names it ("фол игроку 3"): what an undo took back."""
        kind = str(event.get("type", ""))
        values: dict[str, object] = {"seat": event.get("seat"), "seats": event.get("seats") or [],
                                  "count": event.get("count", 0)}
        if kind == "votes":
            counts = event.get("counts")
            values["text"] = ", ".join(f"{s} — {c}" for s, c in (counts if isinstance(counts, dict) else {}).items())
        if "seat" in event and event["seat"] is None:
            kind = "shot_miss" if kind == "shot" else "nobody"
        template = self.inputs.get(kind, self.inputs.get("_", kind))
        return template.format(**formatted(values))

    def value(self, key: str, **values: object) -> str:
        """A value of the CSV protocol in the table's words; an unknown one as it is."""
        return self.protocol.get(key, key).format(**formatted(values))

    def where(self, key: str, **values: object) -> str:
        return self.status.get(key, key).format(**formatted(values))


def live_texts(phrasebook: str, folder: Path | PhraseData | None = None) -> LiveTexts:
    """The [live] block of a phrasebook: the run's phrase data, or `folder`'s."""
    return _live_texts(phrasebook, source(folder))


@lru_cache(maxsize=8)
def _live_texts(phrasebook: str, phrases: PhraseData) -> LiveTexts:
    data = phrasebook_data(phrasebook, phrases)
    block = table_of(data, "live")
    inputs = {key[len("input_"):]: value for key, value in texts_of(data.get("web")).items()
              if key.startswith("input_")}   # the page's names of host inputs
    roles = texts_of(block.pop("roles", {}))
    status = texts_of(block.pop("status", {}))
    stems = block.pop("beyond_table", [])
    protocol = texts_of(block.pop("protocol", {}))
    lines = {key: value.strip("\n") for key, value in texts_of(block).items()}
    return LiveTexts(lines, roles, status, tuple(str(s) for s in stems) if isinstance(stems, list) else (),
                     inputs, protocol, language_of(data))


def rendered(book: Phrasebook, output: Output) -> str:
    """An output's words, in the table's language (the core's `Phrasebook.render`;
    an output carries a key and values, never text)."""
    return book.render(output)
