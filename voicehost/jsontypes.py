"""The JSON types: what json.loads returns and json.dumps takes.

Explicit `Any` stays out of the core; a boundary that reads or writes JSON
names these instead (protocols, journal entries, page bodies).

`JSONValue`/`JSONObject` are what is read (and what the records build): exact,
so a reader narrows each value it uses. `JSONOut`/`JSONOutObject` are what a
boundary builds to write: their containers are read-only views (Sequence,
Mapping), which are covariant, so a `list[int]` or a `dict[str, list[str]]`
the code has built is JSON to write without restating its type."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JSONValue: TypeAlias = "str | int | float | bool | None | list[JSONValue] | dict[str, JSONValue]"
JSONObject: TypeAlias = "dict[str, JSONValue]"
JSONOut: TypeAlias = "str | int | float | bool | None | Sequence[JSONOut] | Mapping[str, JSONOut]"
JSONOutObject: TypeAlias = "dict[str, JSONOut]"
