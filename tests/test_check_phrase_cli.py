"""`voicehost check-phrase` exactly as SPEC §4 fixes it."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from voicehost.cli import main


def run(capsys, *args: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, list[dict], str]:
    if stdin is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["check-phrase", *args])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def test_text_input(capsys):
    code, events, err = run(capsys, "--text", "выставляю <12> семь")
    assert code == 0 and err == ""
    assert events == [{"type": "nomination", "target": 7, "accepted": False,
                       "reason": "pause_too_long", "t": 12.6}]


def test_words_file(tmp_path, capsys):
    path = tmp_path / "speech.json"
    path.write_text(json.dumps({"words": [
        {"word": "выставляю", "start": 4.1, "end": 4.6},
        {"word": "седьмого", "start": 4.8, "end": 5.3, "conf": 0.9},
        {"word": "спасибо", "start": 9.4, "end": 9.8},
    ]}), encoding="utf-8")
    code, events, _ = run(capsys, str(path))
    assert code == 0
    assert events == [
        {"type": "nomination", "target": 7, "accepted": True, "t": 5.3},
        {"type": "speech_end", "word": "спасибо", "t": 9.8},
    ]


def test_vosk_results_list_from_stdin(capsys, monkeypatch):
    results = [
        {"result": [{"conf": 1.0, "start": 1.0, "end": 1.5, "word": "выставляю"}], "text": "выставляю"},
        {"text": ""},
        {"result": [{"conf": 1.0, "start": 11.6, "end": 12.0, "word": "семь"}], "text": "семь"},
    ]
    code, events, _ = run(capsys, "-", stdin=json.dumps(results), monkeypatch=monkeypatch)
    assert code == 0
    assert events == [{"type": "nomination", "target": 7, "accepted": False,
                       "reason": "pause_too_long", "t": 12.0}]


def test_single_vosk_result(capsys, monkeypatch):
    result = {"result": [{"conf": 1, "start": 0.5, "end": 0.9, "word": "выставляю"},
                         {"conf": 1, "start": 1.0, "end": 1.4, "word": "третьего"}],
              "text": "выставляю третьего"}
    code, events, _ = run(capsys, stdin=json.dumps(result), monkeypatch=monkeypatch)
    assert (code, events[0]["target"], events[0]["accepted"]) == (0, 3, True)


def test_context_flags(capsys):
    code, events, _ = run(capsys, "--alive", "1,2,3,4,5,6,8,9,10", "--nominated", "3",
                          "--speaker", "5", "--text", "выставляю семь выставляю три выставляю девять")
    assert code == 0
    assert [(e["target"], e.get("reason")) for e in events] == [
        (7, "not_alive"), (3, "already_nominated"), (9, None)]
    code, events, _ = run(capsys, "--already-nominated-by-speaker", "--text", "выставляю девять")
    assert events[0]["reason"] == "second_nomination"


def test_limit_flag(capsys):
    code, events, _ = run(capsys, "--limit", "30", "--text", "говорю <30> выставляю семь")
    assert (code, events) == (0, [])


def test_ruleset_and_set(capsys):
    _, events, _ = run(capsys, "--ruleset", "classic", "--text", "выставляю семь")
    assert events[0]["reason"] == "wrong_form"
    _, events, _ = run(capsys, "--set", "nomination_pause=15", "--text", "выставляю <12> семь")
    assert events[0]["accepted"] is True


def test_explain_for_training(capsys):
    _, events, _ = run(capsys, "--explain", "--text", "выставляю пожалуй семь")
    assert events[0]["explain"] == "Не принято: лишнее слово «пожалуй» между «выставляю» и номером"
    _, events, _ = run(capsys, "--explain", "--text", "выставляю <12> семь")
    assert events[0]["explain"] == "Не принято: пауза 12 секунд — больше 10"


BAD = {
    "malformed-json": (["-"], "{\"words\": [", "not valid JSON"),
    "not-words": (["-"], "[1, 2]", "neither"),
    "word-without-times": (["-"], '{"words": [{"word": "семь"}]}', "start"),
    "end-before-start": (["-"], '{"words": [{"word": "семь", "start": 2, "end": 1}]}', "start <= end"),
    "time-too-large": (["-"], '{"words": [{"word": "семь", "start": 1, "end": 1%s}]}' % ("0" * 400),
                       "end must be a number of seconds"),
    "bad-seat": (["--alive", "1,2,11", "--text", "семь"], None, "11"),
    "bad-limit": (["--limit", "abc", "--text", "семь"], None, "seconds"),
    "unknown-ruleset": (["--ruleset", "nope", "--text", "семь"], None, "nope"),
    "unknown-set-key": (["--set", "colour=red", "--text", "семь"], None, "colour"),
    "wrong-set-type": (["--set", "nomination_pause=soon", "--text", "семь"], None, "nomination_pause"),
    "missing-file": (["/nonexistent/speech.json"], None, "cannot read"),
}


@pytest.mark.parametrize("args,stdin,needle", BAD.values(), ids=BAD.keys())
def test_bad_input_exit_2_one_line(args, stdin, needle):
    proc = subprocess.run([sys.executable, "-m", "voicehost", "check-phrase", *args],
                          input=stdin or "", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]


def test_city_has_no_nomination_phrases(capsys):
    code, events, _ = run(capsys, "--ruleset", "city", "--text", "выставляю семь спасибо")
    assert code == 0 and [e["type"] for e in events] == ["speech_end"]
