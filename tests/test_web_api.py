"""The companion page's API and access rules, with aiohttp's test client:
pairing, PIN lockout, Host/Origin/CSRF checks, headers, validation through the
moderator, undo, downloads — and nothing public ever carries a secret."""
from __future__ import annotations

import asyncio
import json
import re
import time

from tests.conftest import ROLES, run_async, until
from tests.webparts import SECRETS, in_words, page, paired, pin_request, post
from voicehost.game.model import Phase
from voicehost.live import LiveTable
from voicehost.web.server import HUB, STATIC


def test_no_cookie_is_401():
    async def go():
        async with page() as (client, live, access):
            for path in ("/api/state", "/api/protocol.json", "/api/protocol.csv", "/"):
                assert (await client.get(path)).status == 401, path
            assert (await post(client, "/api/input", {"type": "foul", "seat": 1}, csrf="x")).status == 401
            assert (await client.get("/api/ws", headers={"Origin": client.origin})).status == 401
    run_async(go())


def test_pairing_token_is_one_time_and_leaves_the_url():
    async def go():
        async with page() as (client, live, access):
            token = access.token
            state = await paired(client, access)
            assert state["phase_id"] == "mafia_meeting" and state["csrf"]
            assert access.token != token  # spent; a fresh one for the next device
            client.session.cookie_jar.clear()
            spent = await client.post(f"/pair/{token}", headers={"Origin": client.origin})
            assert spent.status == 401 and "Ссылка уже использована" in (await spent.json())["error"]
            assert (await client.get("/api/state")).status == 401
    run_async(go())


def test_wrong_pins_slow_down_only_that_client_with_a_growing_pause():
    async def go():
        async with page() as (client, live, access):
            now = [1000.0]
            access.clock = lambda: now[0]
            wrong = "000000" if access.pin != "000000" else "111111"

            async def try_pin(pin: str):
                response, _ = await pin_request(client, pin)
                return response.status, (await response.json()).get("error", "")

            assert await try_pin(wrong) == (401, "Неверный PIN; попыток до паузы: 2")
            assert await try_pin(wrong) == (401, "Неверный PIN; попыток до паузы: 1")
            assert await try_pin(wrong) == (429, "Слишком много неверных PIN: подождите 5 с")
            # Even the right PIN waits out the pause, then works.
            assert (await try_pin(access.pin))[0] == 429
            now[0] += 5
            assert (await try_pin(wrong)) == (429, "Слишком много неверных PIN: подождите 10 с")
            now[0] += 10
            status, _ = await try_pin(access.pin)
            assert status == 200 and (await client.get("/api/state")).status == 200
            # Another client (another address) is not paused by this one's own count.
            assert access.pin_wait("127.0.0.1") == 0
            access.failures["10.0.0.66"] = (9, now[0] + 600)
            assert access.pin_wait("127.0.0.1") == 0 and access.pin_wait("10.0.0.66") == 600
    run_async(go())


def test_bad_pin_bodies_are_refused_in_words_and_count_as_wrong_pins():
    async def go():
        async with page() as (client, live, access):
            pin = access.pin
            for body, kind, status in [(b"pin=12", "application/x-www-form-urlencoded", 400),
                                       (b"\xff\xfe", "text/plain", 400),
                                       (b"[" * 5000, "application/json", 413)]:
                response = await client.post("/pin", data=body, headers={"Origin": client.origin,
                                                                         "Content-Type": kind})
                assert response.status == status, body[:20]
                assert in_words((await response.json())["error"])
            # Three malformed bodies are three wrong PINs: this client now waits.
            assert access.failures["127.0.0.1"][0] == 3 and access.pin_wait("127.0.0.1") > 0
            assert access.wrong_in_all == 3 and access.pin == pin
            response = await client.post("/pin", data=b'{"pin": 123456}', headers={
                "Origin": client.origin, "Content-Type": "application/json"})
            assert response.status == 429 and in_words((await response.json())["error"])
    run_async(go())


def test_foreign_origin_and_host_are_refused():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            evil = await post(client, "/api/input", {"type": "foul", "seat": 1}, state["csrf"],
                              origin="http://evil.example")
            assert evil.status == 403
            no_origin = await client.post("/api/input", json={"type": "foul", "seat": 1},
                                          headers={"X-CSRF-Token": state["csrf"]})
            assert no_origin.status == 403
            ws = await client.get("/api/table/ws", headers={"Origin": "http://evil.example"})
            assert ws.status == 403
            rebinding = await client.get("/table", headers={"Host": "attacker.example:80"})
            assert rebinding.status == 421
            assert live.game.fouls[1] == 0
    run_async(go())


def test_csrf_token_required_on_posts():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            assert (await post(client, "/api/input", {"type": "foul", "seat": 1})).status == 403
            assert (await post(client, "/api/input", {"type": "foul", "seat": 1}, "wrong")).status == 403
            good = await post(client, "/api/input", {"type": "foul", "seat": 1}, state["csrf"])
            assert good.status == 200 and live.game.fouls[1] == 1
    run_async(go())


def test_security_headers_everywhere():
    async def go():
        async with page() as (client, live, access):
            for path in ("/table", "/api/table", "/pin", "/static/host.js", "/"):
                response = await client.get(path)
                csp = response.headers.get("Content-Security-Policy", "")
                assert csp.startswith("default-src 'self'"), path
                assert response.headers["X-Content-Type-Options"] == "nosniff"
                assert response.headers["X-Frame-Options"] == "DENY"
    run_async(go())


def test_assets_are_local_only():
    for path in STATIC.iterdir():
        text = path.read_text("utf-8")
        assert not re.search(r"(src|href)=\"(https?:)?//", text), path.name
        assert "<script>" not in text and " style=" not in text and "onclick" not in text, path.name


def test_invalid_input_is_4xx_with_the_reason_and_changes_nothing():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            csrf = state["csrf"]
            until(live, Phase.SPEECH)
            live.hear([])
            for body, status, needle in [
                ({"type": "votes", "counts": {"7": 3}}, 409, ""),
                ({"type": "foul", "seat": 11}, 400, "Нужен номер игрока от 1 до 10, а не «11»"),
                ({"type": "dance"}, 400, "Это не действие ведущего: «dance»"),
                ({"type": "word", "word": "спасибо", "start": 1, "end": 2}, 400, "Это не действие ведущего"),
                ({"type": "best_player", "seat": 3}, 409, ""),
                ({"type": "shot", "seat": 5}, 409, ""),
            ]:
                before = await (await client.get("/api/state")).json()
                response = await post(client, "/api/input", body, csrf)
                assert response.status == status, body
                error = (await response.json())["error"]
                assert needle in error and in_words(error), error
                after = await (await client.get("/api/state")).json()
                for key in ("seats", "nominations", "phase_id", "votes", "out", "log"):
                    assert before[key] == after[key], key
            bad_json = await client.post("/api/input", data="{", headers={
                "Origin": client.origin, "X-CSRF-Token": csrf, "Content-Type": "application/json"})
            assert bad_json.status == 400
    run_async(go())


def test_vote_entry_and_undo_through_the_page():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            csrf = state["csrf"]
            until(live, Phase.SPEECH)
            live.hear(_words(live, "выставляю седьмого спасибо"))
            live.hear(_words(live, "выставляю третьего спасибо"))
            until(live, Phase.VOTING)   # the TV says whose vote is running
            assert (await (await client.get("/api/state")).json())["voting_for"] == 7
            until(live, Phase.TALLY)
            state = await (await client.get("/api/state")).json()
            assert state["candidates"] == [7, 3] and state["voters"] == 10 and state["voting_for"] is None
            response = await post(client, "/api/input", {"type": "votes", "counts": {"7": 7}}, csrf)
            assert response.status == 200
            assert (await response.json())["out"] == [7]
            last = (await response.json())["last_input"]
            assert last["text"] == "голоса (7: 7)"
            # A tab that saw an older last input cannot undo this one by accident.
            stale = await post(client, "/api/undo", {"n": last["n"] - 1}, csrf)
            assert stale.status == 409
            assert "Последнее действие уже другое (голоса (7: 7))" in (await stale.json())["error"]
            assert 7 not in live.game.alive
            undo = await post(client, "/api/undo", {"n": last["n"]}, csrf)
            body = await undo.json()
            assert undo.status == 200 and body["undone"]["type"] == "votes"
            assert body["message"] == "Отменено: голоса (7: 7)"
            assert live.game.phase is Phase.TALLY and 7 in live.game.alive
            foul = await post(client, "/api/input", {"type": "foul", "seat": 2}, csrf)
            undo = await post(client, "/api/undo", {"n": (await foul.json())["last_input"]["n"]}, csrf)
            assert (await undo.json())["message"] == "Отменено: фол игроку 2" and live.game.fouls[2] == 0
    run_async(go())


def _words(live: LiveTable, text: str):
    from voicehost.phrases.words import words_from_text

    return [w.shifted(live.game.now) for w in words_from_text(text)]


def test_forbidden_word_suggestion_with_one_tap_foul():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            until(live, Phase.SPEECH)
            live.hear(_words(live, "я честно мирный"))
            state = await (await client.get("/api/state")).json()
            (hint,) = state["suggestions"]
            assert (hint["seat"], hint["word"], hint["suggest"]) == (1, "честно", "foul")
            assert live.game.fouls[1] == 0  # never applied by itself
            response = await post(client, "/api/input", {"type": "foul", "seat": 1, "suggestion": hint["id"]},
                                  state["csrf"])
            assert response.status == 200 and live.game.fouls[1] == 1
            assert (await response.json())["suggestions"] == []
    run_async(go())


def test_roles_hidden_until_revealed():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            assert all("role" not in seat for seat in state["seats"])
            shown = await (await post(client, "/api/reveal", {"show": True}, state["csrf"])).json()
            assert [s["role"] for s in shown["seats"]][:4] == ["citizen", "mafia", "citizen", "don"]
    run_async(go())


def test_roles_revealed_stay_revealed_on_the_live_channel():
    """The socket kept the session it connected with: the next push after
    "Показать роли" hid the roles again until the page was reloaded."""
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            ws = await client.ws_connect("/api/ws", headers={"Origin": client.origin})
            first = json.loads(await asyncio.wait_for(ws.receive_str(), 5))["state"]
            assert all("role" not in seat for seat in first["seats"])
            await post(client, "/api/reveal", {"show": True}, state["csrf"])
            assert (await post(client, "/api/input", {"type": "foul", "seat": 3}, state["csrf"])).status == 200
            while True:   # the push the foul makes
                message = json.loads(await asyncio.wait_for(ws.receive_str(), 5))
                pushed = message.get("state", {})
                if pushed and pushed["seats"][2]["fouls"] == 1:
                    break
            assert [s["role"] for s in pushed["seats"]][:4] == ["citizen", "mafia", "citizen", "don"]
            await ws.close()
    run_async(go())


def test_a_check_entered_closes_its_form_and_the_mafias_count_is_not_written():
    """After /don 6 the check form stayed until the window ended; the public
    log filled with the count's bare numbers ("6 7 8")."""
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            csrf = state["csrf"]
            until(live, Phase.HUNT)
            await post(client, "/api/input", {"type": "shot", "seat": 5}, csrf)
            until(live, Phase.DON_CHECK)
            before = await (await client.get("/api/state")).json()
            assert before["checked"] == []
            assert (await post(client, "/api/input", {"type": "don_check", "seat": 6}, csrf)).status == 200
            after = await (await client.get("/api/state")).json()
            assert after["phase_id"] == "don_check" and after["checked"] == ["don"]
            said = [line["text"] for line in after["log"]]
            assert said and not any(text.strip().isdigit() for text in said), said
    run_async(go())


def test_protocol_downloads():
    async def go():
        async with page() as (client, live, access):
            await paired(client, access)
            data = await (await client.get("/api/protocol.json")).json()
            assert data["ruleset"] == "4mafia" and set(data["points"]) == {str(s) for s in range(1, 11)}
            csv_text = await (await client.get("/api/protocol.csv")).text()
            assert csv_text.splitlines()[0] == "место,игрок,роль,баллы,фолы,выбыл,причина,когда"
    run_async(go())


def test_table_view_never_carries_a_secret():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            csrf = state["csrf"]
            await post(client, "/api/reveal", {"show": True}, csrf)
            until(live, Phase.HUNT)
            await post(client, "/api/input", {"type": "shot", "seat": 5}, csrf)
            until(live, Phase.DON_CHECK)
            seen = []
            ws = await client.ws_connect("/api/table/ws", headers={"Origin": client.origin})
            seen.append(await asyncio.wait_for(ws.receive_str(), 5))
            assert (await post(client, "/api/input", {"type": "don_check", "seat": 6}, csrf)).status == 200
            until(live, Phase.SHERIFF_CHECK)   # the don's window runs its full time (SPEC §5)
            assert (await post(client, "/api/input", {"type": "sheriff_check", "seat": 2}, csrf)).status == 200
            host = await (await client.get("/api/state")).json()
            assert "Шериф" in json.dumps(host, ensure_ascii=False)  # the host does see the answers
            until(live, Phase.LAST_WORD)
            await asyncio.sleep(0.05)
            seen.append(await asyncio.wait_for(ws.receive_str(), 5))
            await ws.close()
            for path in ("/table", "/api/table", "/overlay", "/overlay/not-the-key", "/static/table.js",
                         "/static/common.js", "/static/style.css"):
                seen.append(await (await client.get(path)).text())
            client.session.cookie_jar.clear()
            for path in ("/", "/api/state", "/pin", "/pair/wrong", "/api/protocol.json", "/api/texts"):
                seen.append(await (await client.get(path)).text())
            for text in seen:
                decoded = json.dumps(json.loads(text), ensure_ascii=False) if text.startswith("{") else text
                assert not SECRETS.search(decoded), SECRETS.search(decoded)
    run_async(go())


def test_the_deal_can_be_entered_on_the_page():
    async def go():
        async with page(setup=False) as (client, live, access):
            state = await paired(client, access)
            assert state["phase_id"] == "setup"
            bad = await post(client, "/api/input", {"type": "setup", "roles": {"1": "don"}}, state["csrf"])
            assert bad.status == 409 and in_words((await bad.json())["error"])
            good = await post(client, "/api/input", {"type": "setup", "roles": ROLES}, state["csrf"])
            assert good.status == 200 and (await good.json())["phase_id"] == "mafia_meeting"
    run_async(go())


def test_the_board_labels_each_vote_round_and_shows_nothing_of_the_night():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            csrf = state["csrf"]
            until(live, Phase.SPEECH)
            for text in ("выставляю седьмого спасибо", "выставляю третьего спасибо", "выставляю девятого спасибо"):
                live.hear(_words(live, text))
            until(live, Phase.TALLY)
            board = await (await client.get("/api/table")).json()
            assert [n["label"] for n in board["nominees"]] == ["Игрок 7", "Игрок 3", "Игрок 9"]
            assert [n["by"] for n in board["nominees"]] == [1, 2, 3]
            # The counts in the candidates' order (a JSON object would be re-sorted by the page).
            assert (await post(client, "/api/input", {"type": "votes", "counts": {"7": 4, "3": 4}}, csrf)).status == 200
            board = await (await client.get("/api/table")).json()
            assert [r["text"] for r in board["rounds"]] == ["Голосование: 7 — 4, 3 — 4, 9 — 2"]
            assert board["rounds"][0]["counts"] == [[7, 4], [3, 4], [9, 2]]
            until(live, Phase.TALLY)  # the tie speeches, then the re-vote
            assert (await post(client, "/api/input", {"type": "votes", "counts": {"7": 6}}, csrf)).status == 200
            board = await (await client.get("/api/table")).json()
            assert [r["text"] for r in board["rounds"]][1] == "Переголосование: 7 — 6, 3 — 4"
            until(live, Phase.HUNT)
            board = await (await client.get("/api/table")).json()
            assert board["phase"] == "Ночь" and board["is_night"]
            assert board["rounds"] == board["nominees"] == board["votes"] == [] and board["floor"] is None
            assert board["captions"] is None
            out = {s["seat"]: s.get("out") for s in board["seats"]}
            assert out[7] == {"cause": "vote", "how": "голосование", "when": "день 1"}
            assert all(out[s] is None for s in out if s != 7)
    run_async(go())


def test_captions_carry_the_speakers_words_with_the_accepted_nomination_marked():
    async def go():
        async with page() as (client, live, access):
            await paired(client, access)
            until(live, Phase.SPEECH)
            live.hear(_words(live, "я думаю выставляю седьмого"))
            board = await (await client.get("/api/table")).json()
            caption = board["captions"]
            assert caption["seat"] == 1 and caption["source"] == "rules"
            texts = [item["text"] for item in caption["items"]]
            assert "выставляю" in texts and "седьмого" in texts
            marked = [item for item in caption["items"] if item.get("nominated")]
            assert [(m["nominated"], m["text"]) for m in marked] == [(7, "выставлен игрок 7")]
            assert texts.index("выставлен игрок 7") > texts.index("седьмого")
            host = await (await client.get("/api/state")).json()
            assert host["captions"] == caption
    run_async(go())


def test_captions_show_every_word_the_captions_recognizer_heard_when_one_runs():
    """`[asr] captions`: the open recognizer's words (the ones the rules hear
    as [unk] too), from the speech's start, the table's own voice left out;
    the nomination marked as before."""
    from tests.fakes import FakeSpeaker
    from voicehost.phrases.words import Word, words_from_text

    async def go():
        async with page() as (client, live, access):
            await paired(client, access)
            until(live, Phase.SPEECH)
            start = live.game.floor.start
            live.speaker = FakeSpeaker()
            live.speaker.echo.append((start + 0.9, start + 1.3))
            heard = [Word("раньше", start - 2.0, start - 1.5), Word("я", start + 0.2, start + 0.4),
                     Word("думаю,", start + 0.4, start + 0.8), Word("принят", start + 1.0, start + 1.2),
                     Word("[unk]", start + 1.4, start + 1.5), Word("честное", start + 1.6, start + 2.0)]
            live.open_captions = lambda: heard
            live.hear(w.shifted(start + 2.2) for w in words_from_text("выставляю седьмого"))
            caption = (await (await client.get("/api/table")).json())["captions"]
            assert caption["source"] == "open"
            assert [item["text"] for item in caption["items"]] == ["я", "думаю", "честное", "выставлен игрок 7"]
            # captions that failed: the rule words, as the journal keeps them
            live.open_captions = lambda: None
            caption = (await (await client.get("/api/table")).json())["captions"]
            assert caption["source"] == "rules"
            assert [item["text"] for item in caption["items"]] == ["выставляю", "седьмого", "выставлен игрок 7"]
    run_async(go())


def test_a_speech_the_host_typed_is_captioned_while_the_captions_recognizer_runs():
    async def go():
        async with page() as (client, live, access):
            await paired(client, access)
            until(live, Phase.SPEECH)
            live.open_captions = lambda: []
            seat = live.game.floor.seat
            live.apply_json({"type": "speech", "seat": seat, "words": [
                {"word": "я", "start": 0.0, "end": 0.2}, {"word": "думаю", "start": 0.3, "end": 0.6}]})
            caption = (await (await client.get("/api/table")).json())["captions"]
            assert caption["seat"] == seat and [item["text"] for item in caption["items"]] == ["я", "думаю"]
    run_async(go())


def test_the_overlays_roles_mode_is_only_behind_its_link_and_delayed():
    async def go():
        async with page() as (client, live, access):
            hub = client.server.app[HUB]
            assert hub.overlay_delay == 60  # the default
            public = await client.get("/overlay")
            assert public.status == 200 and not SECRETS.search(await public.text())
            for path in ("/overlay/wrong", "/overlay/" + hub.overlay_token[:-1], "/api/overlay/wrong/ws",
                         "/overlay/" + "x" * 5000, "/overlay/%ED%A0%80", "/api/overlay/%ED%A0%80/ws"):
                response = await client.get(path, headers={"Origin": client.origin})
                assert response.status == 404, path
                assert not SECRETS.search(await response.text())
            # Delayed: until 60 s have passed, the roles mode shows a waiting board only.
            # (The page's own pump records on its clock; here the test's clock alone.)
            record = hub.record_overlay
            hub.record_overlay = lambda now=None: record(now) if now is not None else None
            hub.overlay_history.clear()
            # The test's moments lie before the real clock's now, whatever the machine's
            # uptime: the channel below reads the real clock (a fresh CI machine's
            # monotonic clock once stood between them, and the view was still waiting).
            t0 = time.monotonic() - 500.0
            hub.record_overlay(now=t0)
            waiting = json.loads(hub.overlay_view(now=t0 + 59))
            assert waiting["waiting"] and waiting["phase"] == "Трансляция ролей идёт с задержкой 60 с"
            assert not SECRETS.search(json.dumps(waiting, ensure_ascii=False))
            shown = json.loads(hub.overlay_view(now=t0 + 60))
            assert [s["role"] for s in shown["seats"]][:4] == ["citizen", "mafia", "citizen", "don"]
            assert shown["seats"][3]["role_name"] == "дон" and shown["roles_mode"]
            # A later change reaches the roles mode only once it is 60 s old.
            live.apply_json({"type": "foul", "seat": 5})
            hub.record_overlay(now=t0 + 70)
            assert json.loads(hub.overlay_view(now=t0 + 129))["seats"][4]["fouls"] == 0
            assert json.loads(hub.overlay_view(now=t0 + 130))["seats"][4]["fouls"] == 1
            hub.record_overlay(now=t0 + 200)
            assert len(hub.overlay_history) == 1  # what no view will show any more is forgotten
            # Through its link: the page, and the live channel with the (delayed) roles.
            hub.overlay_delay = 0
            roles_page = await client.get("/overlay/" + hub.overlay_token)
            assert roles_page.status == 200 and hub.overlay_token not in await roles_page.text()
            ws = await client.ws_connect(f"/api/overlay/{hub.overlay_token}/ws", headers={"Origin": client.origin})
            first = json.loads(await asyncio.wait_for(ws.receive_str(), 5))
            await ws.close()
            assert first["state"]["seats"][3]["role"] == "don"
            # The public overlay's channel is the table's: no role in it.
            ws = await client.ws_connect("/api/table/ws", headers={"Origin": client.origin})
            public_state = await asyncio.wait_for(ws.receive_str(), 5)
            await ws.close()
            assert not SECRETS.search(json.dumps(json.loads(public_state), ensure_ascii=False))
    run_async(go())


def test_the_overlay_delay_is_a_setting(tmp_path):
    from voicehost.config import load_config
    from voicehost.errors import ConfigError

    path = tmp_path / "config.toml"
    path.write_text("[web]\noverlay_delay = 90\n", "utf-8")
    assert load_config(path).web.overlay_delay == 90
    path.write_text("[web]\noverlay_delay = -1\n", "utf-8")
    try:
        load_config(path)
    except ConfigError as exc:
        assert "overlay_delay" in str(exc)
    else:
        raise AssertionError("a negative delay was taken")


def test_the_host_nominates_by_hand_from_the_page():
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            until(live, Phase.SPEECH)
            state = await (await client.get("/api/state")).json()
            assert state["can_nominate"] is True and state["nominations"] == []
            answer = await post(client, "/api/input", {"type": "nominate", "seat": 7}, state["csrf"])
            assert answer.status == 200 and (await answer.json())["nominations"] == [7]
            again = await post(client, "/api/input", {"type": "nominate", "seat": 8}, state["csrf"])
            assert again.status == 409 and "уже выставлял" in (await again.json())["error"]
    run_async(go())


def test_a_reveal_holds_on_the_live_channel():
    """Issue 32: "Показать роли" answered with the roles, but the next push on
    the live channel (which keeps the session it connected with) hid them again."""
    async def go():
        async with page() as (client, live, access):
            state = await paired(client, access)
            ws = await client.ws_connect("/api/ws", headers={"Origin": client.origin})
            first = json.loads(await asyncio.wait_for(ws.receive_str(), 5))["state"]
            assert all("role" not in seat for seat in first["seats"])
            shown = await (await post(client, "/api/reveal", {"show": True}, state["csrf"])).json()
            assert shown["reveal_roles"] is True
            await post(client, "/api/input", {"type": "foul", "seat": 2}, state["csrf"])   # a push follows
            deadline = asyncio.get_running_loop().time() + 30
            while True:
                pushed = json.loads(await asyncio.wait_for(ws.receive_str(), 30))["state"]
                if pushed["seats"][1]["fouls"] == 1:
                    break
                assert asyncio.get_running_loop().time() < deadline
            assert pushed["reveal_roles"] is True
            assert [s["role"] for s in pushed["seats"]][:4] == ["citizen", "mafia", "citizen", "don"]
            await ws.close()
    run_async(go())


def test_the_page_deals_at_random_and_shows_the_host_the_deal():
    """Issue 32: the page's own random deal (POST /api/deal), as typed /deal:
    ten seats, 6 citizens, 2 mafia, a don and a sheriff, journaled as a setup,
    shown to the device that asked; refused once the roles are dealt."""
    async def go():
        async with page(setup=False) as (client, live, access):
            state = await paired(client, access)
            dealt = await post(client, "/api/deal", {}, state["csrf"])
            assert dealt.status == 200, await dealt.text()
            body = await dealt.json()
            assert sorted(body["deal"].values()) == sorted(["citizen"] * 6 + ["mafia"] * 2 + ["don", "sheriff"])
            assert body["phase_id"] == "mafia_meeting" and body["reveal_roles"] is True
            assert {str(s["seat"]): s["role"] for s in body["seats"]} == body["deal"]
            assert live.entries[-1].event == {"type": "setup", "roles": body["deal"]}
            again = await post(client, "/api/deal", {}, state["csrf"])
            assert again.status == 409 and in_words((await again.json())["error"])
            assert (await post(client, "/api/deal", {})).status == 403      # a host's page only (CSRF)
    run_async(go())
