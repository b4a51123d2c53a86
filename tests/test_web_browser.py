"""A real browser (Debian's chromium, driven by Playwright) pairs with the page
and plays the rest of a game by clicking: the day-2 tally, the night's shot
and check with its private answer, fouls to the end, the best player. The
pages pass an axe-core check with zero violations; a screenshot is kept."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browserparts import CHROMIUM, FLAGS, axe_violations, free_port, small_targets
from tests.conftest import ROOT
from tests.webparts import in_words

SHORT = ["last_word_seconds=2", "speech_seconds=20", "warning_seconds=0", "number_call_seconds=0.1",
         "don_seconds=2", "sheriff_seconds=60", "vote_seconds=0.2", "tie_speech_seconds=2"]


def serve(tmp_path, extra: list[str], settings: list[str], journal: Path | None = None):
    port = free_port()
    args = [sys.executable, "-m", "voicehost", "serve", "--port", str(port),
            "--journal", str(journal or tmp_path / "journal.jsonl"), *extra]
    for pair in settings:
        args += ["--set", pair]
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 30
    url = None
    while time.monotonic() < deadline and url is None:
        match = re.search(r"Страница ведущего: (\S+)", (tmp_path / "serve.log").read_text("utf-8"))
        url = match.group(1) if match else None
        time.sleep(0.1)
    assert url, (tmp_path / "serve.log").read_text("utf-8")
    return proc, log, url, f"http://127.0.0.1:{port}"


@pytest.fixture
def served(tmp_path):
    proc, log, url, base = serve(tmp_path, ["--script", str(ROOT / "tests/web/short_game.jsonl")], SHORT)
    yield url, base, tmp_path
    proc.terminate()
    proc.wait(timeout=10)
    log.close()


@pytest.fixture
def served_city(tmp_path):
    proc, log, url, base = serve(tmp_path, ["--ruleset", "city"],
                                 ["mafia_meet_seconds=1", "speech_seconds=0.5", "warning_seconds=0",
                                  "vote_seconds=0.1", "don_seconds=6"])  # each night window runs its full 6 s
    yield url, base, tmp_path
    proc.terminate()
    proc.wait(timeout=10)
    log.close()


def test_pair_and_play_by_clicking(served):
    url, base, folder = served
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 900, "height": 1400})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

        page.goto(url)
        expect(page).to_have_url(base + "/")
        expect(page.get_by_role("heading", name="Ведущий")).to_be_visible()
        expect(page.locator("#phase")).to_contain_text("Подсчёт голосов", timeout=10_000)
        assert axe_violations(page) == []

        # Day 2 tally: 4 and 9 nominated, 8 vote; the remainder is shown live.
        votes = page.get_by_label("За то, чтобы ушёл игрок 4")
        votes.fill("6")
        expect(page.locator("#remainder")).to_have_text("игрок 9: 2")
        page.get_by_role("button", name="Записать голоса").click()
        expect(page.locator("#seats li").nth(3)).to_have_class(re.compile("gone"))

        # Night 3: the shot, then the Sheriff's check with its private answer.
        page.get_by_label("Выстрел мафии", exact=True).select_option("1", timeout=15_000)
        page.get_by_role("button", name="Записать выстрел").click()
        page.get_by_label("Проверка Шерифа", exact=True).select_option("2", timeout=15_000)
        page.get_by_role("button", name="Проверить").last.click()
        expect(page.locator("#log")).to_contain_text("(только вам) Игрок номер 2 — чёрный")
        expect(page.locator("#answers")).to_contain_text("Шериф: игрок 2 — чёрный")
        expect(page.locator("#answer-live")).to_contain_text("Ответ ночи, только вам: Шериф: игрок 2 — чёрный")
        expect(page.locator("#status")).not_to_contain_text("чёрный")
        assert axe_violations(page) == []
        # Undone and entered again, the answer is announced again; the undo leaves the focus
        # on the input needed now, not on itself (a second Enter would undo one more).
        page.get_by_role("button", name="Отменить: проверка Шерифа: игрок 2").click()
        expect(page.locator("#answers")).to_be_hidden()
        expect(page.locator("#notice")).to_have_text("Отменено: проверка Шерифа: игрок 2")
        expect(page.locator("#sheriff-seat")).to_be_focused()
        page.get_by_label("Проверка Шерифа", exact=True).select_option("2")
        page.get_by_role("button", name="Проверить").last.click()
        expect(page.locator("#answer-live p", has_text="Шериф: игрок 2 — чёрный")).to_have_count(2, timeout=5_000)

        # Every control is a real one: reachable and operable from the keyboard, and
        # at least 44 px in both directions for a finger.
        assert small_targets(page) == []
        # The focus ring stands out (>= 3:1) against the page behind it.
        page.locator("#seat-3").focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        expect(page.locator("#seat-3")).to_be_focused()
        assert _focus_ring_contrast(page) >= 3
        # Every seat action starts from the seat's tile: Enter opens its panel.
        page.keyboard.press("Enter")
        expect(page.locator("#seat-title")).to_be_focused()
        page.get_by_role("button", name="Фол игроку 3", exact=True).focus()
        page.keyboard.press("Enter")
        expect(page.locator("#seat-about")).to_contain_text("Фолов: 1")
        expect(page.locator("#seat-title")).to_be_focused()  # a second Enter gives no second foul
        page.keyboard.press("Enter")
        expect(page.locator("#seat-about")).to_contain_text("Фолов: 1")
        page.get_by_role("button", name="Снять фол с игрока 3", exact=True).focus()
        page.keyboard.press("Space")
        expect(page.locator("#seat-about")).to_contain_text("Фолов: 0")

        # The last black player collects four fouls: removed, red wins.
        page.locator("#seat-2").click()
        plus = page.get_by_role("button", name="Фол игроку 2", exact=True)
        for _ in range(4):
            plus.click()
            page.wait_for_timeout(150)
        expect(page.locator("#winner")).to_have_text("Стоп игра. Победа мирного города", timeout=10_000)
        page.get_by_label("Лучший игрок", exact=True).select_option("6")
        page.get_by_role("button", name="Назвать").first.click()
        expect(page.locator("#points")).to_contain_text("6: 1,75")   # the table's number format, as on the TV

        # The host names a player from the seat's panel; the name stands on the seat's tile
        # and goes into the records.
        page.locator("#seat-6").click()
        page.get_by_label("Имя (пусто — убрать имя)").fill("Алиса")
        page.get_by_role("button", name="Записать имя").click()
        expect(page.locator("#seat-6 .name")).to_have_text("Алиса")
        expect(page.locator("#seat-title")).to_have_text("Игрок 6 — Алиса")
        best = page.get_by_label("Лучший игрок", exact=True)
        expect(best.locator("option[value='6']")).to_have_text("Игрок 6 — Алиса")
        page.get_by_role("button", name="Закрыть").click()
        expect(page.locator("#seat-6")).to_be_focused()
        for label, fmt in (("Скачать для mafiaratings", "mafiaratings"), ("Скачать для Polemica", "polemica")):
            with page.expect_download(timeout=10_000) as download:
                page.get_by_role("link", name=label).click()
            assert download.value.suggested_filename == f"game.{fmt}.json"
            assert "Алиса" in open(download.value.path(), encoding="utf-8").read()
        page.screenshot(path=str(folder / "host.png"), full_page=True)
        assert axe_violations(page) == []

        # A bad input is refused with the reason, in an alert, and changes nothing.
        page.get_by_role("button", name="Назвать").first.click()
        expect(page.locator("#error")).not_to_be_empty()
        assert in_words(page.locator("#error").text_content())

        table = browser.new_page()
        table.goto(base + "/table")
        expect(table.locator("#phase")).to_have_text("Стоп игра")
        assert "чёрный" not in table.content() and "sheriff" not in table.content()
        assert axe_violations(table) == []
        table.screenshot(path=str(folder / "table.png"))

        pin = browser.new_page()
        pin.goto(base + "/pin")
        assert axe_violations(pin) == []
        # The one refused input above is the only failed request the pages made.
        assert [e for e in errors if "409" not in e] == []
        browser.close()
    assert (folder / "host.png").stat().st_size > 10_000


def test_city_table_by_clicking(served_city):
    url, base, folder = served_city
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(url)
        # No deal prefilled, and the deal's field keeps the page a phone's width.
        expect(page.get_by_label("Раздача: число игроков и роли по местам", exact=True)).to_have_value("")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        page.get_by_label("Раздача: число игроков и роли по местам", exact=True).fill(
            "players=9 mafia=2 commissar=6 doctor=5 lover=7 maniac=9")
        page.get_by_role("button", name="Начать игру").last.click()
        expect(page.locator("#phase")).to_contain_text("Кандидаты", timeout=15_000)
        assert axe_violations(page) == []
        page.get_by_label("Игрок 2", exact=True).check()
        page.get_by_role("button", name="Записать кандидатов").click()
        expect(page.locator("#log")).to_contain_text("Игрок номер 2 покидает игру. Он был мафией")
        # The night: no mafia left, so the roles' windows open one after another; each
        # runs its full time (SPEC §5) whenever its move is entered, so each waits for it.
        for label, choice in (("Доктор лечит", "1"), ("Любовница навещает", "none"),
                              ("Комиссар проверяет", "9"), ("Маньяк убивает", "3")):
            expect(page.locator("#action-label")).to_have_text(label, timeout=30_000)
            page.get_by_label(label, exact=True).select_option(choice)
            page.get_by_role("button", name="Записать ход").click()
        # The night ends with the last window; its answer stays pinned until the host dismisses it.
        expect(page.locator("#winner")).to_have_text("Стоп игра. Победа города", timeout=30_000)
        expect(page.locator("#answers")).to_be_visible()
        assert "pinned" not in (page.locator("#answers").get_attribute("class") or "")   # the end: not over it
        expect(page.locator("#answers-list")).to_have_text("Комиссар: игрок 9 — маньяк")
        expect(page.locator("#winner")).to_have_text("Стоп игра. Победа города", timeout=10_000)
        expect(page.locator("#log")).to_contain_text("Этой ночью погиб игрок номер 3. Он был честным жителем")
        assert axe_violations(page) == []
        browser.close()


def _luminance(rgb: str) -> float:
    channels = [int(c) / 255 for c in re.findall(r"\d+", rgb)[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _focus_ring_contrast(page) -> float:
    ring, behind = page.evaluate("""() => {
        const style = getComputedStyle(document.activeElement);
        let node = document.activeElement.parentElement, bg = 'rgba(0, 0, 0, 0)';
        while (node && (bg === 'rgba(0, 0, 0, 0)' || bg === 'transparent')) {
            bg = getComputedStyle(node).backgroundColor; node = node.parentElement; }
        return [style.outlineColor, bg]; }""")
    light, dark = sorted((_luminance(ring), _luminance(behind)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _newest_pin(folder) -> str:
    """The PIN the terminal printed last: each pairing (and each run of wrong PINs) makes a new one."""
    log = (folder / "serve.log").read_text("utf-8")
    return re.findall(r"(?:введите PIN|новым PIN|новый PIN|или PIN) (\d{6})", log)[-1]


def _approve(host, waiting) -> None:
    """The waiting device shows its code; the host approves that code on its page."""
    expect(waiting.locator("#error")).to_contain_text("Код этого устройства", timeout=10_000)
    code = re.search(r"(\d{4})$", waiting.locator("#error").text_content().strip()).group(1)
    host.get_by_role("button", name=f"Подключить устройство {code}").click()


def test_a_revoked_device_is_told_and_pairs_again_with_the_pin(served):
    url, base, folder = served
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        phone.goto(url)
        expect(phone.locator("#conn")).to_have_text("на связи", timeout=10_000)
        # The link paired the phone and was replaced, with the PIN: the laptop types the new
        # PIN and waits until the phone approves it.
        laptop = browser.new_context().new_page()
        laptop.goto(base + "/pin")
        laptop.get_by_label("PIN из терминала (6 или 12 цифр)").fill(_newest_pin(folder))
        laptop.get_by_role("button", name="Войти").click()
        _approve(phone, laptop)
        expect(laptop.locator("#devices-list")).to_contain_text("Устройство 1: ведущий", timeout=10_000)
        laptop.get_by_role("button", name=re.compile("^Отключить: Устройство 1")).click()
        expect(laptop.locator("#notice")).to_have_text("Устройство 1 отключено")

        # The phone learns at once: no live-looking page, a PIN field with the focus.
        expect(phone.locator("#unpaired")).to_be_visible(timeout=10_000)
        expect(phone.locator("#conn")).to_have_text("Устройство не подключено. Введите PIN из терминала.")
        expect(phone.locator("#repair-pin")).to_be_focused()
        assert phone.evaluate("() => document.getElementById('board').inert") is True
        assert axe_violations(phone) == []
        pin = _newest_pin(folder)
        phone.locator("#repair-pin").fill("000000" if pin != "000000" else "111111")
        phone.get_by_role("button", name="Войти").click()
        expect(phone.locator("#error")).to_have_text("Неверный PIN; попыток до паузы: 2")
        phone.locator("#repair-pin").fill(pin)
        phone.get_by_role("button", name="Войти").click()
        expect(laptop.locator("#pending")).to_be_visible(timeout=10_000)
        assert axe_violations(laptop) == []
        code = laptop.locator("#pending p").first.text_content()
        assert re.search(r"\d{4}", phone.locator("#error").text_content()).group(0) in code
        laptop.get_by_role("button", name=re.compile("^Подключить устройство")).click()
        expect(phone.locator("#conn")).to_have_text("на связи", timeout=15_000)
        expect(phone.locator("#unpaired")).to_be_hidden()
        expect(phone.locator("#phase")).to_contain_text("Подсчёт голосов")

        # An assistant judge: a one-time link from the host, a paired view that cannot act.
        laptop.get_by_role("button", name="Подключить судью (только просмотр)").click()
        expect(laptop.locator("#judge-link")).to_contain_text("/pair/")
        judge_link = re.search(r"http\S+", laptop.locator("#judge-link").text_content()).group(0)
        judge = browser.new_context().new_page()
        judge.goto(judge_link)
        expect(judge.locator("#readonly")).to_have_text("Только просмотр: это устройство судьи", timeout=10_000)
        expect(judge.locator("#phase")).to_contain_text("Подсчёт голосов")
        expect(judge.get_by_role("button", name="Пауза")).to_be_hidden()
        expect(judge.get_by_role("button", name="Записать голоса")).to_be_hidden()
        expect(judge.get_by_role("button", name="Фол игроку 1", exact=True)).to_be_hidden()
        assert axe_violations(judge) == []
        expect(laptop.locator("#devices-list")).to_contain_text("судья (просмотр)")
        browser.close()


def test_the_pairing_link_opened_from_another_site_still_pairs(served):
    url, base, folder = served
    other = base.replace("127.0.0.1", "localhost")  # another site, as far as cookies go
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page()
        page.goto(other + "/table")
        page.evaluate("(link) => { const a = document.createElement('a'); a.href = link; a.textContent = 'go';"
                      " document.body.appendChild(a); a.click(); }", url)
        expect(page).to_have_url(base + "/", timeout=10_000)
        expect(page.get_by_role("heading", name="Ведущий")).to_be_visible()
        expect(page.locator("#conn")).to_have_text("на связи", timeout=10_000)
        browser.close()


@pytest.fixture
def served_in_a_folder(tmp_path):
    """The short game with its journal in a folder of its own, which the test can take away."""
    (tmp_path / "journals").mkdir()
    proc, log, url, base = serve(tmp_path, ["--script", str(ROOT / "tests/web/short_game.jsonl")], SHORT,
                                 journal=tmp_path / "journals" / "journal.jsonl")
    yield url, base, tmp_path / "journals"
    proc.terminate()
    proc.wait(timeout=10)
    log.close()


def test_a_journal_deleted_is_written_anew_and_one_that_cannot_be_stops_loudly(served_in_a_folder):
    url, base, folder = served_in_a_folder
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 900, "height": 1400})
        page.goto(url)
        expect(page.locator("#phase")).to_contain_text("Подсчёт голосов", timeout=10_000)
        expect(page.locator("#stopped")).to_be_hidden()
        expect(page.locator("#journal-notice")).to_be_hidden()
        (folder / "journal.jsonl").unlink()  # deleted mid-game: written anew from memory, the game goes on
        page.locator("#seat-3").click()
        page.get_by_role("button", name="Фол игроку 3", exact=True).click()
        notice = page.locator("#journal-notice")
        expect(notice).to_be_visible(timeout=10_000)
        expect(notice).to_contain_text("записан заново из памяти")
        expect(page.locator("#stopped")).to_be_hidden()
        assert (folder / "journal.jsonl").is_file()
        shutil.rmtree(folder)   # the card is pulled: no folder, and a file where it was
        folder.write_text("not a folder")
        page.locator("#seat-4").click()
        page.get_by_role("button", name="Фол игроку 4", exact=True).click()
        stopped = page.locator("#stopped")
        expect(stopped).to_be_visible(timeout=10_000)
        expect(stopped).to_have_attribute("role", "alert")
        expect(stopped).to_contain_text("Игра остановлена.")
        expect(stopped).to_contain_text("ВНИМАНИЕ: журнал не записывается")
        expect(page.locator("#journal-notice")).to_be_hidden()
        expect(page.locator("#error")).to_have_text("Ввод не принимается: журнал не записывается, игра остановлена")
        page.get_by_role("button", name="Фол игроку 4", exact=True).click()  # its panel is still open
        expect(page.locator("#error")).to_have_text("Ввод не принимается: журнал не записывается, игра остановлена")
        assert axe_violations(page) == []
        browser.close()
