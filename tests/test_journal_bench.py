"""The journal bench plays a game the live way and resumes it; here a short
one, for correctness only (the figures are printed by `voicehost bench journal`)."""
from __future__ import annotations

import json

from voicehost.bench.journal import measure


def test_a_bench_game_resumes_identically_and_writes_runs_of_words(tmp_path):
    result = measure(600, 2.0, tmp_path)
    assert result.same and result.words > 600
    # words go in runs with the input or timer after them: far fewer writes (fsyncs) than words
    assert result.writes < result.words / 5 and result.lines < result.words / 4
    lines = [json.loads(line) for line in (tmp_path / "bench-2.jsonl").read_text("utf-8").splitlines()]
    assert any("ws" in line for line in lines)
