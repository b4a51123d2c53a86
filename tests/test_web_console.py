"""The host's console on a phone (390×844) through a whole game, in Debian's
chromium: the deal from empty fields, day 1 by typed speech, the tally with
its confirm for a candidate left at 0, night 2 with both private answers
pinned and announced one after the other, the best move, fouls from the seat
board to the end, the best player. At every moment the input the game needs
is on the first screen (the page is never scrolled), focus is where the next
input is and never on <body> or on the button just pressed, and axe-core finds
nothing. Screenshots of each moment go to tests/web/screenshots/ (git-ignored).

Then the room's board (/table) at 1920×1080 and 1366×768 and the stream
overlay (/overlay) at 1920×1080: the seats, the labelled vote rounds, no secret."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browserparts import AXE, CHROMIUM, FLAGS, axe_violations, free_port, small_targets
from tests.conftest import ROOT

SHOTS = ROOT / "tests" / "web" / "screenshots"
SETTINGS = ["speech_seconds=40", "warning_seconds=0", "mafia_meet_seconds=1", "don_seconds=6",
            "sheriff_seconds=12", "number_call_seconds=0.1", "vote_seconds=0.2", "last_word_seconds=40",
            "tie_speech_seconds=5"]
# What a screen reader is told: each line added to the polite and the assertive logs
# (an update's lines come to the host's log as one block of lines).
RECORDER = """
window.__polite = []; window.__assertive = [];
const linesOf = (n) => (n.querySelectorAll && n.querySelector('p') ? [...n.querySelectorAll('p')] : [n])
  .map((line) => line.textContent);
document.addEventListener('DOMContentLoaded', () => {
  for (const [id, into] of [['status', window.__polite], ['answer-live', window.__assertive],
                            ['lines', window.__polite]]) {
    const node = document.getElementById(id);
    if (node) new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes)
      into.push(...linesOf(n)); }).observe(node, {childList: true});
  }
});
"""
SECRET = re.compile(r"чёрный|красный|— Шериф|не Шериф|только вам|\bмирный\b|\bшериф\b")  # answers, role names


class TypedTable:
    """`voicehost run --text --mute` on this machine; its stdin is the typed speech."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, free_port()
        self.log = folder / "run.log"
        config = folder / "config.toml"
        config.write_text("[web]\noverlay_delay = 3\n", "utf-8")  # the roles overlay, 3 s late
        command = [sys.executable, "-m", "voicehost", "run", "--text", "--mute", "--serve", "--port", str(self.port),
                   "--journal", str(folder / "game.jsonl"), "--config", str(config)]
        for pair in SETTINGS:
            command += ["--set", pair]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=self.log.open("w"),
                                     stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + 30
        self.link = None
        while time.monotonic() < deadline and self.link is None:
            match = re.search(r"Страница ведущего: (\S+)", self.log.read_text("utf-8"))
            self.link = match.group(1) if match else None
            assert self.proc.poll() is None, self.log.read_text("utf-8")
            time.sleep(0.1)
        assert self.link, self.log.read_text("utf-8")
        self.base = f"http://127.0.0.1:{self.port}"
        printed = self.log.read_text("utf-8")
        roles = re.search(r"Оверлей с ролями \(только для ведущего, задержка 3 с\): (\S+)", printed)
        self.roles_overlay = roles.group(1)
        assert re.search(r"Оверлей для трансляции: \S+/overlay\n", printed), printed

    def say(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


@pytest.fixture
def typed(tmp_path):
    table = TypedTable(tmp_path)
    yield table
    table.stop()


def focused(page) -> str:
    return page.evaluate("() => { const a = document.activeElement; return !a || a === document.body ? 'BODY'"
                         " : a.id || a.tagName + ':' + a.textContent.trim(); }")


def on_first_screen(page, *selectors: str) -> None:
    """The page is not scrolled and each of these is wholly inside the 844 px screen."""
    assert page.evaluate("() => window.scrollY") == 0
    for selector in selectors:
        box = page.locator(selector).bounding_box()
        assert box is not None, selector
        assert box["y"] >= 0 and box["y"] + box["height"] <= 844, (selector, box)


def no_wider_than_the_screen(page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390


def shoot(page, name: str, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def checked(page) -> None:
    """axe-core finds nothing; every control is at least 44 px for a finger; no sideways scroll."""
    assert axe_violations(page) == []
    assert small_targets(page) == []
    no_wider_than_the_screen(page)


@pytest.mark.skipif(not AXE.exists(), reason="axe-core not installed (scripts/setup --test)")
def test_a_whole_game_hosted_from_a_phone(typed):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                      device_scale_factor=2)
        phone = context.new_page()
        phone.add_init_script(RECORDER)
        errors: list[str] = []
        phone.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        phase = phone.locator("#phase")
        title = phone.locator("#moment-title")

        def floor(seat: int) -> None:
            expect(title).to_contain_text(f"Игрок {seat}: речь", timeout=40_000)

        # The deal: nothing prefilled, each label above its own field.
        phone.goto(typed.link)
        expect(title).to_have_text("Раздача ролей", timeout=10_000)
        for label in ("Дон", "Шериф", "Мафия (первая)", "Мафия (вторая)"):
            expect(phone.get_by_label(label, exact=True)).to_have_value("")
        expect(phone.locator("#role-don")).to_be_focused()
        assert phone.evaluate("""() => [...document.querySelectorAll('#setup-form .field')].every(f => {
            const l = f.querySelector('label').getBoundingClientRect();
            const s = f.querySelector('select').getBoundingClientRect();
            return l.bottom <= s.top + 1 && Math.abs(l.left - s.left) < 2; })""")
        on_first_screen(phone, "#setup-form button[type=submit]")
        checked(phone)
        shoot(phone, "console-1-deal")
        phone.get_by_role("button", name="Начать игру").first.click()
        expect(phone.locator("#error")).to_have_text("Сначала заполните поле «Дон»")
        expect(phone.locator("#role-don")).to_be_focused()
        for label, seat in (("Дон", "4"), ("Шериф", "6"), ("Мафия (первая)", "2"), ("Мафия (вторая)", "7")):
            phone.get_by_label(label, exact=True).select_option(seat)
        phone.get_by_role("button", name="Начать игру").first.click()
        expect(phase).to_contain_text("Ночь 1", timeout=10_000)
        assert focused(phone) not in ("BODY", "pause", "next", "undo")

        # Day 1 by typed speech: the speaker's tile and captions, 7 and 3 nominated.
        floor(1)
        expect(phone.locator("#seats li.speaking")).to_contain_text("1")
        on_first_screen(phone, "#seats", "#pause", "#next")
        checked(phone)
        typed.say("выставляю седьмого спасибо")
        floor(2)
        typed.say("выставляю третьего")
        expect(phone.locator("#host-captions mark")).to_have_text("выставлен игрок 3", timeout=10_000)
        shoot(phone, "console-2-speech")
        typed.say("спасибо")
        for seat in range(3, 11):
            floor(seat)
            typed.say("спасибо")

        # The tally: a field for 7 only (3, the last, gets the rest), empty, not 0.
        expect(title).to_have_text("Голоса", timeout=20_000)
        expect(phone.locator("#vote-7")).to_be_focused()
        expect(phone.locator("#vote-7")).to_have_value("")
        assert phone.locator("#vote-3").count() == 0
        expect(phone.locator("#remainder")).to_have_text("игрок 3: 10")
        on_first_screen(phone, "#vote-7", "#votes-submit", "#remainder")
        # Nothing is re-told every second: the live remainder changes only when a count does.
        changes = phone.evaluate("""() => new Promise((done) => { let n = 0;
            const o = new MutationObserver((r) => { n += r.length; });
            o.observe(document.getElementById('remainder'), {childList: true, characterData: true, subtree: true});
            setTimeout(() => { o.disconnect(); done(n); }, 2500); })""")
        assert changes == 0
        checked(phone)
        shoot(phone, "console-3-tally")
        # Submitting with the field empty asks first: 7 would get 0 by omission.
        phone.get_by_role("button", name="Записать голоса").click()
        confirm = phone.locator("#votes-confirm-text")
        expect(confirm).to_have_text("Ноль голосов получат: 7 (поле не заполнено). Записать так?")
        expect(confirm).to_be_focused()
        on_first_screen(phone, "#votes-confirm-yes", "#votes-confirm-no")
        checked(phone)
        shoot(phone, "console-4-tally-confirm")
        phone.get_by_role("button", name="Исправить").click()
        expect(phone.locator("#vote-7")).to_be_focused()
        phone.locator("#vote-7").fill("7")
        expect(phone.locator("#remainder")).to_have_text("игрок 3: 3")
        phone.get_by_role("button", name="Записать голоса").click()
        expect(title).to_contain_text("Игрок 7: последнее слово", timeout=10_000)
        # The room's board: the nominees in order under their heading, the round labelled.
        tv = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
        tv.goto(typed.base + "/table")
        expect(tv.get_by_role("heading", name="Выставлены")).to_be_visible(timeout=10_000)
        expect(tv.locator("#nominations li")).to_have_text(["Игрок 7", "Игрок 3"])
        expect(tv.locator("#rounds li")).to_have_text(["Голосование: 7 — 7, 3 — 3"])
        expect(tv.locator("#speaker")).to_have_text("Игрок 7: последнее слово")
        assert tv.evaluate("() => document.documentElement.scrollHeight") <= 768
        assert axe_violations(tv) == []
        shoot(tv, "table-last-word-1366x768")
        assert focused(phone) not in ("BODY", "votes-submit", "pause", "next")
        typed.say("спасибо")

        # Night 2: the shot, the Don's and the Sheriff's checks, each form on the first screen.
        expect(phone.locator("#shot-seat")).to_be_focused(timeout=20_000)
        on_first_screen(phone, "#shot-seat", "#shot-form button")
        checked(phone)
        shoot(phone, "console-5-night-shot")
        phone.get_by_label("Выстрел мафии", exact=True).select_option("1")
        phone.get_by_role("button", name="Записать выстрел").click()
        expect(phone.locator("#don-seat")).to_be_focused(timeout=20_000)
        phone.get_by_label("Проверка Дона", exact=True).select_option("6")
        phone.locator("#don-form button").click()
        expect(phone.locator("#sheriff-seat")).to_be_focused(timeout=20_000)
        # Meanwhile the room's board shows nothing of the night but "Ночь".
        expect(tv.locator("#phase")).to_have_text("Ночь")
        expect(tv.locator("#rounds-box")).to_be_hidden()
        expect(tv.locator("#nominees")).to_be_hidden()
        expect(tv.locator("#clock")).to_have_text("")
        assert not SECRET.search(tv.locator("body").inner_text())
        shoot(tv, "table-night-1366x768")
        # The Don's answer is pinned at the top while the Sheriff's form is needed.
        expect(phone.locator("#answers-list")).to_have_text("Дон: игрок 6 — Шериф")
        on_first_screen(phone, "#answers-list", "#sheriff-seat", "#sheriff-form button")
        checked(phone)
        shoot(phone, "console-6-night-sheriff")
        phone.get_by_label("Проверка Шерифа", exact=True).select_option("2")
        phone.locator("#sheriff-form button").click()

        # The morning: both answers stay pinned; both were announced, the Don's not overwritten.
        expect(phase).to_contain_text("День 2", timeout=20_000)
        answers = phone.locator("#answers-list li")
        expect(answers).to_have_text(["Дон: игрок 6 — Шериф", "Шериф: игрок 2 — чёрный"])
        expect(phone.locator("#answer-live p", has_text="Ответ ночи")).to_have_count(2, timeout=5_000)
        assertive = [line for line in phone.evaluate("() => window.__assertive") if "Ответ ночи" in line]
        assert assertive == ["Ответ ночи, только вам: Дон: игрок 6 — Шериф",
                             "Ответ ночи, только вам: Шериф: игрок 2 — чёрный"], assertive
        heard = phone.evaluate("() => window.__polite")
        assert not [line for line in heard if SECRET.search(line)], heard
        # Player 1, shot, names the best move: the form takes the focus, on the first screen.
        expect(phone.locator("#bm1")).to_be_focused()
        on_first_screen(phone, "#answers-list", "#bm1", "#bm3", "#best-move-form button")
        checked(phone)
        shoot(phone, "console-7-morning-best-move")
        for field, seat in (("Первый", "2"), ("Второй", "4"), ("Третий", "7")):
            phone.get_by_label(field, exact=True).select_option(seat)
        phone.get_by_role("button", name="Записать лучший ход").click()
        expect(phone.locator("#best-move-form")).to_be_hidden()
        assert focused(phone) not in ("BODY", "pause", "next", "undo")
        phone.get_by_role("button", name="Скрыть ответы ночи").click()
        expect(phone.locator("#answers")).to_be_hidden()
        assert focused(phone) != "BODY"
        typed.say("спасибо")
        floor(2)

        # Fouls from the seat board: the tile opens the seat's panel, focus on its heading;
        # after a foul the focus leaves the button (a second Enter gives no second foul).
        for seat in (2, 4):
            phone.locator(f"#seat-{seat}").click()
            expect(phone.locator("#seat-title")).to_be_focused()
            foul = phone.get_by_role("button", name=f"Фол игроку {seat}", exact=True)
            if seat == 2:
                on_first_screen(phone, "#seat-title", "#seat-close")
                checked(phone)
                shoot(phone, "console-8-seat-panel")
            for count in range(1, 5):
                foul.click()
                if count < 4:
                    expect(phone.locator("#seat-about")).to_contain_text(f"Фолов: {count}", timeout=5_000)
                    expect(phone.locator("#seat-title")).to_be_focused()
            expect(phone.locator(f"#seats li:nth-child({seat})")).to_have_class(re.compile("gone"), timeout=5_000)
        expect(phone.locator("#winner")).to_have_text("Стоп игра. Победа мирного города", timeout=10_000)

        # The end: the best player from its form, the downloads on the same screen.
        expect(title).to_have_text("Итог")
        expect(phone.locator("#best-player")).to_be_focused()
        on_first_screen(phone, "#best-player", "#best-player-form button")
        phone.get_by_label("Лучший игрок", exact=True).select_option("6")
        phone.locator("#best-player-form button").click()
        expect(phone.locator("#points")).to_contain_text("6: ")
        expect(phone.locator("#worst-player")).to_be_focused()
        checked(phone)
        shoot(phone, "console-9-end")
        shoot(phone, "console-9-end-full", full=True)
        heard = phone.evaluate("() => window.__polite")
        assert "Стоп игра. Победа мирного города" in heard, heard
        assert [e for e in errors if "409" not in e] == []

        # The room's board at both sizes, and the stream overlay: seats, rounds, no secret.
        for width, height in ((1920, 1080), (1366, 768)):
            tv = browser.new_context(viewport={"width": width, "height": height}).new_page()
            tv.goto(typed.base + "/table")
            expect(tv.locator("#winner")).to_have_text("Стоп игра. Победа мирного города", timeout=10_000)
            expect(tv.locator("#seats li")).to_have_count(10)
            expect(tv.locator("#seats li").nth(6)).to_contain_text("выбыл: голосование, день 1")
            expect(tv.locator("#seats li").nth(0)).to_contain_text("выбыл: убит ночью, ночь 2")
            expect(tv.locator("#seats li").nth(1)).to_contain_text("выбыл: четыре фола, день 2")
            assert not SECRET.search(tv.locator("body").inner_text())
            assert tv.evaluate("() => document.documentElement.scrollHeight") <= height
            assert axe_violations(tv) == []
            shoot(tv, f"table-end-{width}x{height}")

        # The stream overlay: transparent, the same seats, no secret; its roles mode behind its link.
        stream = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
        stream.goto(typed.base + "/overlay")
        expect(stream.locator("#seats li")).to_have_count(10, timeout=10_000)
        assert stream.evaluate("() => getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
        assert not SECRET.search(stream.locator("body").inner_text())
        assert stream.locator(".seat-role").count() == 0
        assert axe_violations(stream) == []
        shoot(stream, "overlay-end-1920x1080")
        stream.goto(typed.roles_overlay)
        expect(stream.locator("#seats li").nth(3).locator(".seat-role")).to_have_text("дон", timeout=10_000)
        expect(stream.locator("#checks")).to_contain_text("ночь 2: Шериф: игрок 2 — чёрный")
        expect(stream.locator("#best-move")).to_have_text("Лучший ход игрока 1: 2, 4, 7")
        shoot(stream, "overlay-roles-end-1920x1080")
        browser.close()


def _deal(phone) -> None:
    for label, seat in (("Дон", "4"), ("Шериф", "6"), ("Мафия (первая)", "2"), ("Мафия (вторая)", "7")):
        phone.get_by_label(label, exact=True).select_option(seat)
    phone.get_by_role("button", name="Начать игру").first.click()


@pytest.mark.skipif(not AXE.exists(), reason="axe-core not installed (scripts/setup --test)")
def test_a_blind_host_hears_every_suggestion_and_every_line_missed_while_offline(typed):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        phone = context.new_page()
        phone.add_init_script(RECORDER)
        # The host's live channel through a switch the test can open: a dropped link.
        link = {"down": False, "sockets": []}

        def channel(socket) -> None:
            if link["down"]:
                socket.close()
                return
            socket.connect_to_server()
            link["sockets"].append(socket)

        phone.route_web_socket(re.compile(r"/api/ws(\?|$)"), channel)  # its URL carries a proof (?proof=…)
        title = phone.locator("#moment-title")
        phone.goto(typed.link)
        expect(title).to_have_text("Раздача ролей", timeout=10_000)
        _deal(phone)
        expect(title).to_contain_text("Игрок 1: речь", timeout=40_000)

        # Two forbidden words: both suggestions announced, queued; each button names its seat.
        typed.say("я клянусь честно")
        hints = phone.locator("#suggestions > li")
        expect(hints).to_have_count(2, timeout=10_000)
        # The room's board and the stream overlay meanwhile: the speaker, the time, the captions.
        for path, width, height in (("/table", 1920, 1080), ("/table", 1366, 768), ("/overlay", 1920, 1080)):
            tv = browser.new_context(viewport={"width": width, "height": height}).new_page()
            tv.add_init_script(RECORDER)
            tv.goto(typed.base + path)
            expect(tv.locator("#speaker")).to_have_text("Игрок 1: речь", timeout=10_000)
            expect(tv.locator("#captions")).to_contain_text("клянусь честно")
            expect(tv.locator("#seats li.speaking .time")).to_have_text(re.compile(r"0:[0-9]{2}"))
            assert "[unk]" not in tv.locator("#captions").inner_text()
            assert tv.evaluate("() => document.documentElement.scrollHeight") <= height
            assert axe_violations(tv) == []
            shoot(tv, f"{path.strip('/')}-speech-{width}x{height}")
            if path == "/table":
                board = tv
        expect(phone.locator("#answer-live p", has_text="Подсказка")).to_have_count(2, timeout=5_000)
        said = [line for line in phone.evaluate("() => window.__assertive") if line.startswith("Подсказка")]
        assert said == ["Подсказка: Игрок 1: «клянусь» — дисквалификация", "Подсказка: Игрок 1: «честно» — фол"], said
        on_first_screen(phone, "#suggestions")
        checked(phone)
        shoot(phone, "console-10-suggestions")
        # A disqualification is asked first; "Отмена" leaves the player in.
        phone.get_by_role("button", name="Дисквалифицировать игрока 1…").click()
        expect(phone.locator("#seat-confirm-text")).to_have_text("Дисквалифицировать игрока 1? Он покинет игру.")
        expect(phone.locator("#seat-confirm-text")).to_be_focused()
        checked(phone)
        shoot(phone, "console-11-dq-confirm")
        phone.get_by_role("button", name="Отмена").click()
        expect(phone.locator("#seat-title")).to_be_focused()
        expect(phone.locator("#seat-about")).to_contain_text("В игре")
        phone.get_by_role("button", name="Закрыть").click()
        phone.get_by_role("button", name="Отклонить «клянусь» (игрок 1)").click()
        expect(hints).to_have_count(1)
        phone.get_by_role("button", name="Дать фол игроку 1").click()
        expect(phone.locator("#hints")).to_be_hidden()
        assert focused(phone) not in ("BODY",)

        # The link drops for a while: focus goes to the line that says so, not to <body>;
        # every line said meanwhile is told once the link is back, after a line saying so.
        link["down"] = True
        for socket in link["sockets"]:
            socket.close()
        expect(phone.locator("#conn")).to_have_text("нет связи, переподключаюсь…", timeout=15_000)
        assert focused(phone) == "conn"
        for _ in range(4):
            typed.say("спасибо")
            time.sleep(0.8)
        link["down"] = False
        expect(phone.locator("#conn")).to_have_text("на связи", timeout=20_000)
        expect(phone.locator("#status p.missed")).to_have_count(1, timeout=5_000)
        state = phone.evaluate("async () => (await (await signedFetch('/api/state')).json())")
        state_lines = [e["text"] for e in state["log"] if not e["private"]]
        heard = phone.evaluate("() => window.__polite")
        missed_at = next(i for i, line in enumerate(heard) if line.startswith("Пока не было связи"))
        replayed = heard[missed_at + 1:]
        assert replayed and replayed == state_lines[len(state_lines) - len(replayed):], (replayed, state_lines)
        assert focused(phone) not in ("BODY", "conn")
        checked(phone)
        # The board told a blind player the same public lines, in its own live region.
        told = board.evaluate("() => window.__polite")
        assert told and told == state_lines[len(state_lines) - len(told):], (told, state_lines)
        browser.close()
