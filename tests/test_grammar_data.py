"""The committed phrase data: grammars, number words, phrasebooks, presets."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from voicehost.paths import GRAMMARS
from voicehost.phrasebook import load_phrasebook
from voicehost.phrases.grammar import Kind, load_grammar, normalize
from voicehost.rules import KEYS, load_preset, preset_names

MODERATOR = Path(__file__).resolve().parent.parent / "voicehost" / "game" / "moderator.py"


@pytest.mark.parametrize("lang", ["ru", "uk"])
def test_number_words_cover_every_seat(lang):
    data = tomllib.loads((GRAMMARS / f"numbers.{lang}.toml").read_text("utf-8"))
    assert sorted(map(int, data)) == list(range(1, 11))
    grammar = load_grammar(lang)
    for seat, forms in data.items():
        assert len(forms["cardinal"]) >= 3 and len(forms["ordinal"]) >= 12, seat
        for word in forms["cardinal"] + forms["ordinal"]:
            assert grammar.number(normalize(word)) == int(seat), word


def test_russian_number_words_with_and_without_yo():
    data = tomllib.loads((GRAMMARS / "numbers.ru.toml").read_text("utf-8"))
    words = {w for forms in data.values() for w in forms["cardinal"] + forms["ordinal"]}
    with_yo = {w for w in words if "ё" in w}
    assert {"трёх", "четвёртого", "четвёртый"} <= with_yo
    assert all(w.replace("ё", "е") in words for w in with_yo)
    assert {"седьмого", "седьмую", "седьмой", "семи", "десятого", "первым", "второй", "третьей"} <= words


def test_committed_numbers_match_their_generator():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "make_number_words", Path(__file__).resolve().parent.parent / "scripts" / "make_number_words.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for lang in ("ru", "uk"):
        assert (GRAMMARS / f"numbers.{lang}.toml").read_text("utf-8") == module.render(lang)


@pytest.mark.parametrize("name", ["ru", "uk", "ru-mafclubspb"])
def test_grammars_load_and_fillers_are_not_numbers(name):
    grammar = load_grammar(name)
    for filler in grammar.fillers:
        assert grammar.kind(filler) is Kind.FILLER, filler
    assert grammar.kind(grammar.trigger) is Kind.TRIGGER
    for form in grammar.wrong_forms:
        assert grammar.kind(form) is Kind.WRONG_FORM and form != grammar.trigger
    assert grammar.forbidden and grammar.thanks and grammar.passes


def _said_keys() -> set[str]:
    """Every phrasebook key the moderator can say: first arguments of say and
    no_vote in the game's modules (constants or either branch of a conditional),
    its key tables, and every variant's winners."""
    import ast

    from voicehost.game import narration
    from voicehost.game.city import CityVariant
    from voicehost.game.variants.sports import SportsVariant

    keys: set[str] = set(narration.FLOOR_INTRO.values()) | set(narration.REMOVAL_SAY.values())
    keys |= set(SportsVariant.win_say.values()) | set(CityVariant.win_say.values())

    def constants(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value
        elif isinstance(node, ast.IfExp):
            yield from constants(node.body)
            yield from constants(node.orelse)

    for module in sorted(MODERATOR.parent.rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) \
                    in ("say", "no_vote") and node.args:
                keys |= set(constants(node.args[-1] if len(node.args) > 1 else node.args[0]))
    return keys


def test_phrasebooks_have_every_key_the_moderator_says():
    used = _said_keys()
    assert len(used) > 40
    russian = load_phrasebook("phrasebook.ru")
    for name in ("phrasebook.ru", "phrasebook.uk", "phrasebook.mafclubspb"):
        book = load_phrasebook(name)
        assert used <= set(book.say), (name, sorted(used - set(book.say)))
        assert set(book.say) == set(russian.say) and set(book.explain) == set(russian.explain)


def test_every_preset_loads_with_every_key():
    assert set(preset_names()) == {"4mafia", "fiim", "mafclubspb", "ua-club", "classic", "city"}
    for name in preset_names():
        rules = load_preset(name)
        assert rules.name == name
        load_grammar(rules.grammar)
        load_phrasebook(rules.phrasebook)
    assert len(KEYS) >= 25
