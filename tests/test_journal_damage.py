"""A journal under real faults: torn and damaged tails, edited lines, failing
writes, two tables at once. Each is refused with one line, or resumed exactly;
none replays a different game (issue 8, items 2, 3, 5)."""
from __future__ import annotations

import errno
import json
import os
import random
from pathlib import Path

import pytest

from tests.conftest import GAMES, ROLES
from voicehost.cli import main
from voicehost.errors import JournalError, JournalWriteError
from voicehost.game.events import parse_event
from voicehost.game.moderator import new_game
from voicehost.game.protocol import snapshot
from voicehost.journal import Journal, Table, replay, resume_table, scan_file
from voicehost.rules import rules_for


def _journal_of(tmp: Path, game: str = "red_wins_by_votes", capsys=None) -> Path:
    path = tmp / "j.jsonl"
    assert main(["simulate", str(GAMES / f"{game}.jsonl"), "--journal", str(path)]) == 0
    if capsys is not None:
        capsys.readouterr()
    return path


def _prefix_snapshots(path: Path) -> list[dict]:
    """The game after each whole line of a journal: the only games it may replay as."""
    data = path.read_bytes()
    ends = [i + 1 for i, b in enumerate(data) if b == 0x0A]
    out = []
    for end in ends:
        part = path.with_name("prefix.jsonl")
        part.write_bytes(data[:end])
        out.append(snapshot(replay(part)[0]))
    return out


def _one_line(message: str) -> None:
    assert message and "\n" not in message.strip() and "Traceback" not in message


def test_torn_tail_mid_character_is_cut_and_a_second_resume_works(tmp_path, capsys):
    path = _journal_of(tmp_path, capsys=capsys)
    whole = path.read_bytes()
    # the last line with a Cyrillic word: cut inside its first two-byte character
    start = max(i for i, line in enumerate(_starts(whole)) if any(b >= 0x80 for b in line[1]))
    offset, line = _starts(whole)[start]
    cut = offset + next(i for i, b in enumerate(line) if b >= 0x80) + 1
    path.write_bytes(whole[:cut])
    expected = snapshot(replay(_write(tmp_path, whole[:whole[:cut].rfind(b"\n") + 1]))[0])
    table, _, journal = resume_table(path)
    assert journal.cut > 0 and snapshot(table.game) == expected
    assert path.read_bytes().endswith(b"\n")
    table.advance(table.game.now + 500.0)   # the game goes on and is journaled
    table.close()
    again, _, journal2 = resume_table(path)   # the second resume must work too
    assert snapshot(again.game) == snapshot(table.game)
    journal2.close()


def _starts(data: bytes) -> list[tuple[int, bytes]]:
    out, offset = [], 0
    for line in data.split(b"\n")[:-1]:
        out.append((offset, line))
        offset += len(line) + 1
    return out


def _write(tmp: Path, data: bytes) -> Path:
    out = tmp / "expected.jsonl"
    out.write_bytes(data)
    return out


def test_every_cut_point_resumes_a_prefix_of_the_game(tmp_path, capsys):
    path = _journal_of(tmp_path, capsys=capsys)
    whole = path.read_bytes()
    prefixes = _prefix_snapshots(path)
    header_end = whole.index(b"\n") + 1
    rng = random.Random(8)
    cuts = sorted(set(rng.sample(range(header_end, len(whole)), 60)) | {header_end, len(whole) - 1})
    for cut in cuts:
        path.write_bytes(whole[:cut])
        table, _, journal = resume_table(path)
        complete = whole[:cut].count(b"\n")
        assert snapshot(table.game) == prefixes[complete - 1]
        assert path.read_bytes() == whole[:whole[:cut].rfind(b"\n") + 1]
        journal.close()


@pytest.mark.parametrize("garbage", [b"hello world", b"\x00\xff\xfe binary \x80\x81", b"\xd0",
                                     b"\x00" * 4096, b"[[[[[[" * 5000, b'{"t": NaN}'])
def test_appended_garbage_without_a_newline_is_a_torn_tail(garbage, tmp_path, capsys):
    path = _journal_of(tmp_path, capsys=capsys)
    original = snapshot(replay(path)[0])
    clean = path.read_bytes()
    path.write_bytes(clean + garbage)
    table, _, journal = resume_table(path)
    assert snapshot(table.game) == original
    assert path.read_bytes() == clean
    journal.close()


@pytest.mark.parametrize("garbage", [b"hello world\n", b"\n\n\n", b"[[[[[[" * 5000 + b"\n", b'{"t": NaN}\n',
                                     b"\xd0\n" + b"more"])
def test_a_complete_line_that_fails_its_check_is_damage_not_a_torn_tail(garbage, tmp_path, capsys):
    """Issue 18 F2: only the part after the last newline is torn; a line that
    ends in its newline was written whole, so failing its check is damage."""
    path = _journal_of(tmp_path, capsys=capsys)
    clean = path.read_bytes()
    lines = clean.count(b"\n")
    path.write_bytes(clean + garbage)
    with pytest.raises(JournalError, match=rf"j\.jsonl:{lines + 1}: not a journal entry \(a damaged line"):
        resume_table(path)
    assert path.read_bytes() == clean + garbage   # refused: nothing is cut


def test_one_damaged_byte_in_the_answered_last_votes_line_is_refused_naming_it(tmp_path, capsys):
    """Issue 18 F2: every one-byte change of a complete last line is refused, never cut as torn."""
    path = _journal_of(tmp_path, capsys=capsys)
    whole = path.read_bytes()
    lines = whole.split(b"\n")[:-1]
    number = max(i for i, line in enumerate(lines, 1) if b'"type":"votes"' in line)
    kept = whole.split(b"\n")[:number]
    body = b"\n".join(kept[:-1]) + b"\n"
    path.write_bytes(body + kept[-1] + b"\n")
    replay(path)   # that prefix itself is a good journal
    rng = random.Random(18)
    for _ in range(60):
        line = bytearray(kept[-1])
        at = rng.randrange(len(line))
        line[at] = rng.choice([b for b in range(256) if b not in (line[at], 0x0A)])
        path.write_bytes(body + bytes(line) + b"\n")
        with pytest.raises(JournalError, match=rf":{number}: "):
            replay(path)
        assert main(["replay", str(path)]) == 2
        assert f":{number}: " in capsys.readouterr().err


def test_a_damaged_newline_of_the_answered_last_line_is_refused_not_cut_as_torn(tmp_path, capsys):
    """Issue 30: the newline of a whole, answered last line changed to any other byte was
    cut as a torn write (the vote lost without a word); a torn write leaves a line's
    beginning, never all of it and then more. The whole line without its newline is
    still a torn write (the write stopped just before it)."""
    path = _journal_of(tmp_path, capsys=capsys)
    whole = path.read_bytes()
    lines = whole.split(b"\n")[:-1]
    number = max(i for i, line in enumerate(lines, 1) if b'"type":"votes"' in line)
    body, last = b"\n".join(lines[:number - 1]) + b"\n", lines[number - 1]
    for byte in (b for b in range(256) if b != 0x0A):
        path.write_bytes(body + last + bytes([byte]))
        with pytest.raises(JournalError, match=rf"j\.jsonl:{number}: the journal was damaged here"):
            scan_file(path)
    path.write_bytes(body + last + b"\x00" + b'{"t": 9')   # and a torn write after it
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    _one_line(err)
    assert f"j.jsonl:{number}: the journal was damaged here" in err
    path.write_bytes(body + last)
    assert scan_file(path).torn == len(last)


def test_appended_json_that_is_not_in_the_chain_is_refused(tmp_path, capsys):
    path = _journal_of(tmp_path, capsys=capsys)
    lines = path.read_bytes().count(b"\n")
    with path.open("ab") as handle:
        handle.write(b'{"t": 9999.0, "event": {"type": "foul", "seat": 3}}\n')
    with pytest.raises(JournalError, match=rf":{lines + 1}: the journal was changed here"):
        replay(path)


def _edit(path: Path, number: int, change) -> None:
    lines = path.read_bytes().split(b"\n")
    entry = json.loads(lines[number - 1])
    change(entry)
    lines[number - 1] = json.dumps(entry, ensure_ascii=False).encode()
    path.write_bytes(b"\n".join(lines))


def _line_of(path: Path, kind: str) -> int:
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if f'"type":"{kind}"' in line:
            return number
    raise AssertionError(kind)


def test_an_edited_vote_count_is_reported_with_its_line(tmp_path, capsys):
    path = _journal_of(tmp_path, capsys=capsys)
    number = _line_of(path, "votes")
    _edit(path, number, lambda e: e["event"]["counts"].update({"7": 6}))
    with pytest.raises(JournalError, match=rf"j.jsonl:{number}: the journal was changed"):
        replay(path)
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    _one_line(err)
    assert f":{number}:" in err


def test_an_edited_shot_is_reported_even_with_its_hash_recomputed_alone(tmp_path, capsys):
    from voicehost.journal import entry_hash

    path = _journal_of(tmp_path, capsys=capsys)
    number = _line_of(path, "shot")
    lines = path.read_bytes().split(b"\n")
    previous = json.loads(lines[number - 2])["h"]
    entry = json.loads(lines[number - 1])
    entry.pop("h")
    entry["event"]["seat"] = 1 if entry["event"].get("seat") != 1 else 2
    body = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode()
    digest = entry_hash(previous, body)       # a careful forger fixes this line...
    lines[number - 1] = body[:-1] + f',"h":"{digest}"}}'.encode()
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match=rf":{number}: the journal was changed"):
        replay(path)   # ... but without the key, no check he computes is the journal's


def test_a_dropped_middle_line_is_reported(tmp_path, capsys):
    path = _journal_of(tmp_path, capsys=capsys)
    lines = path.read_bytes().split(b"\n")
    del lines[5]
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match=r":6: the journal was changed"):
        replay(path)


@pytest.mark.parametrize("change", [
    lambda h: h.update(ruleset="fiim", rules={**h["rules"], "name": "fiim"}),
    lambda h: h["rules"].update(speech_seconds=30.0),
    lambda h: h.update(journal=1),
])
def test_header_edits_are_refused_at_line_one(change, tmp_path, capsys):
    path = _journal_of(tmp_path, capsys=capsys)
    _edit(path, 1, change)
    with pytest.raises(JournalError, match=r"j.jsonl:1: "):
        replay(path)
    with pytest.raises(JournalError, match=r"j.jsonl:1: "):
        resume_table(path)


def test_random_byte_changes_never_replay_a_different_game(tmp_path, capsys):
    path = _journal_of(tmp_path, "fouls_and_removals", capsys=capsys)
    whole = path.read_bytes()
    prefixes = _prefix_snapshots(path)
    full = prefixes[-1]
    rng = random.Random(2)
    refused = same = 0
    for _ in range(150):
        data = bytearray(whole)
        at = rng.randrange(len(data))
        data[at] = rng.choice([b for b in range(256) if b != data[at]])
        path.write_bytes(bytes(data))
        try:
            game = replay(path)[0]
        except JournalError as exc:
            _one_line(str(exc))
            refused += 1
            continue
        got = snapshot(game)
        assert got in prefixes, f"byte {at} replayed a different game"
        same += got == full
    assert refused > 100


def test_two_resumers_the_second_is_refused(tmp_path, capsys):
    path = _journal_of(tmp_path, capsys=capsys)
    first, _, journal = resume_table(path)
    with pytest.raises(JournalError, match="in use by another voicehost table"):
        resume_table(path)
    assert main(["run", "--text", "--mute", "--resume", str(path)]) == 2
    err = capsys.readouterr().err
    _one_line(err)
    assert "in use by another voicehost table" in err
    journal.close()
    again, _, journal = resume_table(path)   # once the first lets go, it resumes
    assert snapshot(again.game) == snapshot(first.game)
    journal.close()


def test_a_new_journal_does_not_overwrite_a_game(tmp_path, capsys):
    path = _journal_of(tmp_path, capsys=capsys)
    before = path.read_bytes()
    with pytest.raises(JournalError, match="already holds a game"):
        Journal(path, rules_for("4mafia"))
    assert path.read_bytes() == before


def test_run_refuses_another_games_journal_before_the_deal_and_keeps_its_protocol(tmp_path, capsys):
    """Not at the deal, after the host has set up a table: at once, one line,
    and the other game's protocol beside it is left as it was."""
    import subprocess
    import sys

    path = _journal_of(tmp_path, capsys=capsys)
    protocol = path.with_suffix(".protocol.json")
    protocol.write_text('{"kept": true}', "utf-8")
    proc = subprocess.run([sys.executable, "-m", "voicehost", "run", "--text", "--mute", "--journal", str(path)],
                          input="/roles d4 m2 m7 s6\n/quit\n", capture_output=True, text=True, timeout=60,
                          env={**os.environ, "HOME": str(tmp_path)})
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [f"voicehost run: {path} already holds a game: go on with it "
                                                f"with --resume, or journal this one to another file"]
    assert protocol.read_text("utf-8") == '{"kept": true}'


def _table(path: Path) -> Table:
    rules = rules_for("4mafia")
    table = Table(new_game(rules), Journal(path, rules, fsync=True))
    table.apply(parse_event({"type": "setup", "roles": ROLES}), 0.0)
    table.advance(90.0)
    return table


def _failing(monkeypatch, code: int) -> None:
    import voicehost.journal.writer as journal_module

    def write(fd, data):
        raise OSError(code, os.strerror(code))
    monkeypatch.setattr(journal_module.os, "write", write)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EBADF, errno.EIO])
def test_a_failed_write_stops_the_table_with_one_error(code, monkeypatch, tmp_path):
    path = tmp_path / "j.jsonl"
    table = _table(path)
    table.apply(parse_event({"type": "foul", "seat": 3}), 91.0)
    recorded = snapshot(table.game)
    _failing(monkeypatch, code)
    with pytest.raises(JournalWriteError, match=os.strerror(code)) as caught:
        table.apply(parse_event({"type": "foul", "seat": 5}), 92.0)
    _one_line(str(caught.value))
    monkeypatch.undo()
    # the disk is back, but the table still refuses: its game went one input past its journal
    before = snapshot(table.game)
    with pytest.raises(JournalWriteError):
        table.apply(parse_event({"type": "foul", "seat": 6}), 93.0)
    with pytest.raises(JournalWriteError):
        table.undo(94.0)
    assert snapshot(table.game) == before
    table.close()
    assert snapshot(replay(path)[0]) == recorded   # the journal holds every accepted input


def test_a_write_torn_by_a_full_disk_resumes_after_the_last_whole_line(monkeypatch, tmp_path):
    import voicehost.journal.writer as journal_module

    path = tmp_path / "j.jsonl"
    table = _table(path)
    recorded = snapshot(table.game)
    real = os.write

    def half(fd, data):
        real(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    before = path.read_bytes()
    monkeypatch.setattr(journal_module.os, "write", half)
    with pytest.raises(JournalWriteError, match="No space left"):
        table.apply(parse_event({"type": "foul", "seat": 5}), 92.0)
    monkeypatch.undo()
    assert path.read_bytes() == before   # the half line was cut back off at once (issue 18 F3)
    table.close()
    resumed, _, journal = resume_table(path)
    assert snapshot(resumed.game) == recorded and journal.cut == 0
    journal.close()


def test_a_journal_whose_folder_cannot_take_it_anew_stops_the_table(tmp_path):
    folder = tmp_path / "journals"
    folder.mkdir()
    path = folder / "j.jsonl"
    table = _table(path)
    for left in folder.iterdir():
        left.unlink()
    folder.rmdir()
    folder.write_text("a file where the folder was")   # no folder can be made there again
    with pytest.raises(JournalWriteError, match="deleted or moved away, and cannot be written anew") as caught:
        table.apply(parse_event({"type": "foul", "seat": 5}), 92.0)
    _one_line(str(caught.value))
    with pytest.raises(JournalWriteError):
        table.apply(parse_event({"type": "foul", "seat": 6}), 93.0)
    table.close()


def test_a_read_only_journal_is_refused_at_open(monkeypatch, tmp_path):
    import voicehost.journal.writer as journal_module

    path = _journal_of(tmp_path)

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))
    monkeypatch.setattr(journal_module.os, "open", read_only)
    with pytest.raises(JournalWriteError, match="Read-only file system") as caught:
        resume_table(path)
    _one_line(str(caught.value))


def test_a_closed_journal_takes_no_inputs(tmp_path):
    path = tmp_path / "j.jsonl"
    table = _table(path)
    os.close(table.journal._fd)   # the descriptor is gone underneath (EBADF)
    with pytest.raises(JournalWriteError, match="Bad file descriptor"):
        table.apply(parse_event({"type": "foul", "seat": 5}), 92.0)
    table.journal._fd = None


def test_a_lone_surrogate_is_journaled_and_leaves_no_temp_file(tmp_path, capsys):
    script = tmp_path / "s.jsonl"
    lines = (GAMES / "red_wins_by_votes.jsonl").read_text("utf-8").splitlines()
    speech = json.loads(lines[1])
    speech["words"].insert(0, {"word": "\ud800", "start": 0.0, "end": 0.1})
    for word in speech["words"][1:]:
        word["start"] += 0.2
        word["end"] += 0.2
    lines[1] = json.dumps(speech)   # ASCII JSON with the escape, as a script may hold it
    script.write_text("\n".join(lines) + "\n", "utf-8")
    out = tmp_path / "out"
    out.mkdir()
    journal = out / "j.jsonl"
    code = main(["simulate", str(script), "--journal", str(journal), "--protocol", str(out / "p.json")])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    if code == 0:
        assert replay(journal)[0].winner == "red"
        assert sorted(p.name for p in out.iterdir()) == ["j.jsonl", "j.jsonl.key", "p.json"]
    else:
        _one_line(captured.err)
        assert list(out.iterdir()) == []


def test_only_inputs_and_fired_timers_are_journaled(tmp_path):
    path = tmp_path / "j.jsonl"
    table = _table(path)
    ticks_before = sum('"tick"' in line for line in path.read_text("utf-8").splitlines())
    now = 90.0
    for _ in range(2000):          # 100 s of a 20 Hz ticker during a floor
        now += 0.05
        table.advance(now)
    table.close()
    entries = [e for _, e in scan_file(path).entries]
    ticks = sum(e["event"]["type"] == "tick" for e in entries) - ticks_before
    game = replay(path)[0]
    assert 0 < ticks < 20
    assert snapshot(game)["clock"]["timers"] == snapshot(table.game)["clock"]["timers"]
    assert snapshot(game)["protocol"] == snapshot(table.game)["protocol"]


def test_recognized_words_are_journaled_short_and_replay_as_applied(tmp_path):
    from voicehost.game.events import Heard
    from voicehost.phrases.words import Word

    path = tmp_path / "j.jsonl"
    table = _table(path)
    start = table.game.now + 0.123456789
    for index, text in enumerate(["я", "выставляю", "седьмого", "спасибо"]):
        t = start + index * 0.4000001
        table.apply(Heard(Word(text, t, t + 0.3000002)), max(table.game.now, t))
    table.close()
    lines = path.read_bytes().splitlines()[-4:]
    if b'{"k":' in lines[-1]:    # the clock mark written on close
        lines = path.read_bytes().splitlines()[-5:-1]
    assert all(len(line) < 70 for line in lines), lines
    assert json.loads(lines[1])["w"] == ["выставляю", round(start + 0.4000001, 3), round(start + 0.7000003, 3)]
    assert snapshot(replay(path)[0]) == snapshot(table.game)
    assert 7 in snapshot(table.game)["protocol"]["nominations"][0].values()


def test_closing_marks_the_clock_so_a_resume_stands_where_the_table_stopped(tmp_path):
    path = tmp_path / "j.jsonl"
    table = _table(path)
    table.apply(parse_event({"type": "foul", "seat": 3}), 91.0)
    table.advance(93.5)                       # no timer fires: nothing journaled yet
    assert scan_file(path).entries[-1][1]["t"] == 91.0
    table.close()
    resumed, _, journal = resume_table(path)
    assert resumed.game.now == 93.5 and snapshot(resumed.game) == snapshot(table.game)
    journal.close()


def test_run_resumes_a_torn_journal_twice(tmp_path, capsys):
    """The live command end to end: a journal torn inside a Cyrillic character
    is resumed, the game goes on, and a second resume works too."""
    import subprocess
    import sys

    path = _journal_of(tmp_path, "fouls_and_removals", capsys=capsys)
    whole = path.read_bytes()
    expected = snapshot(replay(path)[0])
    path.write_bytes(whole + '{"t":1,"event":{"type":"word","word":"выст'.encode()[:-1])
    env = {**os.environ, "HOME": str(tmp_path)}
    for attempt in range(2):
        done = subprocess.run([sys.executable, "-m", "voicehost", "run", "--text", "--mute", "--resume", str(path)],
                              input="/quit\n", capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr and f"Игра продолжена по журналу {path}" in done.stdout
        # the host is told the torn tail was cut, once: the second resume finds none
        assert ("оборванная запись" in done.stdout) is (attempt == 0), done.stdout
        game = replay(path)[0]
        assert snapshot(game)["protocol"] == expected["protocol"]
    assert path.read_bytes().startswith(whole) and path.read_bytes().endswith(b"\n")


@pytest.mark.parametrize("text", ["вы\u2028ставляю", "x\u0085y", "a\rb", "\ud800"])
def test_line_separators_and_surrogates_inside_a_word_stay_on_their_line(text, tmp_path):
    from voicehost.game.events import Heard
    from voicehost.phrases.words import Word

    path = tmp_path / "j.jsonl"
    table = _table(path)
    table.apply(Heard(Word(text, 90.5, 90.8)), 90.5)
    table.apply(parse_event({"type": "foul", "seat": 3}), 91.0)
    table.close()
    assert len(scan_file(path).entries) == len(path.read_bytes().split(b"\n")) - 2
    assert snapshot(replay(path)[0]) == snapshot(table.game)
