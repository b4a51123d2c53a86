"""Every word the page shows comes from the phrasebooks' [web] blocks, in
Russian and in Ukrainian: each label the pages name and each key the scripts
ask for exists in both, and none of them is English."""
from __future__ import annotations

import re

import pytest

from voicehost.game.records import CheckRecord
from voicehost.web.server import STATIC, render_page
from voicehost.web.texts import Texts, load_web_texts

BOOKS = ["phrasebook.ru", "phrasebook.uk", "phrasebook.mafclubspb"]
# Not words: the page's language code, pass-through templates.
NOT_WORDS = {"lang", "raw", "winner"}


def _keys_used() -> set[str]:
    keys = set()
    for path in STATIC.glob("*.html"):
        keys |= set(re.findall(r"\{\{(\w+)\}\}", path.read_text("utf-8")))
    for path in STATIC.glob("*.js"):
        keys |= set(re.findall(r"\bT\(\"(\w+)\"[,)]", path.read_text("utf-8")))
    return keys


@pytest.mark.parametrize("book", BOOKS)
def test_every_key_the_pages_use_is_in_the_phrasebook(book):
    words = load_web_texts(book)
    missing = sorted(_keys_used() - set(words))
    assert missing == []
    for role in ("citizen", "sheriff", "mafia", "don", "commissar", "doctor", "lover", "maniac"):
        assert f"role_{role}" in words
    assert {"device_host", "device_judge"} <= set(words)
    for phase in ("setup", "speech", "tally", "hunt", "don_check", "sheriff_check", "night_action", "game_over"):
        assert f"phase_{phase}" in words


@pytest.mark.parametrize("book", ["phrasebook.ru", "phrasebook.uk"])
def test_no_page_text_is_english(book):
    for key, text in load_web_texts(book).items():
        if key in NOT_WORDS:
            continue
        bare = re.sub(r"\{\w+\}|«[^»]*»|voicehost|/pin|PIN|JSON|CSV|UTF-8|QR|SHA-256|true|false|show|mafia=2"
                      r"|mafiaratings|Polemica", "", text)  # platform names are names
        assert not re.search(r"[A-Za-z]{2,}", bare), (key, text)


def test_the_pages_render_fully_in_each_language():
    for book, lang, heading in (("phrasebook.ru", "ru", "Ведущий"), ("phrasebook.uk", "uk", "Ведучий")):
        texts = Texts(book)
        for path in STATIC.glob("*.html"):
            page = render_page(path.name, texts)
            assert "{{" not in page and f'lang="{lang}"' in page, (book, path.name)
        assert f"<h1>{heading}</h1>" in render_page("host.html", texts)
    uk = Texts("phrasebook.uk")
    assert uk("tally_prompt", seat=7) == "Введіть голоси за гравця номер 7"
    assert uk.input({"type": "foul", "seat": 2}) == "фол гравцю 2"
    assert uk.answer(CheckRecord(1, "sheriff", 2, "black")) == "Шериф: гравець 2 — чорний"


def test_the_page_the_terminal_and_the_speaker_write_a_value_alike():
    """One formatter for every text: a whole number of seconds without ".0", a
    list as "1, 2"; the page, the live table and the moderator agree."""
    from voicehost.live.texts import LiveTexts
    from voicehost.phrasebook import format_value, load_phrasebook

    assert [format_value(v) for v in (10.0, 1.5, 7, [3, 7], "слово")] == ["10", "1.5", "7", "3, 7", "слово"]
    texts = Texts("phrasebook.ru")
    texts.words = {**texts.words, "probe": "{seconds} / {seats}"}
    live = LiveTexts({"probe": "{seconds} / {seats}"}, {}, {}, ())
    book = load_phrasebook("phrasebook.ru")
    spoken = book.text("silenced_speaks", seat=3, seconds=30.0)
    assert "30 секунд" in spoken and ".0" not in spoken
    assert texts("probe", seconds=30.0, seats=[3, 7]) == live.text("probe", seconds=30.0, seats=[3, 7]) == "30 / 3, 7"


def test_the_night_header_says_night_once():
    """Issue 30: the page's header read «Ночь 2 · Ночь: стрельба»: the pages put
    the night's number before the phase, whose core name says «Ночь» too."""
    from voicehost.game.model import Phase
    from voicehost.web.texts import Texts

    for book, night in (("phrasebook.ru", "Ночь"), ("phrasebook.uk", "Ніч")):
        texts = Texts(book)
        for phase in Phase:
            if phase.is_night:
                header = f"{texts('night_n', night=2)} · {texts(f'phase_{phase.value}')}"
                assert header.count(night) == 1, header
        assert texts("table_night") == night   # the TV's own night board stays as it was


def test_counted_nouns_take_the_cldr_plural_form_in_both_languages():
    """Issue 30: plurals were hand-made («2 игроков»); the forms now follow the
    language's CLDR plural rule (Babel) wherever a phrase counts players."""
    from voicehost.livetexts import live_texts
    from voicehost.web.texts import Texts

    ru, uk = live_texts("phrasebook.ru"), live_texts("phrasebook.uk")
    said = {n: ru.text("series_created", name="v", count=n) for n in (1, 2, 5, 11, 21, 22, 25)}
    assert said[1].endswith("1 игрок в составе") and said[21].endswith("21 игрок в составе")
    assert said[2].endswith("2 игрока в составе") and said[22].endswith("22 игрока в составе")
    assert said[5].endswith("5 игроков в составе") and said[11].endswith("11 игроков в составе")
    assert ru.text("seating_count", count=10, given=1) == "Рассадка: нужно 10 игроков, назван 1 (через запятую)"
    assert uk.text("series_created", name="v", count=3).endswith("3 гравці у складі")
    assert uk.text("series_created", name="v", count=1).endswith("1 гравець у складі")
    page = Texts("phrasebook.ru")   # the server's own page lines pick their forms the same way
    page.words = {**page.words, "probe": "{count} {count:игрок|игрока|игроков}"}
    assert [page("probe", count=n) for n in (1, 3, 10)] == ["1 игрок", "3 игрока", "10 игроков"]
