"""The protocol's records serialize to exactly the SPEC §4 shapes: a tally
carries counts (seat keys as strings, in the candidates' order), a lift answer
carries lift and no counts, a best move names its seats as a list."""
from __future__ import annotations

import dataclasses
import json

import pytest

from voicehost.game.records import BestMoveRecord, CheckRecord, NominationRecord, VoteRecord


def test_each_record_is_its_spec_json():
    assert NominationRecord(1, 3, 7).to_json() == {"day": 1, "by": 3, "target": 7}
    tally = VoteRecord(1, 1, counts={7: 6, 3: 4})
    assert json.dumps(tally.to_json()) == '{"day": 1, "round": 1, "counts": {"7": 6, "3": 4}}'
    lift = VoteRecord(1, 3, lift=6)
    assert lift.to_json() == {"day": 1, "round": 3, "lift": 6} and lift.is_lift and not tally.is_lift
    assert CheckRecord(2, "don", 4, "not_sheriff").to_json() == {"night": 2, "role": "don", "seat": 4,
                                                                  "result": "not_sheriff"}
    assert BestMoveRecord(1, (2, 5, 9), 2).to_json() == {"seat": 1, "named": [2, 5, 9], "blacks": 2}


def test_a_record_never_changes_once_written():
    record = NominationRecord(1, 3, 7)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.target = 8  # type: ignore[misc]
    assert record == NominationRecord(1, 3, 7)
