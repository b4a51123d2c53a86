"""A club's two-game evening played from the phone (issue 32), in Debian's
chromium driven by Playwright: `voicehost run --text --serve --series vecher`
with a new series. The host seats the ten by lot on the page, deals the roles
by lot on the page, ends game 1 from the seat tiles (four reds disqualified),
and starts "Следующая игра". The names must reach the phone's tiles, the TV
board and the overlay; game 2's deal must start empty; the standings rank the
players by name. Screenshots (phone 390×844, TV and overlay 1920×1080) go to
the test's folder, and to $VOICEHOST_SHOTS when it is set; the page height of
each moment is printed."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browserparts import CHROMIUM, FLAGS, free_port
from tests.conftest import series_protocol
from voicehost.series.store import Series

ROSTER = ["Алиса", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна", "Зоя", "Илья", "Кира"]
EARLIER = ["Лев", "Мирон", "Нина"]
ROLES = ["citizen", "mafia", "citizen", "don", "citizen", "sheriff", "mafia", "citizen", "citizen", "citizen"]
PHONE, TV = {"width": 390, "height": 844}, {"width": 1920, "height": 1080}
DEAL = ["#role-don", "#role-sheriff", "#role-mafia1", "#role-mafia2"]


@pytest.fixture
def table(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f'series_dir = "{tmp_path / "series"}"\n', "utf-8")
    subprocess.run([sys.executable, "-m", "voicehost", "series", "new", "vecher", "--players",
                    ", ".join(ROSTER + EARLIER), "--config", str(config)],
                   capture_output=True, text=True, timeout=60, check=True)
    # An earlier game with three players not at tonight's table: the TV's standings will hold 13 rows.
    earlier = dict(zip(EARLIER + ROSTER[:7], ROLES, strict=True))
    Series.open(tmp_path / "series", "vecher").put("game-001", series_protocol("red", earlier, best=EARLIER[0]))
    log_path = tmp_path / "run.log"
    log = log_path.open("w")
    proc = subprocess.Popen([sys.executable, "-m", "voicehost", "run", "--text", "--mute", "--serve", "--port",
                             str(free_port()), "--series", "vecher", "--config", str(config)],
                            cwd=tmp_path, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 30
    found = None
    while time.monotonic() < deadline and found is None:
        found = re.search(r"Страница ведущего: (\S+)[\s\S]*Экран для стола: (\S+)[\s\S]*Оверлей для трансляции: (\S+)",
                          log_path.read_text("utf-8"))
        time.sleep(0.1)
    assert found, log_path.read_text("utf-8")
    yield found.group(1), found.group(2), found.group(3), tmp_path
    if proc.poll() is None:
        proc.stdin.close()
        proc.terminate()
    proc.wait(timeout=10)
    log.close()


def shots_to(tmp_path: Path) -> list[Path]:
    folders = [tmp_path / "shots"]
    if os.environ.get("VOICEHOST_SHOTS"):
        folders.append(Path(os.environ["VOICEHOST_SHOTS"]))
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    return folders


def in_reach(page, selector: str, timeout: float = 10.0) -> bool:
    """On the first phone screen, the page not scrolled to get there (waited for:
    the series' part settles on its next poll)."""
    deadline = time.monotonic() + timeout
    while True:
        bottom = page.locator(selector).evaluate("e => e.getBoundingClientRect().bottom + window.scrollY")
        if page.evaluate("window.scrollY") == 0 and bottom <= PHONE["height"]:
            return True
        if time.monotonic() > deadline:
            print("not in reach:", selector, bottom)
            return False
        time.sleep(0.2)


def tile_names(page, selector: str) -> list[str]:
    return page.locator(selector).evaluate_all("els => els.map(e => e.textContent)")


def test_a_two_game_evening_from_the_phone(table):
    pair_url, table_url, overlay_url, tmp_path = table
    folders = shots_to(tmp_path)
    heights: dict[str, int] = {}

    def shot(page, name: str) -> None:
        for folder in folders:
            page.screenshot(path=str(folder / name), full_page=False)

    def height(page, moment: str) -> None:
        heights[moment] = page.evaluate("document.documentElement.scrollHeight")

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        phone = browser.new_page(viewport=PHONE)
        phone.goto(pair_url)
        expect(phone.locator("#series-roster")).to_be_visible(timeout=10_000)
        for name in ROSTER:
            phone.get_by_label(name, exact=True).check()
        shot(phone, "evening-phone-seating-390.png")
        legend, border = phone.locator("#series-roster").evaluate(
            "f => [f.querySelector('legend').getBoundingClientRect().top, f.getBoundingClientRect().top]")
        assert legend > border, (legend, border)   # the hint inside its frame, not across the border line
        phone.get_by_role("button", name="Рассадить по жребию").click()
        expect(phone.locator("#series-seated")).to_contain_text("Рассадка: 1 — ", timeout=10_000)
        seated = phone.locator("#series-seated").text_content() or ""
        seats = {int(n): name for n, name in re.findall(r"(\d+) — ([А-Яа-яЁё]+)", seated)}
        assert sorted(seats.values()) == sorted(ROSTER), seated

        # The names on every tile: the phone, the TV board, the overlay.
        for seat, name in seats.items():
            expect(phone.locator(f"#seat-{seat}")).to_contain_text(name, timeout=10_000)
        tv = browser.new_page(viewport=TV)
        tv.goto(table_url)
        overlay = browser.new_page(viewport=TV)
        overlay.goto(overlay_url)
        for board in (tv, overlay):
            expect(board.locator("#seats .tile").first).to_contain_text(seats[1], timeout=10_000)
            shown = " ".join(tile_names(board, "#seats .tile"))
            assert all(name in shown for name in ROSTER), shown
            assert "Игрок 1" not in shown
        height(phone, "before the deal")
        assert in_reach(phone, "#setup-form button[type=submit]")
        assert phone.evaluate("document.activeElement.getBoundingClientRect().bottom") <= PHONE["height"]
        shot(phone, "evening-phone-before-deal-390.png")
        shot(tv, "evening-tv-seated-1920.png")
        shot(overlay, "evening-overlay-seated-1920.png")

        # The deal by lot on the page: four different seats, then the game starts.
        phone.get_by_role("button", name="Роли по жребию").click()
        dealt = [phone.locator(select).input_value() for select in DEAL]
        assert all(dealt) and len(set(dealt)) == 4, dealt
        phone.get_by_role("button", name="Начать игру").click()
        expect(phone.locator("#phase")).not_to_contain_text("Раздача", timeout=10_000)
        expect(phone.locator("#series")).to_be_hidden(timeout=2_000)   # in play: no series box, no stale message
        shot(phone, "evening-phone-night-390.png")

        # Game 1 ends from the tiles: every red but the ones needed disqualified.
        reds = [seat for seat in range(1, 11) if str(seat) not in dealt[0:1] + dealt[2:]]
        for seat in reds[:4]:
            phone.locator(f"#seat-{seat}").click()
            phone.get_by_role("button", name=f"Дисквалифицировать игрока {seat}").click()
            phone.locator("#seat-confirm-yes").click()
            expect(phone.locator(f"#seat-{seat}")).to_contain_text("выбыл", timeout=10_000)
        expect(phone.locator("#end")).to_be_visible(timeout=15_000)
        best, worst = reds[4], reds[5]
        phone.locator("#best-player").select_option(str(best))
        phone.locator("#best-player-form button").click()
        phone.locator("#worst-player").select_option(str(worst))
        phone.locator("#worst-player-form button").click()
        expect(phone.get_by_role("button", name="Следующая игра")).to_be_visible(timeout=15_000)
        height(phone, "the end")
        assert in_reach(phone, "#series-next")
        expect(phone.locator("#series-message")).not_to_contain_text("Игроки рассажены")
        expect(phone.locator("#series-seated")).to_have_text("")
        points = phone.locator("#points").text_content() or ""
        assert all(name in points for name in ROSTER) and not re.search(r"\d\.\d", points), points
        shot(phone, "evening-phone-end-390.png")
        expect(tv.locator("#series-board")).to_contain_text("игр: 2", timeout=15_000)
        shot(tv, "evening-tv-standings-1920.png")
        board_text = tv.locator("#series-board").text_content() or ""
        assert all(name in board_text for name in ROSTER), board_text
        # Between games the standings are the TV's whole screen: no squashed tiles, one "Стоп игра",
        # every column (the best move's too) and every row inside 1920×1080.
        expect(tv.locator("#seats")).to_be_hidden()
        expect(tv.locator("#winner")).to_contain_text("Стоп игра")
        expect(tv.locator("#phase")).to_be_hidden()   # it said "Стоп игра" a second time
        expect(tv.locator("#series-board thead")).to_contain_text("Лучший ход")
        assert tv.locator("#series-board tbody td.col-best_moves").all_text_contents() == ["0"] * 13
        box = tv.locator("#series-board table").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= TV["width"], box
        assert box["y"] + box["height"] <= TV["height"], box

        # Game 2: seated anew, and its deal starts empty.
        phone.get_by_role("button", name="Следующая игра").click()
        expect(phone.locator("#series-roster")).to_be_visible(timeout=15_000)
        for name in ROSTER:
            phone.get_by_label(name, exact=True).check()
        phone.get_by_role("button", name="Рассадить по жребию").click()
        expect(phone.locator("#series-seated")).to_contain_text("Рассадка: 1 — ", timeout=10_000)
        expect(phone.locator("#role-don")).to_be_visible(timeout=10_000)
        assert [phone.locator(select).input_value() for select in DEAL] == ["", "", "", ""]
        expect(tv.locator("#series-board")).to_be_hidden(timeout=10_000)   # seated: the next game's seats
        expect(tv.locator("#seats")).to_be_visible()
        shot(tv, "evening-tv-game2-seated-1920.png")
        height(phone, "game 2 before the deal")
        shot(phone, "evening-phone-game2-390.png")

        # A seat's name set on the phone goes by the roster: a slip is refused, the name stays.
        kept = phone.locator("#seat-3").text_content()
        phone.locator("#seat-3").click()
        phone.locator("#name-text").fill("Алса")
        phone.locator("#names-form button[type=submit]").click()
        expect(phone.get_by_text("Нет в составе: Алса.")).to_be_visible(timeout=10_000)
        expect(phone.get_by_text("«Новый игрок»", exact=False).first).to_be_visible()
        assert phone.locator("#seat-3").text_content() == kept
        shot(phone, "evening-phone-name-refused-390.png")
        browser.close()

    print("page heights at 390×844:", json.dumps(heights, ensure_ascii=False))
    protocol = json.loads((tmp_path / "series" / "vecher" / "games" / "game-002.json").read_text("utf-8"))
    assert protocol["players"] == {str(seat): name for seat, name in seats.items()}
    assert (protocol["best_player"], protocol["worst_player"]) == (best, worst)
    standings = subprocess.run([sys.executable, "-m", "voicehost", "standings", "vecher", "--format", "json",
                                "--config", str(tmp_path / "config.toml")], capture_output=True, text=True,
                               timeout=60)
    assert sorted(row["name"] for row in json.loads(standings.stdout)) == sorted(ROSTER + EARLIER)
