"""The one JSON type: what json.loads returns and json.dumps takes.

Explicit `Any` stays out of the core; a boundary that reads or writes JSON
names these instead (protocols, journal entries, page bodies)."""
from __future__ import annotations

from typing import TypeAlias

JSONValue: TypeAlias = "str | int | float | bool | None | list[JSONValue] | dict[str, JSONValue]"
JSONObject: TypeAlias = "dict[str, JSONValue]"
