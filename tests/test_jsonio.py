"""The one JSON reader: NaN and Infinity are refused wherever JSON is read,
and a file that cannot be read is one line naming it, with its refusal key."""
from __future__ import annotations

import json

import pytest

from voicehost.errors import DataError, InputError, JournalError
from voicehost.jsonio import NotANumber, loads_strict, read_json_file
from voicehost.phrasebook import load_phrasebook


@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
def test_loads_strict_refuses_what_is_not_a_json_number(word):
    assert json.loads(f'{{"t": {word}}}')   # Python's json would take it
    with pytest.raises(NotANumber, match=f"{word} is not a number") as refused:
        loads_strict(f'{{"t": {word}}}')
    assert refused.value.name == word and isinstance(refused.value, ValueError)


def test_loads_strict_passes_its_hooks_on():
    assert loads_strict('{"n": 12}', parse_int=lambda digits: f"int {digits}") == {"n": "int 12"}


def test_a_json_file_reads_and_its_problems_are_one_line_in_the_tables_words(tmp_path):
    book = load_phrasebook("phrasebook.ru")
    good = tmp_path / "good.json"
    good.write_text('{"a": [1, 2.5, "б"]}', "utf-8")
    assert read_json_file(good, "protocol") == {"a": [1, 2.5, "б"]}

    cases = {"missing.json": None, "nan.json": b'{"t": NaN}', "broken.json": b'{"t": ', "latin.json": b'{"t": "\xe9"}',
             "deep.json": b"[" * 100_000 + b"]" * 100_000}
    for name, content in cases.items():
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        with pytest.raises(InputError) as refused:
            read_json_file(path, "protocol")
        message = str(refused.value)
        assert "\n" not in message and str(path) in message
        expected = "file_missing" if content is None else "file_not_a_number" if name == "nan.json" else "file_damaged"
        assert refused.value.key == expected
        assert str(path) in book.refusal(refused.value)
    # NaN where a number belongs is named, in each language
    with pytest.raises(InputError) as refused:
        read_json_file(tmp_path / "nan.json", "protocol")
    assert book.refusal(refused.value) == f"В файле {tmp_path / 'nan.json'} вместо числа стоит «NaN»"
    uk = load_phrasebook("phrasebook.uk")
    assert uk.refusal(refused.value) == f"У файлі {tmp_path / 'nan.json'} замість числа стоїть «NaN»"
    folder = tmp_path / "folder.json"
    folder.mkdir()
    with pytest.raises(InputError, match="cannot read the protocol"):
        read_json_file(folder, "protocol")


def test_a_file_over_the_limit_is_not_read(tmp_path):
    big = tmp_path / "big.json"
    big.write_text("[" + "0," * 600_000 + "0]", "utf-8")
    with pytest.raises(InputError, match="larger than 1 MB, not a series"):
        read_json_file(big, "series", max_bytes=1024 * 1024)


@pytest.mark.parametrize("error", [JournalError, DataError])
def test_the_error_may_be_another_of_the_family(tmp_path, error):
    with pytest.raises(error, match="no such file"):
        read_json_file(tmp_path / "none.key", "journal key", error=error)
