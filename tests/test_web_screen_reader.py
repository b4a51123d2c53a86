"""Issue 30, items 6-8, in a real browser (chromium): what a screen reader is given.
A device waiting for approval is one change of its live region, not one a second,
and its buttons keep the focus; one update's lines go to the polite log in one
insertion, in their order; focus moves land on labelled targets; the page
reconnects soon after the table is back; the offline board stays readable;
typing a seat number in a seat list picks that seat."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browserparts import CHROMIUM, FLAGS, free_port
from tests.conftest import ROOT

SHORT = ["last_word_seconds=2", "speech_seconds=20", "warning_seconds=0", "number_call_seconds=0.1",
         "don_seconds=2", "sheriff_seconds=8", "vote_seconds=0.2", "tie_speech_seconds=2"]

# Every state push the page receives, counted (the host's channel is a WebSocket).
PUSHES = """
(() => {
  const Native = window.WebSocket;
  window.__pushes = 0;
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args); this.addEventListener('message', () => { window.__pushes += 1; }); }
  };
})();
"""
# Each insertion into a live region: how many nodes it added, and their lines.
INSERTIONS = """
window.__insertions = {};
document.addEventListener('DOMContentLoaded', () => {
  for (const id of ['status', 'pending']) {
    const seen = window.__insertions[id] = [];
    new MutationObserver((records) => { for (const r of records) seen.push({
      added: r.addedNodes.length, removed: r.removedNodes.length, type: r.type,
      lines: [...r.addedNodes].flatMap((n) => n.querySelector && n.querySelector('p')
        ? [...n.querySelectorAll('p')].map((p) => p.textContent) : [n.textContent])}); })
      .observe(document.getElementById(id), {childList: true, subtree: true, characterData: true,
                                             attributes: true});
  }
});
"""


@pytest.fixture
def served(tmp_path):
    port = free_port()
    args = [sys.executable, "-m", "voicehost", "serve", "--port", str(port), "--journal",
            str(tmp_path / "journal.jsonl"), "--script", str(ROOT / "tests/web/short_game.jsonl")]
    for pair in SHORT:
        args += ["--set", pair]
    log = tmp_path / "serve.log"
    proc = subprocess.Popen(args, stdout=log.open("w"), stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline, url = time.monotonic() + 30, None
    while url is None:
        assert time.monotonic() < deadline and proc.poll() is None, log.read_text("utf-8")
        match = re.search(r"Страница ведущего: (\S+)", log.read_text("utf-8"))
        url = match.group(1) if match else None
        time.sleep(0.1)
    yield url, f"http://127.0.0.1:{port}", log
    proc.terminate()
    proc.wait(timeout=10)


def _newest_pin(log) -> str:
    return re.findall(r"(?:введите PIN|новым PIN|или PIN) (\d{6})", log.read_text("utf-8"))[-1]


def _ask_with_pin(browser, base: str, log) -> None:
    laptop = browser.new_context().new_page()
    laptop.goto(base + "/pin")
    laptop.get_by_label(re.compile("^PIN из терминала")).fill(_newest_pin(log))
    laptop.get_by_role("button", name="Войти").click()
    expect(laptop.locator("#error")).to_contain_text("Код этого устройства", timeout=10_000)


def _host(browser, url: str):
    phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    phone.add_init_script(PUSHES)
    phone.add_init_script(INSERTIONS)
    phone.goto(url)
    expect(phone.locator("#conn")).to_have_text("на связи", timeout=10_000)
    return phone


def _pushes_later(page, count: int) -> None:
    """Until `count` more state pushes have reached the page (each second at least)."""
    start = page.evaluate("() => window.__pushes")
    page.wait_for_function(f"() => window.__pushes >= {start + count}", timeout=15_000)


def test_a_waiting_device_is_one_change_of_the_live_region_and_its_buttons_keep_the_focus(served):
    url, base, log = served
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        phone = _host(browser, url)
        _ask_with_pin(browser, base, log)
        pending = phone.locator("#pending")
        expect(pending).to_be_visible(timeout=10_000)
        expect(pending).to_contain_text("(по PIN)")
        assert "(pin)" not in pending.text_content() and "(link)" not in pending.text_content()
        refuse = phone.get_by_role("button", name=re.compile("^Отказать устройству"))
        refuse = phone.get_by_role("button", name=refuse.text_content(), exact=True)   # this device's, by its code
        refuse.focus()
        before = len(phone.evaluate("() => window.__insertions.pending"))
        _pushes_later(phone, 3)
        assert len(phone.evaluate("() => window.__insertions.pending")) == before, \
            "the waiting device was rendered again on a push that changed nothing"
        expect(refuse).to_be_focused()

        # A second device: one line added, nothing else touched, the focus where it was.
        _ask_with_pin(browser, base, log)
        expect(pending.locator("p")).to_have_count(2, timeout=10_000)
        _pushes_later(phone, 2)
        changes = phone.evaluate("() => window.__insertions.pending")[before:]
        assert [(c["type"], c["added"], c["removed"]) for c in changes] == [("childList", 1, 0)], changes
        assert re.match(r"Устройство с кодом \d{4} \(по PIN\)", changes[0]["lines"][0]), changes
        expect(refuse).to_be_focused()
        browser.close()


def test_one_updates_lines_are_one_insertion_in_their_order(served):
    url, base, log = served
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        phone = _host(browser, url)
        expect(phone.locator("#phase")).to_contain_text("Подсчёт голосов", timeout=10_000)
        phone.get_by_label("За то, чтобы ушёл игрок 4").fill("4")   # 4 and 4 of 8: a tie
        phone.get_by_role("button", name="Записать голоса").click()
        expect(phone.locator("#status")).to_contain_text("Голоса разделились", timeout=10_000)
        # The tie's speeches, then the re-vote: 5 votes of 8 for 4.
        expect(phone.locator("#status p", has_text="Введите голоса за игрока номер 4")).to_have_count(2, timeout=30_000)
        phone.get_by_label("За то, чтобы ушёл игрок 4").fill("5")
        phone.get_by_role("button", name="Записать голоса").click()
        phone.get_by_label("Выстрел мафии", exact=True).select_option("1", timeout=20_000)
        phone.get_by_role("button", name="Записать выстрел").click()
        phone.get_by_label("Проверка Шерифа", exact=True).select_option("2", timeout=15_000)
        phone.get_by_role("button", name="Проверить").last.click()
        expect(phone.locator("#status")).to_contain_text("Этой ночью убит игрок номер 1", timeout=30_000)
        _pushes_later(phone, 2)
        # What the region was given and the state it showed, read at one moment: a push
        # between two reads (the last word's timer runs on) would add lines to one only.
        changes, state = phone.evaluate(
            "() => [window.__insertions.status, state.log.filter((e) => !e.private).map((e) => e.text)]")
        insertions = [i for i in changes if i["added"]]
        assert all(i["added"] == 1 for i in insertions), insertions   # one update, one insertion
        said = [line for i in insertions for line in i["lines"]]
        prompts = [line for line in said if line not in state]   # the page's own tally prompts
        heard = [line for line in said if line not in prompts]
        # The page keeps the last 60 lines: what fell out of its window was heard earlier.
        kept = min(len(heard), len(state))
        assert kept > 10 and heard[len(heard) - kept:] == state[len(state) - kept:], (heard, state)
        tie = next(i["lines"] for i in insertions if any("Голоса разделились" in x for x in i["lines"]))
        split = next(n for n, x in enumerate(tie) if "Голоса разделились" in x)
        assert split == 2 and all(x.startswith("Против игрока номер") for x in tie[:split]), tie  # counts first
        morning = next(i["lines"] for i in insertions if any("убит" in x for x in i["lines"]))
        killed = next(n for n, x in enumerate(morning) if "убит" in x)
        last_word = [n for n, x in enumerate(morning) if x.startswith("Последнее слово")]
        assert last_word and all(n > killed for n in last_word), morning   # who died, then the last word
        browser.close()


def _typed_play(tmp_path, *extra: str, terminal: bool = False) -> str:
    """`run --text --serve` with its output to a file, or to a terminal (a pty): what it printed."""
    command = [sys.executable, "-m", "voicehost", "run", "--text", "--mute", "--serve", "--port", "0",
               "--journal", str(tmp_path / f"g{len(list(tmp_path.iterdir()))}.jsonl"), *extra]
    if not terminal:
        proc = subprocess.run(command, input="/quit\n", capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout
    import pty
    main, side = pty.openpty()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=side, stderr=subprocess.STDOUT)
    os.close(side)
    printed, deadline = b"", time.monotonic() + 30
    while "Оверлей".encode() not in printed:
        assert time.monotonic() < deadline, printed.decode("utf-8", "replace")
        printed += os.read(main, 65536)
    proc.communicate(b"/quit\n", timeout=30)
    os.close(main)
    return printed.decode("utf-8", "replace")


def test_the_qr_code_is_left_out_with_no_qr_and_for_typed_play_written_to_no_terminal(tmp_path):
    """The QR code's 22 lines of block characters are noise on a braille display."""
    to_file = _typed_play(tmp_path)
    assert "Страница ведущего: http" in to_file and "▀" not in to_file and "▄" not in to_file
    to_terminal = _typed_play(tmp_path, terminal=True)
    assert "Страница ведущего: http" in to_terminal and "▀" in to_terminal
    asked = _typed_play(tmp_path, "--no-qr", terminal=True)
    assert "Страница ведущего: http" in asked and "▀" not in asked


def test_after_a_link_drop_the_page_is_back_within_2_s_of_the_table(served):
    """The page's retries grew to 10 s apart: after a drop of 16 s it came back up to
    10 s after the table did."""
    url, base, log = served
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        link = {"down": False, "sockets": []}

        def channel(socket) -> None:
            if link["down"]:
                socket.close()
                return
            socket.connect_to_server()
            link["sockets"].append(socket)

        phone.route_web_socket(re.compile(r"/api/ws(\?|$)"), channel)
        phone.goto(url)
        conn = phone.locator("#conn")
        expect(conn).to_have_text("на связи", timeout=10_000)
        link["down"] = True
        for socket in link["sockets"]:
            socket.close()
        expect(conn).to_have_text("нет связи, переподключаюсь…", timeout=10_000)
        phone.wait_for_timeout(16_000)   # the drop lasts: retries that grow would be 8 s apart by now
        link["down"] = False
        back = time.monotonic()
        expect(conn).to_have_text("на связи", timeout=15_000)
        assert time.monotonic() - back <= 2.0, time.monotonic() - back
        browser.close()


# The rendered contrast of every piece of text in the board, read from its pixels: the
# darkest and the lightest pixel of each text-only element's box (its text and what is
# behind it), whatever opacity or filter the page applies.
PIXEL_CONTRAST = """async ([png, boxes]) => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + png;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = image.width; canvas.height = image.height;
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const linear = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return boxes.map(([name, x, y, w, h]) => {
    const data = context.getImageData(x, y, w, h).data;
    let low = 1, high = 0;
    for (let i = 0; i < data.length; i += 4) {
      const l = 0.2126 * linear(data[i]) + 0.7152 * linear(data[i + 1]) + 0.0722 * linear(data[i + 2]);
      low = Math.min(low, l); high = Math.max(high, l);
    }
    return [name, (high + 0.05) / (low + 0.05)];
  });
}"""
TEXT_BOXES = """() => [...document.querySelectorAll('#board *')]
  .filter((e) => !['INPUT', 'SELECT', 'OPTION', 'TEXTAREA'].includes(e.tagName) && e.offsetParent !== null
    && !e.matches(':disabled')   /* an inactive control: no contrast asked of it (WCAG 1.4.3) */
    && e.childNodes.length && [...e.childNodes].every((n) => n.nodeType === 3) && e.textContent.trim())
  .map((e) => [e.id || e.textContent.trim().slice(0, 30), e.getBoundingClientRect()])
  .filter(([, r]) => r.width > 4 && r.height > 4 && r.top >= 0 && r.bottom <= innerHeight)
  .map(([name, r]) => [name, Math.floor(r.left), Math.floor(r.top), Math.ceil(r.width), Math.ceil(r.height)])"""


def test_the_offline_board_keeps_every_text_at_4_5_to_1(served):
    """The board dimmed to opacity .55 while the link was down: its text measured 4.22:1."""
    import base64
    url, base, log = served
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        phone = browser.new_context(viewport={"width": 900, "height": 1400}).new_page()
        link = {"down": False, "sockets": []}

        def channel(socket) -> None:
            if link["down"]:
                socket.close()
                return
            socket.connect_to_server()
            link["sockets"].append(socket)

        phone.route_web_socket(re.compile(r"/api/ws(\?|$)"), channel)
        phone.goto(url)
        expect(phone.locator("#phase")).to_contain_text("Подсчёт голосов", timeout=10_000)
        link["down"] = True
        for socket in link["sockets"]:
            socket.close()
        expect(phone.locator("#board")).to_have_class(re.compile("stale"), timeout=10_000)
        boxes = phone.evaluate(TEXT_BOXES)
        assert len(boxes) > 10, boxes
        shot = base64.b64encode(phone.screenshot()).decode()
        measured = phone.evaluate(PIXEL_CONTRAST, [shot, boxes])
        low = [(name, round(ratio, 2)) for name, ratio in measured if ratio < 4.5]
        assert not low, low
        browser.close()


def test_typing_a_seat_number_in_a_seat_list_picks_that_seat(served):
    url, base, log = served
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        phone.goto(url)
        expect(phone.locator("#phase")).to_contain_text("Подсчёт голосов", timeout=10_000)
        phone.get_by_label("За то, чтобы ушёл игрок 4").fill("6")
        phone.get_by_role("button", name="Записать голоса").click()
        shot = phone.locator("#shot-seat")   # the night's seat list, focused by the page when it opens
        expect(shot).to_be_focused(timeout=20_000)
        phone.keyboard.press("3")
        expect(shot).to_have_value("3")
        phone.keyboard.press("1")
        phone.keyboard.press("0")   # within a second: seat 10, not 1 then 0
        expect(shot).to_have_value("10")
        phone.wait_for_timeout(1100)   # a pause: the next digit is a number of its own
        phone.keyboard.press("8")
        expect(shot).to_have_value("8")
        phone.keyboard.press("4")   # seat 4 left the table: not in the list, nothing changes
        expect(shot).to_have_value("8")
        browser.close()


# Every focus event: the element and its words at that moment (what a screen reader says).
FOCUSES = """
window.__focus = [];
document.addEventListener('focusin', (e) => window.__focus.push([e.target.id, e.target.textContent.trim()]), true);
"""


def _focused_name(page) -> tuple[str, str]:
    """The focused element's role and accessible name, as chromium gives them to a screen reader."""
    cdp = page.context.new_cdp_session(page)
    target = cdp.send("Runtime.evaluate", {"expression": "document.activeElement"})["result"]["objectId"]
    node = cdp.send("Accessibility.getPartialAXTree", {"objectId": target, "fetchRelatives": False})["nodes"][0]
    cdp.detach()
    return node["role"]["value"], node.get("name", {}).get("value", "")


def _moved_to_a_labelled_target(page) -> None:
    """The focus sits on an element with a name, and its last focus event said the words it
    shows now (a heading whose words changed under the focus was focused afresh)."""
    title = page.locator("#moment-title")
    role, name = _focused_name(page)
    assert role not in ("generic", "paragraph", "RootWebArea") and name.strip(), (role, name)
    last = page.evaluate("() => window.__focus[window.__focus.length - 1]")
    if last[0] == "moment-title":
        assert last[1] == title.text_content().strip() == name, (last, name)


def test_focus_moves_after_the_shot_and_the_revote_land_on_labelled_targets(served):
    url, base, log = served
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        phone.add_init_script(FOCUSES)
        phone.goto(url)
        title = phone.locator("#moment-title")
        expect(phone.locator("#phase")).to_contain_text("Подсчёт голосов", timeout=10_000)
        phone.get_by_label("За то, чтобы ушёл игрок 4").fill("4")   # a tie, then the re-vote
        phone.get_by_role("button", name="Записать голоса").click()
        expect(phone.locator("#status p", has_text="Введите голоса за игрока номер 4")).to_have_count(2, timeout=30_000)
        phone.get_by_label("За то, чтобы ушёл игрок 4").fill("5")
        phone.get_by_role("button", name="Записать голоса").click()
        expect(title).to_have_text("Игрок 4: последнее слово", timeout=10_000)
        _moved_to_a_labelled_target(phone)

        phone.get_by_label("Выстрел мафии", exact=True).select_option("1", timeout=20_000)
        phone.get_by_role("button", name="Записать выстрел").click()
        expect(title).to_have_text("проверка Дона", timeout=10_000)   # the shot entered, the Don's window now
        phone.wait_for_function("() => window.__focus.length && document.activeElement.id === 'moment-title'")
        _moved_to_a_labelled_target(phone)
        browser.close()
