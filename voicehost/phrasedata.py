"""The phrase data (grammars, number words, phrasebooks): the one place every
loader reads it from.

The shipped files are `paths.GRAMMARS` (the checkout's grammars/, built into
the package as voicehost/grammars/). A club may keep its own folder of the same
files (config.toml's `grammars_dir`, by default a grammars/ beside config.toml):
a club file named like a shipped one goes over it key by key (tables merge,
any other value, a list too, replaces the shipped one whole), a new name is a
file of its own (it may `inherit` a shipped one). `check_club` checks such a
folder at start: a key no shipped file of its kind has, or a value of another
type, is one line naming the file and the key."""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from voicehost import paths
from voicehost.errors import ConfigError, DataError, VoicehostError
from voicehost.tomlio import TomlTable, read_toml


@dataclass(frozen=True)
class PhraseData:
    """Where the phrase files are: the shipped folder, and a club's folder over it."""

    shipped: Path = paths.GRAMMARS
    club: Path | None = None

    def _club_file(self, filename: str) -> Path | None:
        if self.club is None:
            return None
        path = self.club / filename
        return path if path.is_file() else None

    def path(self, filename: str) -> Path:
        """The file a message names: the club's, if it has one, else the shipped one."""
        return self._club_file(filename) or self.shipped / filename

    def read(self, filename: str, what: str, error: type[VoicehostError] = DataError) -> TomlTable:
        """One file's tables: the shipped file's with the club's over them (no `inherit`)."""
        shipped, club = self.shipped / filename, self._club_file(filename)
        if club is None and not shipped.is_file():
            raise error(f"no {what} '{filename.removesuffix('.toml')}' ({shipped})")
        base = read_toml(shipped, what, error) if shipped.is_file() else {}
        return over(base, read_toml(club, what, error)) if club is not None else base

    def read_inherited(self, name: str, what: str, error: type[VoicehostError] = DataError,
                       seen: tuple[str, ...] = ()) -> TomlTable:
        """The file `name`.toml over the file its `inherit` names (tables merge key
        by key, other values replace). A loop is an error, not a hang."""
        filename = f"{name}.toml"
        if name in seen:
            raise error(f"{self.path(filename)}: 'inherit' loops back to {name!r} ({' -> '.join(seen + (name,))})")
        data = self.read(filename, what, error)
        parent = data.pop("inherit", None)
        if parent is None:
            return data
        if not isinstance(parent, str):
            raise error(f"{self.path(filename)}: 'inherit' must name a {what}")
        return over(self.read_inherited(parent, what, error, seen + (name,)), data)


def over(base: TomlTable, own: TomlTable) -> TomlTable:
    """`own` over `base`, tables (and their sub-tables) merged key by key."""
    merged = dict(base)
    for key, value in own.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = over(merged[key], value)
        else:
            merged[key] = value
    return merged


_active = PhraseData()


def active() -> PhraseData:
    """The phrase data of this run (the shipped files until `use` names a club's)."""
    return _active


def use(data: PhraseData) -> None:
    """Every loader reads `data` from now on (set once, from the settings, at start)."""
    global _active
    _active = data


@contextlib.contextmanager
def using(data: PhraseData) -> Iterator[None]:
    """`data` for the time of a check (the settings are checked before they are used)."""
    before = active()
    use(data)
    try:
        yield
    finally:
        use(before)


def source(folder: Path | PhraseData | None) -> PhraseData:
    """What a loader reads: the run's phrase data, or a folder of its own (tests)."""
    if folder is None:
        return active()
    return folder if isinstance(folder, PhraseData) else PhraseData(folder)


def kind(filename: str) -> str:
    """A phrase file's kind, by its name: numbers.*, phrasebook.*, host.* (the host's commands), else a grammar."""
    if filename.startswith("numbers."):
        return "number words"
    if filename.startswith("phrasebook."):
        return "phrasebook"
    if filename.startswith("host."):
        return "host grammar"
    return "grammar"


def club_folder(config_file: Path, value: str, resolve: Callable[[str], Path]) -> Path | None:
    """The club's folder a config file names (`grammars_dir`, resolved like its
    other paths), else grammars/ beside it if there is one; None when that is
    the shipped folder itself (the checkout's own config.toml)."""
    if value:
        folder = resolve(value)
        if not folder.is_dir():
            raise ConfigError(f"{config_file}: 'grammars_dir' = {value!r} is not a folder ({folder})")
    else:
        folder = config_file.parent / "grammars"
        if not folder.is_dir():
            return None
    with contextlib.suppress(OSError):
        if folder.samefile(paths.GRAMMARS):
            return None
    return folder


# What a club may write: the shape of the shipped files of each kind.
_TYPES = {bool: "true or false", int: "a whole number", float: "a number", str: "text", list: "a list",
          dict: "a table"}


def _type(value: object) -> type:
    return next((kind_ for kind_ in (bool, int, float, str, list, dict) if isinstance(value, kind_)), type(value))


def _fits(value: object, wanted: type) -> bool:
    """A value of the shipped value's type (a whole number where a number is)."""
    found = _type(value)
    return found is wanted or (wanted is float and found is int)


def _shape(values: list[TomlTable]) -> TomlTable:
    """The keys the shipped tables have, each with its type and, for a table or
    a list of tables, the shape of what is inside."""
    shape: TomlTable = {}
    for table in values:
        for key, value in table.items():
            entry = shape.setdefault(key, {"type": _type(value), "tables": []})
            if entry["type"] is int and _type(value) is float:
                entry["type"] = float    # 80 in one file, 80.0 in another: a number
            if isinstance(value, dict):
                entry["tables"].append(value)
            elif isinstance(value, list):
                entry["tables"].extend(v for v in value if isinstance(v, dict))
    for entry in shape.values():
        entry["inner"] = _shape(entry.pop("tables")) if entry["type"] in (dict, list) else None
    return shape


def _check_shape(data: TomlTable, shape: TomlTable, path: Path, where: str, what: str) -> None:
    for key, value in data.items():
        name = f"[{where}] '{key}'" if where else f"'{key}'"
        if key not in shape:
            raise ConfigError(f"{path}: {name} is no key of the shipped {what} files (a typo?)")
        entry = shape[key]
        if not _fits(value, entry["type"]):
            raise ConfigError(f"{path}: {name} must be {_TYPES.get(entry['type'], entry['type'].__name__)}, "
                              f"got {value!r}")
        inner = entry["inner"]
        if not inner:
            continue
        inside = f"{where}.{key}" if where else key
        if isinstance(value, dict):
            _check_shape(value, inner, path, inside, what)
        for index, item in enumerate(value if isinstance(value, list) else []):
            if not isinstance(item, dict):
                raise ConfigError(f"{path}: [{inside}] item {index + 1} must be a table, got {item!r}")
            _check_shape(item, inner, path, f"{inside} {index + 1}", what)


def check_club(data: PhraseData, load: Callable[[PhraseData, str], None] | None = None) -> None:
    """Every phrase file of the club's folder reads and has only keys the shipped
    files of its kind have (with values of their types); with `load` (the
    phrase files' users, which this reader does not know: voicehost.config's
    `load_phrase_file`), each also loads as the game would. Else one line
    naming the file and the key."""
    if data.club is None:
        return
    shipped = sorted(data.shipped.glob("*.toml"))
    for path in sorted(data.club.glob("*.toml")):
        if not path.is_file():
            continue
        what = kind(path.name)
        own = read_toml(path, what)
        shape = _shape([read_toml(p, what, DataError) for p in shipped if kind(p.name) == what])
        shape.setdefault("inherit", {"type": str, "inner": None})
        _check_shape(own, shape, path, "", what)
        if load is None:
            continue
        try:
            load(data, path.name)
        except VoicehostError as exc:
            raise ConfigError(" ".join(str(exc).split())) from None
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"{path}: the {what} does not load: lacks {exc}") from None


__all__ = ["PhraseData", "active", "use", "using", "source", "kind", "club_folder", "check_club", "over"]
