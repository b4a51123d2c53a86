"""The committed phrase data: grammars, number words, phrasebooks, presets."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.gameparts import said_keys
from voicehost.paths import GRAMMARS
from voicehost.phrasebook import load_phrasebook
from voicehost.phrases.grammar import Kind, load_grammar, normalize
from voicehost.rules import KEYS, load_preset, preset_names


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


def test_phrasebooks_have_every_key_the_moderator_says():
    used = said_keys()
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


# A club's own phrase files (config.toml's grammars_dir, else grammars/ beside config.toml)
# go over the shipped ones key by key, and are checked at start like every setting.

def _club(tmp_path: Path, files: dict[str, str], config: str = "") -> Path:
    (tmp_path / "grammars").mkdir(exist_ok=True)
    for name, text in files.items():
        (tmp_path / "grammars" / name).write_text(text, "utf-8")
    path = tmp_path / "config.toml"
    path.write_text(config, "utf-8")
    return path


def _refused(path: Path, *parts: str) -> str:
    from voicehost import phrasedata
    from voicehost.config import load_settings
    from voicehost.errors import ConfigError

    before = phrasedata.active()
    with pytest.raises(ConfigError) as caught:
        load_settings(path)
    message = str(caught.value)
    assert "\n" not in message and all(part in message for part in parts), message
    assert phrasedata.active() is before          # nothing of the bad folder is used
    return message


def test_a_whole_number_is_a_number_where_the_shipped_file_has_one(tmp_path):
    from voicehost.config import load_settings

    load_settings(_club(tmp_path, {"ru.toml": "[nomination]\nfuzzy_score = 90\n"}))
    assert load_grammar("ru").fuzzy_score == 90.0


def test_a_club_phrasebook_line_goes_over_the_shipped_one_key_by_key(tmp_path):
    from voicehost.config import load_settings
    from voicehost.live.texts import live_texts

    path = _club(tmp_path, {"phrasebook.ru.toml": '[say]\naccepted = "Есть номер {seat}"\n'
                                                  '[live]\nno_voice = "Голоса нет, говорит espeak-ng"\n'})
    shipped = load_phrasebook("phrasebook.ru")
    config, rules = load_settings(path)
    assert config.phrases.club == tmp_path / "grammars"
    for name in ("phrasebook.ru", "phrasebook.mafclubspb"):     # the club's line reaches its heirs too
        book = load_phrasebook(name)
        assert book.text("accepted", seat=3) == "Есть номер 3"
        assert book.text("night_falls") == shipped.text("night_falls")
    assert load_phrasebook(rules.phrasebook).say == {**shipped.say, "accepted": "Есть номер {seat}"}
    assert live_texts("phrasebook.ru").text("no_voice") == "Голоса нет, говорит espeak-ng"
    assert load_phrasebook("phrasebook.ru", GRAMMARS).text("accepted", seat=3) == "Принят номер 3"


def test_a_word_form_a_club_adds_is_heard_by_check_phrase(tmp_path):
    """The technician's case: a number word the shipped files lack, added in the
    club's numbers.ru.toml, names its seat in check-phrase (and at the table)."""
    import json
    import os
    import subprocess
    import sys

    seven = tomllib.loads((GRAMMARS / "numbers.ru.toml").read_text("utf-8"))["7"]["cardinal"]
    words = ", ".join(f'"{w}"' for w in [*seven, "семёрку"])
    path = _club(tmp_path, {"numbers.ru.toml": f"[7]\ncardinal = [{words}]\n"})
    env = {**os.environ, "VOICEHOST_ROOT": str(tmp_path), "HOME": str(tmp_path)}

    def heard(*config: str) -> list[dict]:
        done = subprocess.run([sys.executable, "-m", "voicehost", "check-phrase", *config, "--speaker", "1",
                               "--text", "выставляю семёрку"], capture_output=True, text=True, timeout=60,
                              env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines()]

    assert [e["target"] for e in heard("--config", str(path)) if e["type"] == "nomination"] == [7]
    (tmp_path / "elsewhere").mkdir()
    bare = tmp_path / "elsewhere" / "config.toml"      # no grammars/ beside it: the shipped words only
    bare.write_text("", "utf-8")
    assert not [e for e in heard("--config", str(bare)) if e["type"] == "nomination"]
    assert load_grammar("ru").number("семерку") is None


def test_grammars_dir_names_the_club_folder_and_a_new_phrasebook_may_inherit(tmp_path):
    from voicehost.config import load_settings

    (tmp_path / "ours").mkdir()
    (tmp_path / "ours" / "phrasebook.ourclub.toml").write_text(
        'inherit = "phrasebook.ru"\n[say]\nmorning = "Доброе утро, город"\n', "utf-8")
    path = tmp_path / "config.toml"
    path.write_text(f'grammars_dir = "{tmp_path / "ours"}"\n[rules]\nphrasebook = "phrasebook.ourclub"\n', "utf-8")
    config, rules = load_settings(path)
    assert config.phrases.club == tmp_path / "ours" and rules.phrasebook == "phrasebook.ourclub"
    assert load_phrasebook(rules.phrasebook).text("morning") == "Доброе утро, город"
    path.write_text('grammars_dir = "nowhere"\n', "utf-8")
    _refused(path, str(path), "'grammars_dir' = 'nowhere' is not a folder")


def test_the_checkouts_own_grammars_are_no_club_folder(tmp_path):
    from voicehost.config import load_config

    assert GRAMMARS.parent.joinpath("config.toml").is_file()
    assert load_config(GRAMMARS.parent / "config.toml").phrases.club is None
    assert load_config(_club(tmp_path, {})).phrases.club == tmp_path / "grammars"


@pytest.mark.parametrize("name, text, parts", [
    ("phrasebook.ru.toml", '[say]\nacepted = "Есть {seat}"\n',
     ["[say] 'acepted' is no key of the shipped phrasebook files"]),
    ("phrasebook.ru.toml", "[say]\naccepted = 7\n", ["[say] 'accepted' must be text, got 7"]),
    ("phrasebook.ru.toml", '[say]\naccepted = "Номер {set}"\n', ["'accepted' uses unknown placeholder(s) ['set']"]),
    ("phrasebook.ru.toml", '[say\naccepted = "x"\n', ["not valid TOML"]),
    ("phrasebook.ru.toml", '[live.roles]\nsherif = "Шериф"\n', ["[live.roles] 'sherif' is no key"]),
    ("ru.toml", '[nomination]\nfillers = "кандидатуру"\n', ["[nomination] 'fillers' must be a list"]),
    ("ru.toml", "[host_question]\nwindow = 6.5\n", ["[host_question] 'window' must be a whole number, got 6.5"]),
    ("ru.toml", '[nomination]\ntriger = "выставляю"\n',
     ["[nomination] 'triger' is no key of the shipped grammar files"]),
    ("ru.toml", '[[forbidden]]\nclause = "4.1"\nsugest = "foul"\n', ["[forbidden 1] 'sugest' is no key"]),
    ("ru.toml", '[[forbidden]]\nclause = "4.1"\nsuggest = "warn"\n', ["suggests 'warn'"]),
    ("ru.toml", 'numbers = "../numbers.ru.toml"\n', ["'numbers' must name a number-words file beside it"]),
    ("numbers.ru.toml", '[11]\ncardinal = ["одиннадцать"]\n', ["'11' is no key of the shipped number words files"]),
    ("numbers.ru.toml", '[7]\ncardinal = ["семь", "три"]\n', ["'три' names both"]),
    ("ourclub.toml", 'language = "ru"\n', ["the grammar does not load: lacks 'nomination'"]),
])
def test_a_mistake_in_a_club_file_is_one_line_naming_the_file_and_the_key(tmp_path, name, text, parts):
    path = _club(tmp_path, {name: text})
    _refused(path, str(tmp_path / "grammars" / name), *parts)


def test_a_club_file_mistake_stops_check_phrase_in_one_line(tmp_path, capsys):
    from voicehost.cli import main

    path = _club(tmp_path, {"phrasebook.uk.toml": '[say]\nacepted = "Прийнято {seat}"\n'})
    assert main(["check-phrase", "--config", str(path), "--speaker", "1", "--text", "выставляю седьмого"]) == 2
    out, err = capsys.readouterr()
    assert not out
    assert err.count("\n") == 1 and "phrasebook.uk.toml: [say] 'acepted'" in err, err


def test_every_shipped_file_copied_whole_is_a_valid_club_file(tmp_path):
    """The check refuses typos, not the shipped data itself: a club that copies
    the shipped grammars/ and edits a line starts."""
    import shutil

    from voicehost.config import load_phrase_file
    from voicehost.phrasedata import PhraseData, check_club

    shutil.copytree(GRAMMARS, tmp_path / "grammars")
    check_club(PhraseData(club=tmp_path / "grammars"), load_phrase_file)
    assert sorted(p.name for p in (tmp_path / "grammars").glob("*.toml")) == sorted(
        p.name for p in GRAMMARS.glob("*.toml"))


def test_typed_play_speaks_the_clubs_line(tmp_path):
    """`run` reads the phrase files the way check-phrase does: the club's
    confirmation is what the table hears."""
    import os
    import subprocess
    import sys

    _club(tmp_path, {"phrasebook.ru.toml": '[say]\naccepted = "Есть номер {seat}"\n'})
    env = {**os.environ, "VOICEHOST_ROOT": str(tmp_path), "HOME": str(tmp_path)}
    lines = "/roles d4 m2 m7 s6\n<80>\nвыставляю седьмого\n/quit\n"
    done = subprocess.run([sys.executable, "-m", "voicehost", "run", "--text", "--mute"], input=lines,
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Есть номер 7" in done.stdout and "Принят номер" not in done.stdout


def test_the_ukrainian_tables_download_hints_fetch_its_own_model_and_voice():
    """`models download` alone fetches the Russian model: a ua-club host is told the
    command that fetches the Ukrainian one (its --ruleset)."""
    data = tomllib.loads((Path(__file__).parent.parent / "grammars" / "phrasebook.uk.toml").read_text("utf-8"))
    hints = [text for section in data.values() if isinstance(section, dict)
             for text in section.values() if isinstance(text, str) and "models download" in text]
    assert len(hints) >= 4
    assert all("models download --ruleset ua-club" in text for text in hints), hints
