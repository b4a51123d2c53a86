"""What the table renders at start-up: every line it can say whose values are
few (the answers to words and their corrections in memory, the rest on disk),
so during a game the voice synthesizes only the open-ended lines."""
from __future__ import annotations

import json
import re

import pytest

from tests.conftest import GAMES
from tests.fakes import FakeSink
from tests.gameparts import moderator_outputs, said_keys
from voicehost.asr import Revision
from voicehost.audio import Clip
from voicehost.game.events import parse_event
from voicehost.game.model import Output, OutputKind
from voicehost.game.moderator import Moderator, new_game
from voicehost.live import AudioClock, LiveTable, speaking
from voicehost.live.playback import Speaker
from voicehost.live.speaking import OPEN_EXPLANATIONS, OPEN_LINES, fixed_phrases, prerender, rare_phrases
from voicehost.live.texts import live_texts
from voicehost.phrases.words import Word
from voicehost.rules import parse_set, preset_names, rules_for
from voicehost.tts import VoiceError

SCRIPTS = sorted(GAMES.glob("*.jsonl"))
ROLES = {"1": "citizen", "2": "mafia", "3": "citizen", "4": "don", "5": "citizen", "6": "sheriff",
         "7": "mafia", "8": "citizen", "9": "citizen", "10": "citizen"}


def _rules(args: list[str]):
    name = args[args.index("--ruleset") + 1] if "--ruleset" in args else "4mafia"
    overrides = dict(a.split("=", 1) for a in args[args.index("--set") + 1:][:1]) if "--set" in args else {}
    return rules_for(name, overrides or None)


def _open(output) -> bool:
    return output.key in OPEN_LINES or output.values.get("explain") in OPEN_EXPLANATIONS


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_every_line_a_whole_game_says_is_prerendered_unless_open_ended(script):
    args = json.loads(script.with_suffix(".expect.json").read_text("utf-8"))["args"]
    game = new_game(_rules(args))
    ready = set(fixed_phrases(game)) | set(rare_phrases(game))
    said = [o for o in moderator_outputs(script, args)]
    assert said
    missing = {game.book.render(o) for o in said if not _open(o)} - ready
    assert not missing, sorted(missing)


def _template(text: str) -> re.Pattern[str]:
    parts = re.split(r"\{\w+\}", text)
    return re.compile(".+".join(re.escape(p) for p in parts) + r"\Z", re.S)


def test_every_key_the_moderator_says_has_its_lines_ready_or_is_named_open_ended():
    games = [new_game(rules_for("4mafia")), new_game(rules_for("city")),
             new_game(rules_for("fiim", {"explain_rejections": True}))]
    ready = [t for g in games for t in fixed_phrases(g) + rare_phrases(g)]
    book = games[0].book
    keys = said_keys() | {"correction", "correction_withdrawn"}
    for key in sorted(keys - OPEN_LINES):
        pattern = _template(book.say[key])
        assert any(pattern.match(t) for t in ready), key
    assert OPEN_LINES - {"day_begins"} <= keys  # only real keys are excused


def test_the_rare_lines_stay_out_of_memory_and_every_finite_value_is_there():
    game = new_game(rules_for("4mafia"))
    fixed, rare = fixed_phrases(game), rare_phrases(game)
    assert not set(fixed) & set(rare)
    assert {"Принят номер 10", "Поправка: Принят номер 4", "Поправка: номер 9 не выставлен",
            "Слово игроку номер 3", "Поправка: Слово игроку номер 3"} <= set(fixed)
    assert {"Против игрока номер 7: 0", "Против игрока номер 7: 10", "Игроку номер 2 замечание, всего 2",
            "Игроку номер 2 замечание снято, всего 3", "Игрок номер 5 — красный"} <= set(rare)
    assert live_texts("phrasebook.ru").text("journal_failed_say") in fixed   # said when the disk cannot be
    assert not [t for t in fixed + rare if "{" in t]
    assert not [t for t in fixed if "рейтинг" in t or "платформ" in t]  # export comments are never said


def test_a_club_confirmation_and_its_correction_are_the_ones_ready():
    game = new_game(rules_for("4mafia", {"confirmation": "Кандидатура {seat} принята"}))
    fixed = set(fixed_phrases(game))
    assert {"Кандидатура 6 принята", "Поправка: Кандидатура 6 принята"} <= fixed
    assert "Принят номер 6" not in fixed
    silent = new_game(rules_for("4mafia", {"confirm_nominations": False}))
    assert not [t for t in fixed_phrases(silent) if "Принят" in t or t.startswith("Поправка: номер")]


class CountingVoice:
    """A fake voice (named so) that counts what it is asked to synthesize."""

    name = "counting"

    def __init__(self):
        self.asked: list[str] = []

    def synthesize(self, text):
        self.asked.append(text)
        yield Clip(b"\1\0" * 1600, 16000)


def test_a_revision_at_the_table_says_only_prerendered_lines(tmp_path):
    voice = CountingVoice()
    sink = FakeSink()
    clock = AudioClock()
    rules = rules_for("4mafia", {"mafia_meet_seconds": 0.001, "don_seconds": 0.001, "sheriff_seconds": 0.001})
    game = Moderator.for_rules(rules)
    speaker = Speaker(voice, sink, None, clock.now, realtime=False)
    told = []
    prerender(speaker, game, tmp_path, tell=told.append)
    assert told == [len(set(fixed_phrases(game)))]   # the rare lines wait until said
    voice.asked.clear()
    live = LiveTable(game, clock, speaker)
    live.apply(parse_event({"type": "setup", "roles": ROLES}))
    clock.skip_to(30.0)
    live.tick()
    t = live.game.now + 1.0
    partial = (Word("выставляю", t, t + 0.5), Word("семь", t + 0.6, t + 1.0))
    live.hear(partial)
    final = (Word("выставляю", t, t + 0.5), Word("восемь", t + 0.6, t + 1.0), Word("спасибо", t + 1.2, t + 1.6))
    said = [live.game.book.render(o) for o in live.hear([Revision(partial, final)])]
    assert said == ["Поправка: номер 7 не выставлен", "Поправка: Принят номер 8", "Поправка: Слово игроку номер 2"]
    assert speaker.wait(30)
    assert voice.asked == []  # the answers and their corrections all came from memory
    live.apply(parse_event({"type": "foul", "seat": 4}))
    assert speaker.wait(30)
    speaker.say(speaker.spoken[-1].text)   # the same rare line again
    assert speaker.wait(30)
    speaker.close()
    first_foul = speaker.spoken[-1].text
    assert voice.asked == [first_foul] and speaker.spoken[-1].cached  # rendered the first time it was said, once
    assert first_foul in speaker.on_disk and speaker.on_disk[first_foul].is_file()
    assert len(sink.clips) == len(speaker.spoken) >= 6


def test_a_second_start_renders_nothing(tmp_path):
    game = new_game(rules_for("4mafia"))
    first = Speaker(CountingVoice(), FakeSink(), None, lambda: 0.0)
    prerender(first, game, tmp_path)
    assert len(first.voice.asked) == len(set(fixed_phrases(game)))
    rare = rare_phrases(game)[0]
    first.say(rare)            # said at the first evening: rendered then, and kept
    assert first.wait(10) and first.voice.asked[-1] == rare and not first.spoken[0].cached
    first.close()
    second = Speaker(CountingVoice(), FakeSink(), None, lambda: 0.0)
    told = []
    prerender(second, game, tmp_path, tell=told.append)
    assert second.voice.asked == [] and told == []
    assert set(second.cache) == set(fixed_phrases(game)) and set(second.on_disk) == {rare}
    second.say(rare)
    assert second.wait(10)
    assert second.spoken[0].cached and second.voice.asked == []
    second.close()


def test_the_heap_is_trimmed_after_a_synthesized_line_not_after_a_cached_one(monkeypatch):
    """glibc keeps what a synthesis freed (tools/bench_piper.py: +340 MB over
    50 long sentences without a trim): the speaker gives it back after each
    line it had to synthesize, even one whose voice failed."""
    import voicehost.asr

    trims = []
    monkeypatch.setattr(voicehost.asr, "malloc_trim", lambda: trims.append(1))
    voice = CountingVoice()
    speaker = Speaker(voice, FakeSink(), None, lambda: 0.0)
    speaker.cache["Спасибо"] = Clip(b"\0\0" * 160, 16000)
    speaker.say("Спасибо")
    assert speaker.wait(10) and trims == []
    speaker.say("Выставлены игроки номер 1, 2, 3")
    assert speaker.wait(10) and trims == [1] and voice.asked == ["Выставлены игроки номер 1, 2, 3"]

    def broken(text):
        raise VoiceError("the voice failed (a fake failure)")
        yield

    voice.synthesize = broken
    speaker.say("Выставлены игроки номер 4, 5")
    assert speaker.wait(10) and trims == [1, 1]
    speaker.close()


def test_a_phrase_cache_the_disk_cannot_keep_is_no_error(tmp_path):
    """A file where the cache folder should be (or a full, read-only disk):
    the lines are rendered and said all the same, and rendered again next time."""
    blocked = tmp_path / "phrase-cache"
    blocked.write_text("not a folder")
    game = new_game(rules_for("4mafia"))
    speaker = Speaker(CountingVoice(), FakeSink(), None, lambda: 0.0)
    prerender(speaker, game, blocked)
    assert set(speaker.cache) == set(fixed_phrases(game))
    rare = rare_phrases(game)[0]
    speaker.say(rare)
    speaker.say(rare)
    assert speaker.wait(10)
    speaker.close()
    assert speaker.voice.asked.count(rare) == 2 and len(speaker.spoken) == 2   # said, never kept


def _hand_listed(game: Moderator) -> tuple[set[str], set[str]]:
    """The prerendered lines as live/speaking.py listed their keys by hand
    before it read the key registry: the oracle the registry must agree with."""
    book, rules, seats = game.book, game.rules, range(1, game.max_seat + 1)
    counts = range(game.max_seat + 1)
    fixed = {text for key, text in book.say.items() if "{" not in text and not key.startswith("export_")}
    fixed |= {book.text(key, seat=seat) for key in ("vote_question", "leaves", "killed", "number") for seat in seats}
    said = [("foul", {"seat": s, "count": c}) for s in seats for c in (1, 2)]
    said += [("unfoul", {"seat": s, "count": c}) for s in seats for c in range(4)]
    said += [("vote_count", {"seat": s, "count": c}) for s in seats for c in counts]
    said += [(key, {"count": c}) for key in ("lift_count", "protest_changed", "protest_annulled",
                                             "protest_replayed", "protest_failed") for c in counts]
    if rules.silence == "skip":
        said += [("silenced_skips", {"seat": s}) for s in seats]
    else:
        said += [("silenced_speaks", {"seat": s, "seconds": sec}) for s in seats
                 for sec in {rules.silenced_speech_seconds, rules.silenced_speech_seconds_few}]
    said += [(key, {"seat": s}) for key in ("third_foul", "removed_fouls", "disqualified", "left_table",
                                            "single_day_one", "single_nominee", "best_player", "worst_player",
                                            "don_yes", "don_no", "sheriff_black", "sheriff_red",
                                            "out_of_turn") for s in seats]
    said += [(key, {"seat": s, "card": role}) for key in game.variant.card_lines for s in seats
             for role in book.cards]
    rare = {book.render(Output(0.0, OutputKind.SAY, key, False, values)) for key, values in said}
    return fixed, rare


@pytest.mark.parametrize("name", preset_names())
@pytest.mark.parametrize("overrides", [[], ["silence=short_speech"], ["silence=skip"], ["confirm_nominations=false"],
                                       ["explain_rejections=true", "required_fillers=кандидатуру,игрока"],
                                       ["silenced_speech_seconds=15", "silenced_speech_seconds_few=15"]])
def test_the_key_registry_prerenders_the_lines_once_listed_by_hand(name, overrides):
    game = new_game(rules_for(name, parse_set(overrides) or None))
    fixed, rare = _hand_listed(game)
    # The answers to words, their corrections and the disk's two lines were never key lists.
    fixed |= {game.book.render(o) for o in speaking._answers(game)} | set(speaking.corrections(game))
    said = live_texts(game.rules.phrasebook)
    fixed |= {said.text("journal_failed_say"), said.text("journal_rewritten_say")}
    fixed |= set(speaking.host_lines(game))   # the host's spoken commands said back (SPEC §7.2)
    assert set(fixed_phrases(game)) == fixed
    assert set(rare_phrases(game)) == rare - fixed
