"""A whole game with the host on a phone, over the machine's real LAN address.

Two network namespaces made for the test stand for the table's computer and
the host's phone, joined by a veth pair (10.77.0.1 and 10.77.0.2). In the
computer's namespace the hostname resolves to 127.0.1.1, as on stock Debian
and Raspberry Pi OS, so `--lan` must find 10.77.0.1 from the interfaces. The
phone (Debian's chromium, a phone viewport) pairs with the printed link, the
game is played from the page and from typed speech, the server is killed in
the middle of day 2 and resumed from its journal, and the phone goes on
paired. Along the way: the Sheriff's answer is read from the pinned panel after
the night has ended; what a screen reader is told (every public line, the
tally prompt, the private answers only assertively and never in the public
region, focus after each form); axe-core finds nothing."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browserparts import AXE, CHROMIUM, FLAGS, axe_violations, small_targets
from tests.lanparts import SERVER_IP, lan  # noqa: F401  (the fixture)

PORT = 18765
# What the page waits for from the table (a state push, an answer): on a loaded 2-core machine a
# push can take far longer than expect()'s 5 s default, so each such wait has this generous bound.
SERVER_WAIT = 60_000
SETTINGS = ["speech_seconds=40", "warning_seconds=0", "mafia_meet_seconds=1", "don_seconds=12",
            "sheriff_seconds=12", "number_call_seconds=0.1", "vote_seconds=0.2", "last_word_seconds=40",
            "tie_speech_seconds=5"]
# What a screen reader is told: every line added to the polite log (an update's
# lines come as one block of lines), every assertive announcement.
RECORDER = """
window.__polite = []; window.__assertive = [];
document.addEventListener('DOMContentLoaded', () => {
  const status = document.getElementById('status'), answer = document.getElementById('answer-live');
  if (status) new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes)
    window.__polite.push(...[...n.querySelectorAll('p')].map((p) => p.textContent)); })
    .observe(status, {childList: true});
  if (answer) new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes)
    window.__assertive.push(n.textContent); }).observe(answer, {childList: true});
});
"""


class TableComputer:
    """`voicehost run --text --lan` inside the computer's namespace; stdin is the typed speech."""

    def __init__(self, ns: str, folder: Path) -> None:
        self.ns, self.folder, self.proc, self.runs = ns, folder, None, 0

    def start(self, *args: str) -> str:
        self.runs += 1
        self.log = self.folder / f"server-{self.runs}.log"
        command = ["ip", "netns", "exec", self.ns, sys.executable, "-m", "voicehost", "run", "--text", "--mute",
                   "--lan", "--port", str(PORT), *args]
        for pair in SETTINGS:
            command += ["--set", pair]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=self.log.open("w"),
                                     stderr=subprocess.STDOUT, text=True,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            match = re.search(r"Страница ведущего: (\S+)", self.log.read_text("utf-8"))
            if match:
                return match.group(1)
            assert self.proc.poll() is None, self.log.read_text("utf-8")
            time.sleep(0.1)
        raise AssertionError(self.log.read_text("utf-8"))

    def say(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def crash(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def _phone_browser(folder: Path, ns: str) -> Path:
    wrapper = folder / "phone-chromium"
    wrapper.write_text(f"#!/bin/sh\nexec ip netns exec {ns} {CHROMIUM} \"$@\"\n")
    wrapper.chmod(0o755)
    return wrapper


def _public_lines(page, after: int) -> tuple[list[str], int]:
    state = page.evaluate("async () => (await signedFetch('/api/state')).json()")
    lines = [e for e in state["log"] if not e["private"] and e["n"] > after]
    newest = max([e["n"] for e in state["log"]], default=after)
    return [e["text"] for e in lines], newest


def _in_order(expected: list[str], heard: list[str]) -> bool:
    position = 0
    for line in expected:
        try:
            position = heard.index(line, position) + 1
        except ValueError:
            return False
    return True


def _focused(page) -> str:
    return page.evaluate("() => { const a = document.activeElement; return !a || a === document.body ? 'BODY'"
                         " : a.id || a.tagName + ':' + a.textContent.trim(); }")


@pytest.mark.skipif(not AXE.exists(), reason="axe-core not installed (scripts/setup --test)")
def test_whole_game_on_a_phone_over_the_lan_with_a_crash_and_resume(lan, tmp_path):  # noqa: F811
    server_ns, phone_ns = lan
    journal = tmp_path / "game.jsonl"
    table = TableComputer(server_ns, tmp_path)
    try:
        _play(table, journal, _phone_browser(tmp_path, phone_ns), tmp_path)
    finally:
        table.stop()


def _play(table: TableComputer, journal: Path, chromium: Path, folder: Path) -> None:
    link = table.start("--journal", str(journal))
    base = f"https://{SERVER_IP}:{PORT + 1}"
    # The link names the LAN address, not 127.0.0.1 / 127.0.1.1, over HTTPS with the device's
    # key in the fragment; the board stays on plain HTTP. Typed play written to a file (no
    # terminal) leaves the QR code's block characters out.
    assert link.startswith(base + "/pair/") and "#" in link, link
    printed = table.log.read_text("utf-8")
    assert f"{base}/pin" in printed and "▀" not in printed
    assert f"http://{SERVER_IP}:{PORT}/table?tv=" in printed and "SHA-256" in printed
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium), args=FLAGS, headless=True)
        # The table's own certificate: the host accepted it once (after comparing its fingerprint).
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                      device_scale_factor=2, ignore_https_errors=True)
        phone = context.new_page()
        phone.add_init_script(RECORDER)
        phase = phone.locator("#phase")

        def floor(seat: int) -> None:
            expect(phone.locator("#moment-title")).to_contain_text(f"Игрок {seat}: речь", timeout=40_000)

        phone.goto(link)
        # Pairing makes the device's key, posts and waits for the table's answer: on a
        # loaded 2-core machine that once took longer than expect()'s 5 s default.
        expect(phone).to_have_url(base + "/", timeout=SERVER_WAIT)
        expect(phone.get_by_role("heading", name="Ведущий")).to_be_visible(timeout=SERVER_WAIT)
        # The page says "Подключение…" until the live channel's first state arrives: wait on that,
        # not on expect()'s 5 s default, which a busy machine outran once.
        expect(phase).not_to_have_text("Подключение…", timeout=SERVER_WAIT)
        expect(phase).to_contain_text("Раздача ролей", timeout=SERVER_WAIT)
        assert axe_violations(phone) == []
        assert phone.locator("#remainder").get_attribute("aria-live") == "polite"
        assert phone.locator("#conn").get_attribute("role") == "status"
        _, seen = _public_lines(phone, 0)

        # The deal (don 4, mafia 2 and 7, sheriff 6), then the meeting night.
        for label, seat in (("Дон", "4"), ("Шериф", "6"), ("Мафия (первая)", "2"), ("Мафия (вторая)", "7")):
            phone.get_by_label(label, exact=True).select_option(seat)
        phone.get_by_role("button", name="Начать игру").first.click()
        expect(phase).to_contain_text("Ночь 1", timeout=10_000)
        assert _focused(phone) != "BODY"

        # Day 1 by typed speech: 7 and 3 nominated, everyone else passes.
        floor(1)
        table.say("выставляю седьмого спасибо")
        floor(2)
        table.say("выставляю третьего спасибо")
        for seat in range(3, 11):
            floor(seat)
            table.say("спасибо")
        expect(phase).to_contain_text("Подсчёт голосов", timeout=20_000)
        status = phone.locator("#status")
        expect(status).to_contain_text("Введите голоса за игрока номер 7")
        expect(phone.locator("#vote-7")).to_be_focused()
        public, seen_now = _public_lines(phone, seen)
        heard = phone.evaluate("() => window.__polite")
        assert public and _in_order(public, heard), (public, heard)
        seen = seen_now
        phone.get_by_label("За то, чтобы ушёл игрок 7").fill("7")
        expect(phone.locator("#remainder")).to_have_text("игрок 3: 3")
        phone.get_by_role("button", name="Записать голоса").click()
        expect(phone.locator("#moment-title")).to_contain_text("Игрок 7: последнее слово", timeout=10_000)
        assert _focused(phone) != "BODY"
        table.say("спасибо")

        # Night 2: the shot, the Don's and the Sheriff's checks, each form taking the focus.
        expect(phone.locator("#shot-seat")).to_be_focused(timeout=20_000)
        phone.get_by_label("Выстрел мафии", exact=True).select_option("1")
        phone.get_by_role("button", name="Записать выстрел").click()
        expect(phone.locator("#don-seat")).to_be_focused(timeout=20_000)
        phone.get_by_label("Проверка Дона", exact=True).select_option("6")
        phone.locator("#don-form button").click()
        expect(phone.locator("#sheriff-seat")).to_be_focused(timeout=20_000)
        phone.get_by_label("Проверка Шерифа", exact=True).select_option("2")
        phone.locator("#sheriff-form button").click()

        # The night is over at once; its answers stay pinned, announced assertively only.
        expect(phase).to_contain_text("День 2", timeout=20_000)
        answers = phone.locator("#answers-list")
        expect(answers).to_contain_text("Шериф: игрок 2 — чёрный")
        expect(answers).to_contain_text("Дон: игрок 6 — Шериф")
        # Player 1, shot, names the best move: that form takes the focus, then the moment's heading
        # (not a button whose second press would change the game).
        expect(phone.locator("#bm1")).to_be_focused()
        for field, seat in (("Первый", "2"), ("Второй", "4"), ("Третий", "7")):
            phone.get_by_label(field, exact=True).select_option(seat)
        phone.get_by_role("button", name="Записать лучший ход").click()
        expect(phone.locator("#moment-title")).to_be_focused()
        # Queued, one after the other: the Sheriff's answer does not overwrite the Don's.
        expect(phone.locator("#answer-live p", has_text="Ответ ночи")).to_have_count(2, timeout=SERVER_WAIT)
        assertive = phone.evaluate("() => window.__assertive")
        assert "Ответ ночи, только вам: Шериф: игрок 2 — чёрный" in assertive, assertive
        assert "Ответ ночи, только вам: Дон: игрок 6 — Шериф" in assertive, assertive
        heard = phone.evaluate("() => window.__polite")
        assert not [line for line in heard if "чёрный" in line or "Шериф" in line and "—" in line], heard
        public, seen_now = _public_lines(phone, seen)
        assert "Доброе утро" in public and _in_order(public, heard), (public, heard)
        assert axe_violations(phone) == []
        assert small_targets(phone) == []
        phone.screenshot(path=str(folder / "phone-night-answers.png"), full_page=True)

        # Crash in the middle of day 2: the page says so and stops looking live.
        expect(phone.locator("#moment-title")).to_contain_text("Игрок 1: последнее слово")
        table.say("спасибо")
        expect(phone.locator("#moment-title")).to_contain_text(": речь", timeout=20_000)
        table.crash()
        expect(phone.locator("#conn")).to_have_text("нет связи, переподключаюсь…", timeout=10_000)
        assert phone.evaluate("() => document.getElementById('board').inert") is True
        expect(phone.locator("#clock")).to_have_text("")

        # Resumed from the journal: the phone is still paired, no PIN asked.
        table.start("--resume", str(journal))
        expect(phone.locator("#conn")).to_have_text("на связи", timeout=30_000)
        expect(phone.locator("#unpaired")).to_be_hidden()
        assert phone.evaluate("() => document.getElementById('board').inert") is False
        expect(phase).to_contain_text("День 2", timeout=SERVER_WAIT)
        # The Sheriff's answer, read from the pinned panel after the night ended and a crash.
        expect(answers).to_contain_text("Шериф: игрок 2 — чёрный")
        # ... and told again once the link is back: a reconnect drops no private answer.
        again = phone.locator("#answer-live p", has_text="Шериф: игрок 2 — чёрный")
        expect(again).to_have_count(2, timeout=SERVER_WAIT)
        _, seen = _public_lines(phone, 0)
        phone.get_by_role("button", name="Скрыть ответы ночи").click()
        expect(phone.locator("#answers")).to_be_hidden()
        assert _focused(phone) != "BODY"

        # The blacks left (2 and 4) collect four fouls each: the city wins.
        for seat in (2, 4):
            phone.locator(f"#seat-{seat}").click()
            plus = phone.get_by_role("button", name=f"Фол игроку {seat}", exact=True)
            for _ in range(4):
                plus.click()
                phone.wait_for_timeout(200)
        expect(phone.locator("#winner")).to_have_text("Стоп игра. Победа мирного города", timeout=10_000)
        public, _ = _public_lines(phone, seen)
        heard = phone.evaluate("() => window.__polite")
        assert "Стоп игра. Победа мирного города" in public and _in_order(public, heard), (public, heard)
        expect(phone.locator("#undo")).to_have_text("Отменить: фол игроку 4")
        phone.get_by_label("Лучший игрок", exact=True).select_option("6")
        phone.locator("#best-player-form button").click()
        expect(phone.locator("#points")).to_contain_text("6: ")
        assert _focused(phone) != "BODY"
        assert axe_violations(phone) == []
        phone.screenshot(path=str(folder / "phone-end.png"), full_page=True)

        # The TV view across the LAN: the winner, and no secret.
        tv = context.new_page()
        tv.goto(f"http://{SERVER_IP}:{PORT}/table")
        expect(tv.locator("#winner")).to_have_text("Стоп игра. Победа мирного города")
        assert "чёрный" not in tv.content()
        assert axe_violations(tv) == []
        browser.close()
    assert (folder / "phone-end.png").stat().st_size > 10_000
