"""The registry of announcement keys (game/keys.py) against the phrasebooks
and against what whole games really say."""
from __future__ import annotations

import json
import string

import pytest

from tests.conftest import GAMES
from voicehost.game.keys import VALUES, Key
from voicehost.phrasebook import load_phrasebook
from voicehost.rules import rules_for
from voicehost.simulate import load_script, simulate


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("name", ["phrasebook.ru", "phrasebook.uk", "phrasebook.mafclubspb"])
def test_every_key_is_in_the_phrasebook_with_only_the_values_the_core_gives(name):
    book = load_phrasebook(name)
    for key in Key:
        assert key in book.say, (name, key)
        if key is not Key.SEATING:   # its seats are rendered into one `detail`
            assert _placeholders(book.say[key]) <= VALUES[key], (name, key)


def test_every_announcement_of_the_recorded_games_is_a_registered_key_with_its_values():
    said = 0
    for path in sorted(GAMES.glob("*.jsonl")):
        args = json.loads(path.with_suffix(".expect.json").read_text("utf-8"))["args"]
        name = args[args.index("--ruleset") + 1] if "--ruleset" in args else "4mafia"
        overrides = dict(a.split("=", 1) for a in args[args.index("--set") + 1:][:1]) if "--set" in args else {}
        lines, where = load_script(path)
        for output in simulate(lines, rules_for(name, overrides or None), where).game.outputs:
            if output.kind == "say" and "explain" not in output.values:
                said += 1
                assert output.key in set(Key), (path.name, output.key)
                assert set(output.values) <= VALUES[Key(output.key)] | {"name"}, (path.name, output)
    assert said > 100
