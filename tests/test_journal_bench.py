"""The journal bench plays a game the live way and resumes it; here a short
one, for correctness only (the figures are printed by `voicehost bench journal`)."""
from __future__ import annotations

from voicehost.journal_bench import measure


def test_a_bench_game_resumes_identically_and_journals_no_ticks(tmp_path):
    result = measure(600, 1.0, tmp_path, fsync=False)
    assert result["same"] and result["words"] > 300
    # every line is an input, a heard word or a fired timer: nothing like one per 50 ms tick
    assert result["lines"] < result["words"] + 100
