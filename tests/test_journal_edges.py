"""The journal's last edges (issue 18, F1-F6): outputs that would overwrite a
journal, damage told from a torn write, a failed fsync cut back off, a journal
deleted or moved mid-game written anew, keyed checks and a game identity, and
a torn header that leads somewhere. Each test failed before its fix."""
from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GAMES, ROLES
from tests.fakes import FakeSpeaker
from voicehost.cli import main
from voicehost.errors import JournalError, JournalWriteError
from voicehost.game.events import parse_event
from voicehost.game.moderator import new_game
from voicehost.game.protocol import snapshot
from voicehost.journal import Journal, Table, replay, resume_table, scan_file
from voicehost.journal.keys import key_path
from voicehost.journal.lines import TornHeader, encode_line, entry_hash
from voicehost.rules import rules_for

RULES = rules_for("4mafia")
GAME = GAMES / "red_wins_by_votes.jsonl"


def _one_line(message: str) -> None:
    assert message.strip() and "\n" not in message.strip() and "Traceback" not in message


def _simulated(tmp: Path, capsys, name: str = "j.jsonl") -> Path:
    path = tmp / name
    assert main(["simulate", str(GAME), "--journal", str(path)]) == 0
    capsys.readouterr()
    return path


def _refused(argv: list[str], capsys, *words: str) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    _one_line(err)
    for word in words:
        assert word in err, err
    return err


def _table(path: Path) -> Table:
    table = Table(new_game(RULES), Journal(path, RULES, fsync=True))
    table.apply(parse_event({"type": "setup", "roles": ROLES}), 0.0)
    table.advance(90.0)
    return table


def _foul(table: Table, seat: int, t: float) -> None:
    table.apply(parse_event({"type": "foul", "seat": seat}), t)


# ------------------------------------------------------------------ F1: outputs


def test_simulate_refuses_an_existing_journal_as_its_journal_or_protocol(tmp_path, capsys):
    journal = _simulated(tmp_path, capsys)
    before = journal.read_bytes()
    _refused(["simulate", str(GAME), "--journal", str(journal)], capsys, "voicehost journal", str(journal))
    _refused(["simulate", str(GAME), "--protocol", str(journal)], capsys, "voicehost journal")
    _refused(["simulate", str(GAME), "--protocol", str(key_path(journal))], capsys, "journal's key")
    assert journal.read_bytes() == before and replay(journal)[0].winner == "red"


def test_simulate_refuses_one_file_for_both_outputs_and_the_script_as_an_output(tmp_path, capsys):
    same = tmp_path / "same.jsonl"
    _refused(["simulate", str(GAME), "--journal", str(same), "--protocol", str(same)], capsys, "same file")
    assert not same.exists()
    script = tmp_path / "script.jsonl"
    shutil.copy(GAME, script)
    _refused(["simulate", str(script), "--protocol", str(script)], capsys, "same file", "the script")
    assert script.read_bytes() == GAME.read_bytes()


def test_replay_and_export_never_write_over_their_journal_or_another(tmp_path, capsys):
    journal = _simulated(tmp_path, capsys)
    other = _simulated(tmp_path, capsys, "other.jsonl")
    before, other_before = journal.read_bytes(), other.read_bytes()
    _refused(["replay", str(journal), "--protocol", str(journal)], capsys, "same file")
    _refused(["replay", str(journal), "--protocol", str(other)], capsys, "voicehost journal")
    _refused(["export", str(journal), "--format", "polemica", "-o", str(journal)], capsys, str(journal))
    _refused(["export", str(journal), "--format", "polemica", "-o", str(other)], capsys, "voicehost journal")
    # a symlink to the journal is the journal
    link = tmp_path / "link.json"
    link.symlink_to(journal)
    _refused(["replay", str(journal), "--protocol", str(link)], capsys, "same file")
    assert journal.read_bytes() == before and other.read_bytes() == other_before
    assert main(["replay", str(journal), "--protocol", str(tmp_path / "p.json")]) == 0


def _run(tmp: Path, *args: str, stdin: str = "/quit\n") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "voicehost", "run", "--text", "--mute", *args],
                          input=stdin, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "HOME": str(tmp)})


@pytest.mark.parametrize("outputs", [
    ["--journal", "{k}", "--protocol", "{k}"],
    ["--resume", "{j}", "--protocol", "{j}"],
    ["--journal", "{k}", "--protocol", "{j}"],                  # another game's journal
    ["--resume", "{j}", "--protocol", "{j}.key"],              # the game's own key
    ["--journal", "{k}", "--protocol", "{k}.devices"],         # its paired devices
    ["--journal", "{k}", "--record", "{k}"],
], ids=["journal-is-protocol", "resume-is-protocol", "protocol-is-another-journal", "protocol-is-the-key",
        "protocol-is-the-devices-file", "record-is-the-journal"])
def test_run_refuses_an_output_that_is_a_journal_or_another_output_before_the_deal(outputs, tmp_path, capsys):
    journal = _simulated(tmp_path, capsys)
    before = journal.read_bytes()
    args = [a.format(j=journal, k=tmp_path / "k.jsonl") for a in outputs]
    proc = _run(tmp_path, *args, stdin="/roles d4 m2 m7 s6\n/quit\n")
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout
    _one_line(proc.stderr)
    assert proc.stderr.startswith("voicehost run: ")
    assert journal.read_bytes() == before and not (tmp_path / "k.jsonl").exists()
    assert replay(journal)[0].winner == "red"


@pytest.mark.parametrize("head", [b'{"journal": 3, "ruleset": "4mafia"}\n', b'{"journal":5,"ga', b"{",
                                  b' {"journal":4'])
def test_any_journal_header_even_torn_or_spaced_is_no_output(head, tmp_path):
    from voicehost.errors import InputError
    from voicehost.files import output_file

    path = tmp_path / "old.jsonl"
    path.write_bytes(head)
    with pytest.raises(InputError, match="voicehost journal"):
        output_file(path, "--protocol")
    output_file(path, "--journal", journal=True)   # a new game's journal has its own check (check_new)


def test_a_hard_link_to_an_output_is_the_same_file(tmp_path):
    from voicehost.errors import InputError
    from voicehost.files import apart

    first = tmp_path / "a.json"
    first.write_text("{}")
    os.link(first, tmp_path / "b.json")
    with pytest.raises(InputError, match="same file"):
        apart({"--protocol": first, "--record": tmp_path / "b.json"})
    apart({"--protocol": first, "--record": tmp_path / "c.wav"})


def test_a_protocol_written_at_the_end_never_replaces_a_journal_made_there_since(tmp_path):
    from voicehost.live.ending import ProtocolWriteError, _write

    journal = tmp_path / "j.jsonl"
    Journal(journal, RULES).close()
    before = journal.read_bytes()
    with pytest.raises(ProtocolWriteError, match="voicehost journal"):
        _write(journal, "{}")
    assert journal.read_bytes() == before


def test_the_rating_records_beside_the_protocol_never_replace_a_journal(tmp_path, capsys):
    from voicehost.export import export_path, load_table, write_exports

    table, ended = load_table(_simulated(tmp_path, capsys))
    protocol = tmp_path / "p.json"
    taken = export_path(protocol, "mafiaratings")
    Journal(taken, RULES).close()
    before = taken.read_bytes()
    with pytest.raises(OSError, match="voicehost journal"):
        write_exports(table, protocol, ended)
    assert taken.read_bytes() == before


# ------------------------------------------------------------------ F2: damage, not a torn write


def test_a_damaged_final_line_is_refused_by_replay_and_export_not_dropped(tmp_path, capsys):
    journal = _simulated(tmp_path, capsys)
    lines = journal.read_bytes().split(b"\n")[:-1]
    number = max(i for i, line in enumerate(lines, 1) if b'"type":"votes"' in line)
    damaged = bytearray(b"\n".join(lines[:number]) + b"\n")
    at = damaged.rindex(b'"counts"') + 2
    damaged[at] ^= 0x80                 # not UTF-8 any more: it did "cut as torn" before
    journal.write_bytes(bytes(damaged))
    _refused(["replay", str(journal)], capsys, f":{number}: ", "damaged line")
    _refused(["export", str(journal), "--format", "mafiaratings"], capsys, f":{number}: ")
    with pytest.raises(JournalError, match=f":{number}: "):
        resume_table(journal)
    assert journal.read_bytes() == bytes(damaged)


# ------------------------------------------------------------------ F3: a failed fsync


def _fsync_fails_once(monkeypatch, code: int = errno.EIO) -> list[int]:
    import voicehost.journal.writer as writer

    real, calls = os.fsync, []

    def fsync(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 1:
            raise OSError(code, os.strerror(code))
        real(fd)
    monkeypatch.setattr(writer.os, "fsync", fsync)
    return calls


def test_an_input_refused_by_an_fsync_error_is_cut_off_and_never_replayed(monkeypatch, tmp_path):
    path = tmp_path / "j.jsonl"
    table = _table(path)
    _foul(table, 3, 91.0)
    before = path.read_bytes()
    calls = _fsync_fails_once(monkeypatch)
    with pytest.raises(JournalWriteError, match="Input/output error") as caught:
        _foul(table, 5, 92.0)
    _one_line(str(caught.value))
    assert "stands recorded up to the last accepted input" in str(caught.value)
    assert len(calls) == 2                 # the failed sync, then the cut's own
    assert path.read_bytes() == before     # the refused foul is not in the journal
    monkeypatch.undo()
    table.close()
    resumed, _, journal = resume_table(path)
    assert resumed.game.fouls[5] == 0 and resumed.game.fouls[3] == 1
    _foul(resumed, 5, 93.0)                # the host types it again: it counts once
    resumed.close()
    assert replay(path)[0].fouls[5] == 1


def test_an_fsync_error_that_the_cut_cannot_fix_says_so(monkeypatch, tmp_path):
    import voicehost.journal.writer as writer

    path = tmp_path / "j.jsonl"
    table = _table(path)

    def fsync(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))
    monkeypatch.setattr(writer.os, "fsync", fsync)
    with pytest.raises(JournalWriteError, match="cut off it, but the cut could not be synced") as caught:
        _foul(table, 5, 92.0)
    _one_line(str(caught.value))
    monkeypatch.undo()
    table.close()
    assert replay(path)[0].fouls[5] == 0


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace injects the fsync error")
def test_typed_play_with_an_injected_fsync_error_resumes_without_the_refused_input(tmp_path):
    """The audit's own attack: strace makes every fsync of `run --text` from the
    6th on fail with EIO (today the 6th is the second foul's: the key, the
    header, the folder, the deal and the first foul come before it)."""
    journal = tmp_path / "j.jsonl"
    fouls = ["/foul 3", "/foul 5", "/foul 6", "/foul 8", "/foul 9"]
    proc = subprocess.run(
        ["strace", "-f", "-qq", "-o", str(tmp_path / "trace"), "-e", "trace=fsync",
         "-e", "inject=fsync:error=EIO:when=6+", sys.executable, "-m", "voicehost", "run", "--text", "--mute",
         "--journal", str(journal)],
        input="\n".join(["/roles d4 m2 m7 s6", *fouls, "/quit"]) + "\n", capture_output=True, text=True,
        timeout=90, env={**os.environ, "HOME": str(tmp_path)})
    assert "(INJECTED)" in (tmp_path / "trace").read_text()
    assert proc.returncode == 1 and "Input/output error" in proc.stdout
    said = proc.stdout.count("замечание")     # the fouls the table answered
    game = replay(journal)[0]
    assert sum(game.fouls.values()) == said   # every answered one, and not the refused one
    assert 0 < said < len(fouls)
    resumed = subprocess.run([sys.executable, "-m", "voicehost", "run", "--text", "--mute", "--resume", str(journal)],
                             input="/foul 5\n/quit\n", capture_output=True, text=True, timeout=60,
                             env={**os.environ, "HOME": str(tmp_path)})
    assert resumed.returncode == 0, resumed.stderr
    assert sum(replay(journal)[0].fouls.values()) == said + 1   # typed again, it counts once


# ------------------------------------------------------------------ F4: deleted or moved mid-game


def test_a_journal_deleted_mid_game_is_written_anew_from_memory(tmp_path):
    path = tmp_path / "j.jsonl"
    table = _table(path)
    _foul(table, 3, 91.0)
    path.unlink()
    key_path(path).unlink()
    _foul(table, 5, 92.0)                  # the game goes on
    assert table.journal is not None and table.journal.moved == [(path, path)]
    assert path.is_file() and key_path(path).is_file()
    assert stat.S_IMODE(key_path(path).stat().st_mode) == 0o600
    _foul(table, 6, 93.0)
    table.close()
    game = replay(path)[0]
    assert snapshot(game) == snapshot(table.game) and game.fouls[5] == 1 and game.fouls[6] == 1


def test_a_key_deleted_mid_game_is_written_again_with_the_next_input(tmp_path):
    path = tmp_path / "j.jsonl"
    table = _table(path)
    key = key_path(path).read_bytes()
    key_path(path).unlink()
    _foul(table, 5, 92.0)
    assert key_path(path).read_bytes() == key and stat.S_IMODE(key_path(path).stat().st_mode) == 0o600
    table.close()
    assert replay(path)[0].fouls[5] == 1


def test_a_journal_moved_away_is_written_anew_at_its_path_and_the_copy_keeps_its_prefix(tmp_path):
    path = tmp_path / "j.jsonl"
    table = _table(path)
    _foul(table, 3, 91.0)
    moved = tmp_path / "moved.jsonl"
    path.rename(moved)
    _foul(table, 5, 92.0)
    assert table.journal.moved == [(path, path)]
    table.close()
    assert replay(path)[0].fouls[5] == 1
    assert replay(moved)[0].fouls[3] == 1   # the copy reads with the key beside it (same folder)


def test_a_journal_whose_path_was_taken_goes_on_in_a_fresh_file(tmp_path):
    path = tmp_path / "j.jsonl"
    table = _table(path)
    path.rename(tmp_path / "elsewhere.jsonl")
    path.write_text("someone else's file\n")
    _foul(table, 5, 92.0)
    fresh = tmp_path / "j.2.jsonl"
    assert table.journal.moved == [(path, fresh)]
    assert path.read_text() == "someone else's file\n"
    table.close()
    resumed, _, journal = resume_table(fresh)
    assert resumed.game.fouls[5] == 1
    journal.close()


@pytest.mark.parametrize("taken", [False, True], ids=["written-anew", "path-taken"])
def test_the_live_table_says_the_journal_was_written_anew_aloud_on_the_terminal_and_the_page(taken, tmp_path):
    import io

    from voicehost.live import GameClock, LiveTable, open_table
    from voicehost.live.terminal import Terminal
    from voicehost.session import summary
    from voicehost.web.state import host_state
    from voicehost.web.texts import Texts

    path = tmp_path / "j.jsonl"
    game, writer, entries, _ = open_table(RULES, path, resume=False)
    speaker = FakeSpeaker()
    live = LiveTable(game, GameClock(), speaker, journal=writer, entries=entries)
    out = io.StringIO()
    Terminal(live, out, page=True)
    live.apply_json({"type": "setup", "roles": ROLES})
    live.sync()
    path.rename(tmp_path / "renamed.jsonl")
    if taken:
        path.write_text("someone else's\n")
    live.apply_json({"type": "foul", "seat": 3})
    assert live.failure is None
    now = tmp_path / "j.2.jsonl" if taken else path
    told = live.texts.text("journal_moved", old=path, path=now) if taken else \
        live.texts.text("journal_rewritten", path=path)
    assert told in out.getvalue() and str(now) in told
    assert live.texts.text("journal_rewritten_say") in speaker.said
    state = host_state(live, Texts(RULES.phrasebook), reveal_roles=False, csrf="x", log=[], suggestions=[])
    assert state["journal_notice"] == told
    live.close()
    assert live.texts.text("journal_at", path=now) in summary(live)   # the closing line names where it is
    assert replay(now)[0].fouls[3] == 1


# ------------------------------------------------------------------ F5: keys and identity


def test_two_games_with_the_same_rules_have_different_headers_and_keys(tmp_path, capsys):
    one, two = _simulated(tmp_path, capsys, "one.jsonl"), _simulated(tmp_path, capsys, "two.jsonl")
    first, second = (json.loads(p.read_bytes().split(b"\n")[0]) for p in (one, two))
    assert first["game"] != second["game"] and first != second
    assert first["rules"] == second["rules"] and first["journal"] == 5
    assert key_path(one).read_text() != key_path(two).read_text()
    assert stat.S_IMODE(key_path(one).stat().st_mode) == 0o600


def _forge(path: Path, change) -> None:
    """An edit with every check after it recomputed, as the unkeyed hash allowed."""
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    change(lines)
    previous, out = "", b""
    for entry in lines:
        entry.pop("h", None)
        line, previous = encode_line(previous, entry)
        out += line
    path.write_bytes(out)


def test_a_forged_journal_and_its_export_are_refused(tmp_path, capsys):
    path = _simulated(tmp_path, capsys)

    def votes_to_seat_3(lines):
        for entry in lines:
            if entry.get("event", {}).get("type") == "votes":
                entry["event"]["counts"] = {"3": 10}
                return
    _forge(path, votes_to_seat_3)
    _refused(["replay", str(path)], capsys, "the journal was changed here")
    _refused(["export", str(path), "--format", "mafiaratings"], capsys, "the journal was changed here")
    with pytest.raises(JournalError, match=":1: the journal was changed here"):
        resume_table(path)


def test_a_keyed_journal_made_to_look_old_is_refused(tmp_path, capsys):
    path = _simulated(tmp_path, capsys)

    def downgrade(lines):
        lines[0]["journal"] = 4
        del lines[0]["game"]
    _forge(path, downgrade)
    _refused(["replay", str(path)], capsys, ":1: the journal was changed here", "key is beside it")


def test_a_keyed_journal_without_its_key_or_with_another_games_is_refused(tmp_path, capsys):
    path = _simulated(tmp_path, capsys)
    other = _simulated(tmp_path, capsys, "other.jsonl")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    copy = elsewhere / "j.jsonl"
    shutil.copy(path, copy)
    _refused(["replay", str(copy)], capsys, "its key j.jsonl.key is not beside it")
    shutil.copy(key_path(other), key_path(copy))
    _refused(["replay", str(copy)], capsys, "another game's")
    shutil.copy(key_path(path), key_path(copy))
    assert main(["replay", str(copy)]) == 0


def _version_4(path: Path) -> None:
    """A journal as voicehost wrote them before keys: version 4, an unkeyed hash."""
    rules = RULES.to_json()
    entries = [{"journal": 4, "ruleset": RULES.name, "rules": rules},
               {"t": 0.0, "event": {"type": "setup", "roles": ROLES}},
               {"t": 91.0, "event": {"type": "foul", "seat": 3}}]
    previous, out = "", b""
    for entry in entries:
        line, previous = encode_line(previous, entry)
        out += line
    path.write_bytes(out)


def test_a_keyed_journal_relabelled_as_version_4_without_its_key_is_refused(tmp_path, capsys):
    """The audit's reproducer (issue 30): a keyed journal's copy made version 4 (no game
    named), a vote changed and its checks recomputed. It replayed as another game."""
    path = _simulated(tmp_path, capsys)

    def downgrade_and_change_a_vote(lines):
        lines[0]["journal"] = 4
        del lines[0]["game"]
        next(e for e in lines if e.get("event", {}).get("type") == "votes")["event"]["counts"] = {"7": 6}
    _forge(path, downgrade_and_change_a_vote)
    key_path(path).unlink()
    for command in (["replay", str(path)], ["export", str(path), "--format", "mafiaratings"]):
        _refused(command, capsys, ":1: an unkeyed journal (version 4)", "--trust-unkeyed")
    with pytest.raises(JournalError, match="read only with --trust-unkeyed"):
        resume_table(path)
    proc = _run(tmp_path, "--resume", str(path))
    assert proc.returncode == 2 and "--trust-unkeyed" in proc.stderr, proc.stderr
    _one_line(proc.stderr)
    assert main(["replay", str(path), "--trust-unkeyed"]) == 0   # who trusts the file reads it as it is
    capsys.readouterr()


def test_a_version_4_journal_replays_resumes_and_goes_on_unkeyed_only_when_trusted(tmp_path, capsys):
    path = tmp_path / "old.jsonl"
    _version_4(path)
    with pytest.raises(JournalError, match=":1: an unkeyed journal"):
        scan_file(path)
    assert scan_file(path, trust_unkeyed=True).key is None and replay(path, trust_unkeyed=True)[0].fouls[3] == 1
    table, _, journal = resume_table(path, trust_unkeyed=True)
    _foul(table, 5, 92.0)
    table.close()
    assert not key_path(path).exists()
    last = path.read_bytes().split(b"\n")[-2]
    body, digest = last[:-18] + b"}", last[-12:-2].decode()
    previous = json.loads(path.read_bytes().split(b"\n")[-3])["h"]
    assert digest == entry_hash(previous, body)        # still the plain hash of version 4
    assert replay(path, trust_unkeyed=True)[0].fouls[5] == 1
    assert main(["export", str(path), "--format", "polemica", "--trust-unkeyed"]) in (0, 2)   # never a traceback
    assert "Traceback" not in capsys.readouterr().err


def test_replay_and_export_report_a_cut_tail_in_one_line(tmp_path, capsys):
    path = _simulated(tmp_path, capsys)
    path.write_bytes(path.read_bytes() + b'{"t": 99')
    assert main(["replay", str(path)]) == 0
    captured = capsys.readouterr()
    _one_line(captured.err)
    assert "the last 8 bytes are a torn write" in captured.err and json.loads(captured.out)
    assert main(["export", str(path), "--format", "mafiaratings"]) == 0
    err = capsys.readouterr().err
    _one_line(err)
    assert err.startswith("voicehost export: ") and "the last 8 bytes are a torn write" in err
    assert main(["replay", str(_simulated(tmp_path, capsys, "clean.jsonl"))]) == 0
    assert capsys.readouterr().err == ""


# ------------------------------------------------------------------ F6: a torn header


def _torn_header(path: Path) -> None:
    Journal(path, RULES).close()
    whole = path.read_bytes()
    path.write_bytes(whole[:len(whole) // 2])


def test_a_torn_header_is_a_one_line_way_forward_for_replay(tmp_path, capsys):
    path = tmp_path / "j.jsonl"
    _torn_header(path)
    with pytest.raises(TornHeader):
        scan_file(path)
    _refused(["replay", str(path)], capsys, "header was torn", "nothing was played", f"--journal {path}")


@pytest.mark.parametrize("flag", ["--resume", "--journal"])
def test_resume_or_a_new_game_at_a_torn_header_starts_the_game_anew(flag, tmp_path):
    path = tmp_path / "j.jsonl"
    _torn_header(path)
    proc = _run(tmp_path, flag, str(path), stdin="/roles d4 m2 m7 s6\n/foul 3\n/quit\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("Заголовок журнала") == 1 and "начинается заново" in proc.stdout
    game = replay(path)[0]
    assert game.fouls[3] == 1


@pytest.mark.parametrize("text", ["my notes, no newline", '{"journal":5,"game":"x"}\n'])
def test_a_new_game_never_takes_a_file_that_is_no_torn_header(text, tmp_path):
    from voicehost.journal.writer import check_new

    path = tmp_path / "notes.jsonl"
    path.write_text(text)
    with pytest.raises(JournalError, match="already holds a game"):
        check_new(path)
    with pytest.raises(JournalError, match="already holds a game"):
        Journal(path, RULES)
    assert path.read_text() == text
