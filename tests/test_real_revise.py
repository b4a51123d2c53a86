"""A decision taken on partial results stands unless the final result
contradicts it; then the moderator corrects itself aloud, the journal records
both, and replaying the journal gives the corrected game."""
from __future__ import annotations

import pytest

from tests.conftest import ROLES, day_table, spoken
from voicehost.asr import Revision
from voicehost.journal import Journal, replay_entries
from voicehost.phrases.words import Word
from voicehost.rules import rules_for


def test_final_result_that_contradicts_a_partial_decision_is_corrected_aloud(tmp_path):
    live = day_table(tmp_path / "j.jsonl")
    t = live.game.now + 1.0
    partial = spoken(t, "выставляю", "семь")
    assert [live.game.book.render(o) for o in live.hear(partial)] == ["Принят номер 7"]
    final = spoken(t + 0.02, "выставляю", "восемь")
    said = live.hear([Revision(partial, final)])
    assert [live.game.book.render(o) for o in said] == ["Поправка: номер 7 не выставлен", "Поправка: Принят номер 8"]
    assert live.game.today == [8]
    live.journal.close()
    game, _, entries = replay_entries(tmp_path / "j.jsonl")
    assert game.today == [8]
    lines = (tmp_path / "j.jsonl").read_text("utf-8")
    assert '"семь"' in lines and '"восемь"' in lines and '"revise"' in lines  # both are recorded


def test_final_result_with_the_same_words_changes_only_their_times(tmp_path):
    live = day_table(tmp_path / "j.jsonl")
    t = live.game.now + 1.0
    partial = spoken(t, "выставляю", "номер", "три")
    assert [live.game.book.render(o) for o in live.hear(partial)] == ["Принят номер 3"]
    final = spoken(t + 0.1, "выставляю", "номер", "три", step=0.55)
    assert live.hear([Revision(partial, final)]) == []
    heard = [e.event for e in live.entries if e.event["type"] == "word"]
    assert [w["start"] for w in heard] == [round(w.start, 2) for w in final]  # to the centisecond


@pytest.mark.parametrize("gap, accepted", [(9.9, True), (10.2, False)],
                         ids=["pause-under-10s-stands", "pause-over-10s-2.3.3"])
def test_pause_rule_is_judged_on_the_final_times(tmp_path, gap, accepted):
    """The partial's estimated start put the number under (or over) 10 s from
    the trigger; the final result's exact times decide."""
    live = day_table(tmp_path / "j.jsonl")
    t = live.game.now + 1.0
    trigger = Word("выставляю", t, t + 0.5)
    live.hear([trigger])
    wrong = 10.2 if accepted else 9.9
    guess = Word("пять", t + 0.5 + wrong, t + 0.5 + wrong + 0.4)
    live.hear([guess])
    exact = Word("пять", t + 0.5 + gap, t + 0.5 + gap + 0.4)
    said = [live.game.book.render(o) for o in live.hear([Revision((guess,), (exact,))])]
    assert (live.game.today == [5]) == accepted
    assert ("Поправка: Принят номер 5" in said) == accepted


@pytest.mark.parametrize("book", ["phrasebook.ru", "phrasebook.uk", "phrasebook.mafclubspb"])
def test_every_phrasebook_can_say_a_correction(book):
    from voicehost.phrasebook import load_phrasebook

    phrases = load_phrasebook(book)
    assert "7" in phrases.text("correction_withdrawn", seat=7)
    assert phrases.text("correction", word="X").endswith("X")


def test_journal_with_several_revisions_replays_to_the_live_game(tmp_path):
    live = day_table(tmp_path / "j.jsonl")
    t = live.game.now + 1.0
    first = spoken(t, "коллеги", "выставляю", "семь")
    live.hear(first)
    live.hear([Revision(first, spoken(t, "коллеги", "выставляю", "восемь"))])
    second = spoken(t + 3.0, "пас")
    live.hear(second)
    live.hear([Revision(second, spoken(t + 3.1, "пас"))])
    live.clock.skip_to(t + 6.0)
    live.tick()
    assert live.game.where() == "day 1, speech of seat 2" and live.game.today == [8]
    live.journal.close()
    game, _, _ = replay_entries(tmp_path / "j.jsonl")
    assert game.where() == live.game.where() and game.today == [8] and game.now == live.game.now


def test_a_damaged_revision_in_the_journal_is_one_clear_line(tmp_path):
    rules = rules_for("4mafia", {"mafia_meet_seconds": 0.001, "don_seconds": 0.001, "sheriff_seconds": 0.001})
    path = tmp_path / "j.jsonl"
    with Journal(path, rules) as journal:
        journal.write_entry(0.0, {"type": "setup", "roles": ROLES})
        journal.write_entry(1.0, {"type": "revise", "old": [], "new": "семь"})
    from voicehost.errors import JournalError

    with pytest.raises(JournalError, match=r"j\.jsonl:3: not a revision"):
        replay_entries(path)


def test_a_resumed_game_keeps_the_revised_words(tmp_path):
    from voicehost.live.table import open_table

    live = day_table(tmp_path / "j.jsonl")
    t = live.game.now + 1.0
    partial = spoken(t, "выставляю", "семь")
    live.hear(partial)
    live.hear([Revision(partial, spoken(t, "выставляю", "восемь"))])
    entries = list(live.entries)
    live.close()
    game, writer, resumed, _ = open_table(live.game.rules, tmp_path / "j.jsonl", resume=True)
    writer.close()
    assert game.today == [8] and [e.event for e in resumed if e.event["type"] == "word"] == \
        [e.event for e in entries if e.event["type"] == "word"]


def test_a_revision_during_an_undo_only_adds_its_new_words(tmp_path):
    """An undo rebuilds from the accepted inputs off the loop: a revision then
    must not rewrite them under it; its words not yet heard are heard."""
    live = day_table(tmp_path / "j.jsonl")
    t = live.game.now + 1.0
    partial = spoken(t, "выставляю")
    live.hear(partial)
    before = list(live.entries)
    live.undoing = True
    said = live.hear([Revision(partial, spoken(t, "выставляю", "семь"))])
    live.undoing = False
    assert [live.game.book.render(o) for o in said] == ["Принят номер 7"]
    assert live.entries[:len(before)] == before and live.game.today == [7]
    live.close()
    assert '"revise"' not in (tmp_path / "j.jsonl").read_text("utf-8")
    game, _, _ = replay_entries(tmp_path / "j.jsonl")
    assert game.today == [7]
