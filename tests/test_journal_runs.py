"""Heard words in the journal: heard as the rules hear them ("[unk]" for a
word the speech rules have no use for), held until something is written or
said, written as one run per line, and replaced by their utterance's final
result while still held. Whatever is written replays to the game played."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.conftest import ROLES, day_table, spoken
from voicehost.asr import Revision
from voicehost.errors import JournalError
from voicehost.game.protocol import snapshot
from voicehost.journal import Journal, replay_entries, resume_table
from voicehost.journal.lines import encode_line, scan_bytes
from voicehost.live import AudioClock, LiveTable
from voicehost.live.table import GROUP_SECONDS
from voicehost.phrases.grammar import load_grammar
from voicehost.phrases.listener import SpeechListener, StaticContext
from voicehost.phrases.words import Word
from voicehost.rules import rules_for

RULES = rules_for("4mafia", {"mafia_meet_seconds": 0.001, "don_seconds": 0.001, "sheriff_seconds": 0.001})


def word(text: str, start: float, end: float) -> dict:
    return {"type": "word", "word": text, "start": start, "end": end}


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


# ------------------------------------------------------------ the line format


@pytest.mark.parametrize("held", [
    [(31.5, word("[unk]", 31.5, 31.82)), (32.07, word("выставляю", 31.9, 32.3)), (33.0, word("семь", 32.4, 32.71))],
    [(1.234, word("пас", 1.234, 1.5)), (2.0, word("[unk]", 1.6, 1.701))],          # milliseconds
    [(0.1234567, word("слово", 0.1234567, 0.3))],                                  # off both grids
    [(5, word("0", 5, 6)), (6.5, word("", 6.5, 6.5))],                              # odd words stay words
], ids=["centiseconds", "milliseconds", "off-grid", "odd-words"])
def test_held_words_are_written_as_one_run_and_read_back_exactly(tmp_path, held):
    path = tmp_path / "j.jsonl"
    with Journal(path, RULES) as journal:
        journal.write_entry(0.0, {"type": "setup", "roles": ROLES})
        for t, event in held:
            journal.hold(t, event)
        assert len(path.read_text("utf-8").splitlines()) == 2   # held: nothing written yet
        journal.flush()
    scan = scan_bytes(path, path.read_bytes())
    got = [(e["t"], e["event"]) for _, e in scan.entries[1:]]
    assert got == held and all(type(a) is type(b) or {type(a), type(b)} == {int, float}
                               for (a, _), (b, _) in zip(got, held, strict=True))
    text = path.read_text("utf-8")
    if "31.82" not in text and "[unk]" in json.dumps(held, ensure_ascii=False):
        assert '"[unk]"' not in text.splitlines()[2]   # written as 0


def test_a_run_and_the_input_after_it_are_one_write(tmp_path):
    path = tmp_path / "j.jsonl"
    with Journal(path, RULES) as journal:
        journal.write_entry(0.0, {"type": "setup", "roles": ROLES})
        before = journal.writes
        for i in range(5):
            journal.hold(10.0 + i, word("[unk]", 10.0 + i, 10.5 + i))
        journal.write_entry(20.0, {"type": "tick"})
        assert journal.writes == before + 1
    lines = lines_of(path)
    assert lines[2]["ws"] == [0] * 5 and lines[3] == {"k": 20.0, "h": lines[3]["h"]}


def test_a_crash_loses_only_the_held_words(tmp_path):
    path = tmp_path / "j.jsonl"
    journal = Journal(path, RULES)
    journal.write_entry(0.0, {"type": "setup", "roles": ROLES})
    journal.hold(30.0, word("[unk]", 30.0, 30.3))
    crashed = tmp_path / "crashed.jsonl"
    crashed.write_bytes(path.read_bytes())   # the disk as a SIGKILL leaves it
    journal.close()                           # a clean close writes them
    assert len(replay_entries(crashed)[2]) == 1 and len(replay_entries(path)[2]) == 2


@pytest.mark.parametrize("run", [
    {"ws": [0, 0], "cs": [1, 2, 3]},                 # three numbers a word
    {"ws": [0], "cs": [1, 2, True]},
    {"ws": [0], "cs": [1, 2, 3.5]},
    {"ws": [{"w": 1}], "cs": [1, 2, 3]},
    {"ws": [1], "cs": [1, 2, 3]},                    # 0 is "[unk]"; no other number is a word
    {"ws": [0], "cs": [1, 2, 3], "ms": [1, 2, 3]},
    {"ws": [], "cs": []},
    {"ws": [0], "cs": [10 ** 40, 2, 3]},
    {"k": "soon"},
    {"k": 3.0, "t": 1},
], ids=lambda r: json.dumps(r)[:40])
def test_a_malformed_run_is_refused_naming_its_line(tmp_path, run):
    path = tmp_path / "j.jsonl"
    with Journal(path, RULES) as journal:
        journal.write_entry(0.0, {"type": "setup", "roles": ROLES})
    data = path.read_bytes()
    previous = json.loads(data.splitlines()[-1])["h"]
    line, _ = encode_line(previous, run, scan_bytes(path, data).key)   # well chained, but written by no voicehost
    path.write_bytes(data + line)
    with pytest.raises(JournalError, match=r"j\.jsonl:3: not a journal entry"):
        replay_entries(path)


def test_an_edited_number_in_a_run_is_refused_naming_its_line(tmp_path):
    path = tmp_path / "j.jsonl"
    with Journal(path, RULES) as journal:
        journal.write_entry(0.0, {"type": "setup", "roles": ROLES})
        journal.hold(30.0, word("выставляю", 30.0, 30.5))
        journal.hold(30.6, word("семь", 30.6, 31.0))
        journal.write_entry(31.0, {"type": "tick"})
    lines = path.read_text("utf-8").splitlines()
    lines[2] = lines[2].replace('"cs":[3000,', '"cs":[3001,')
    path.write_text("\n".join(lines) + "\n", "utf-8")
    with pytest.raises(JournalError, match=r"j\.jsonl:3: the journal was changed here"):
        replay_entries(path)


# ------------------------------------------------------------ words as the rules hear them


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_unk_is_a_word_the_rules_do_not_react_to(language):
    grammar = load_grammar(language)
    assert not grammar.reacts_to("[unk]")
    for known in [grammar.trigger, *grammar.fillers, *grammar.thanks, *grammar.passes, *grammar.wrong_forms,
                  *list(grammar.numbers)[:30], "7", "7-го", "—"]:
        assert grammar.reacts_to(known), known


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_the_speech_rules_judge_unknown_words_as_they_judge_unk(language):
    """The listener sees a word's text only through the tests `reacts_to`
    makes: a stream with every such word replaced by "[unk]" gives the same
    nominations, speech ends, questions and forbidden words."""
    grammar = load_grammar(language)
    rng = random.Random(7)
    rule_words = [grammar.trigger, *grammar.fillers, *grammar.thanks, *grammar.passes, *grammar.wrong_forms,
                  *list(grammar.numbers)[::7], "3", "11", "10-го", "—", "честно", "честное", "слово", "клянусь",
                  *[p for rule in grammar.forbidden for phrase in rule.phrases for p in phrase.split()],
                  *[a + "ий" for a in grammar.question_address], *[s + "ные" for s in grammar.question_subject]]
    other = ["коллеги", "я", "думаю", "красный", "игрок!", "кандидатуруу", "ну", "unk", "[unk]", "мафия"]
    for _ in range(300):
        stream, t = [], 0.0
        for _ in range(rng.randint(1, 14)):
            t += rng.choice([0.0, 0.3, 1.2, 1.6, 9.9, 10.2])
            text = rng.choice(rule_words if rng.random() < 0.5 else other)
            stream.append(Word(text, round(t, 2), round(t + 0.4, 2)))
            t += 0.4
        reduced = [w if grammar.reacts_to(w.word) else Word("[unk]", w.start, w.end) for w in stream]
        judged = []
        for words in (stream, reduced):
            listener = SpeechListener(grammar, StaticContext(), pause_limit=10.0, pass_silence=1.5)
            events = [e.to_json() for w in words for e in listener.hear(w)]
            events += [e.to_json() for e in listener.expire(t + 5)]
            judged.append(events)
        assert judged[0] == judged[1], [w.word for w in stream]


def heard_words(live: LiveTable) -> list[str]:
    return [e.event["word"] for e in live.entries if e.event["type"] == "word"]


def test_the_table_hears_unknown_words_as_unk_and_explains_them_in_its_language(tmp_path):
    live = day_table(tmp_path / "j.jsonl", explain_rejections=True)
    t = live.game.now + 1.0
    said = live.hear(spoken(t, "коллеги", "выставляю", "красного", "семь"))
    assert heard_words(live) == ["[unk]", "выставляю", "[unk]", "семь"] and live.game.today == []
    assert [live.game.book.render(o) for o in said] == [
        "Не принято: между «выставляю» и номером прозвучало лишнее слово"]
    live.close()
    text = (tmp_path / "j.jsonl").read_text("utf-8")
    assert "коллеги" not in text and "красного" not in text and "выставляю" in text


def test_word_times_are_kept_to_the_centisecond(tmp_path):
    live = day_table(tmp_path / "j.jsonl")
    t = live.game.now + 1.0
    live.hear([Word("выставляю", t + 0.123456, t + 0.654321)])
    event = live.entries[-1].event
    assert (event["start"], event["end"]) == (round(t + 0.123456, 2), round(t + 0.654321, 2))


def test_words_nobody_answered_are_held_until_a_sync(tmp_path):
    path = tmp_path / "j.jsonl"
    live = day_table(path)
    t = live.game.now + 1.0
    live.hear(spoken(t, "коллеги", "я", "думаю"))
    live.journal.sync()
    assert not any("ws" in line for line in lines_of(path))      # held, not written
    live.sync()                                                   # an answer to a typed line syncs
    assert [line["ws"] for line in lines_of(path) if "ws" in line] == [[0, 0, 0]]


def test_a_word_the_table_answered_is_written_before_it_is_said(tmp_path):
    path = tmp_path / "j.jsonl"
    live = day_table(path)
    t = live.game.now + 1.0
    said = live.hear(spoken(t, "коллеги", "выставляю", "семь"))
    assert [live.game.book.render(o) for o in said] == ["Принят номер 7"]
    live.journal.sync()
    assert [line["ws"] for line in lines_of(path) if "ws" in line] == [[0, "выставляю", "семь"]]


def test_held_words_are_written_at_an_utterance_end_once_group_seconds_passed(tmp_path):
    path = tmp_path / "j.jsonl"
    live = day_table(path, speech_seconds=120.0)   # no "10 seconds left" on the way
    t = live.game.now + 1.0
    first = spoken(t, "я", "думаю")
    live.hear(first)
    live.hear([Revision(first, first)])
    live.journal.sync()
    assert not any("ws" in line for line in lines_of(path))
    later = spoken(t + GROUP_SECONDS, "что")
    live.hear(later)
    live.hear([Revision(later, later)])
    live.journal.sync()
    assert [line["ws"] for line in lines_of(path) if "ws" in line] == [[0, 0, 0]]


def test_an_utterance_still_held_is_written_as_its_final_result(tmp_path):
    path = tmp_path / "j.jsonl"
    live = day_table(path)
    t = live.game.now + 1.0
    partial = spoken(t, "коллеги", "я", "думаю", "пятый")
    assert live.hear(partial) == []
    final = spoken(t + 0.04, "коллеги", "мне", "кажется", "пятый", "красный", step=0.5)
    assert live.hear([Revision(partial, final)]) == []
    played = live.game
    live.close()
    assert '"revise"' not in path.read_text("utf-8")
    run = next(line for line in lines_of(path) if "ws" in line)
    assert run["ws"] == [0, 0, 0, "пятый", 0] and run["cs"][0] == round((t + 0.04) * 100)
    game, _, _ = replay_entries(path)
    assert snapshot(game) == snapshot(played)


def test_a_revision_of_answered_words_names_its_mark_and_replays(tmp_path):
    path = tmp_path / "j.jsonl"
    live = day_table(path)
    t = live.game.now + 1.0
    live.hear(spoken(t, "коллеги", "я"))                     # held: the mark is before them
    partial = spoken(t + 1.2, "выставляю", "семь")
    live.hear(partial)                                       # answered: written, with the held words
    final = spoken(t, "коллеги", "я", "выставляю", "восемь")
    said = live.hear([Revision(spoken(t, "коллеги", "я") + partial, final)])
    assert [live.game.book.render(o) for o in said] == ["Поправка: номер 7 не выставлен", "Поправка: Принят номер 8"]
    played = live.game
    live.close()
    revise = next(line["event"] for line in lines_of(path) if line.get("event", {}).get("type") == "revise")
    assert revise["from"] == 2 and revise["old"] == [0, 1, 2, 3] and revise["new"]["ws"] == [0, 0, "выставляю",
                                                                                           "восемь"]
    game, _, _ = replay_entries(path)
    assert snapshot(game) == snapshot(played) and game.today == [8]
    table, _, journal = resume_table(path)
    journal.close()
    assert snapshot(table.game) == snapshot(played)


def test_a_revision_whose_mark_is_not_where_it_says_is_refused(tmp_path):
    path = tmp_path / "j.jsonl"
    live = day_table(path)
    t = live.game.now + 1.0
    partial = spoken(t, "выставляю", "семь")
    live.hear(partial)
    live.hear([Revision(partial, spoken(t, "выставляю", "восемь"))])
    live.close()
    lines = path.read_text("utf-8").splitlines()
    entries = [json.loads(line) for line in lines]
    index = next(i for i, e in enumerate(entries) if e.get("event", {}).get("type") == "revise")
    # rewrite the chain from the revision on with a mark three inputs later: a well-formed lie
    previous = entries[index - 1]["h"]
    out = lines[:index]
    key = scan_bytes(path, path.read_bytes()).key   # a forger holding the key: only the replay catches it
    for e in entries[index:]:
        e.pop("h")
        if e.get("event", {}).get("type") == "revise":
            e["event"]["from"] += 3
        line, previous = encode_line(previous, e, key)
        out.append(line.decode("utf-8").rstrip("\n"))
    path.write_text("\n".join(out) + "\n", "utf-8")
    with pytest.raises(JournalError, match=rf"j\.jsonl:{index + 1}: not a revision"):
        replay_entries(path, trust_unkeyed=True)


def test_a_version_3_journal_with_a_revision_still_replays(tmp_path):
    """Journals written before runs of words: single word lines, revise lines with both lists."""
    path = tmp_path / "v3.jsonl"
    entries = [
        {"journal": 3, "ruleset": RULES.name, "rules": RULES.to_json()},
        {"t": 0.0, "event": {"type": "setup", "roles": ROLES}},
        {"t": 30.0, "event": {"type": "tick"}},
        {"w": ["выставляю", 31.0, 31.5]},
        {"w": ["семь", 31.6, 32.1]},
        {"t": 33.0, "event": {"type": "revise",
                              "old": [word("выставляю", 31.0, 31.5), word("семь", 31.6, 32.1)],
                              "new": [word("выставляю", 31.02, 31.5), word("восемь", 31.62, 32.1)]}},
    ]
    previous, data = "", b""
    for entry in entries:
        line, previous = encode_line(previous, entry)
        data += line
    path.write_bytes(data)
    game, _, _ = replay_entries(path, trust_unkeyed=True)
    assert game.today == [8]


def test_a_version_3_journal_resumed_goes_on_with_named_revisions(tmp_path):
    from voicehost.live.table import open_table

    path = tmp_path / "v3.jsonl"
    entries = [
        {"journal": 3, "ruleset": RULES.name, "rules": RULES.to_json()},
        {"t": 0.0, "event": {"type": "setup", "roles": ROLES}},
        {"t": 30.0, "event": {"type": "tick"}},
        {"w": ["я", 31.0, 31.5]},
        {"t": 32.0, "event": {"type": "revise", "old": [word("я", 31.0, 31.5)], "new": [word("мне", 31.0, 31.4)]}},
    ]
    previous, data = "", b""
    for entry in entries:
        line, previous = encode_line(previous, entry)
        data += line
    path.write_bytes(data)
    game, writer, accepted, _ = open_table(RULES, path, resume=True, trust_unkeyed=True)
    clock = AudioClock()
    clock.skip_to(game.now)
    live = LiveTable(game, clock, journal=writer, entries=accepted)
    t = game.now + 1.0
    partial = spoken(t, "выставляю", "семь")
    assert [live.game.book.render(o) for o in live.hear(partial)] == ["Принят номер 7"]
    live.hear([Revision(partial, spoken(t, "выставляю", "восемь"))])
    played = live.game
    live.close()
    game, _, _ = replay_entries(path, trust_unkeyed=True)
    assert game.today == [8] and snapshot(game) == snapshot(played)


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_every_word_the_grammar_recognizer_listens_for_is_kept_as_said(language):
    """What the grammar recognizer can hear besides [unk] reaches the rules unchanged."""
    from voicehost.asr import grammar_phrases

    grammar = load_grammar(language)
    phrases = [w for phrase in grammar_phrases(grammar) for w in phrase.split()]
    assert phrases and [w for w in phrases if not grammar.reacts_to(w)] == []
