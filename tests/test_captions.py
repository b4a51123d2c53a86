"""Both recognizers together (issue 19 item 3): the grammar recognizer
decides, the open one beside it gives the captions and the forms of
forbidden words the grammar cannot list; `[asr] captions` is on by default
where memory allows. The recognizers here are scripted: what each hears on
each chunk is given, so what the pair makes of it is exact (the real Korean
model's pair is in test_real_fillers.py)."""
from __future__ import annotations

import threading
import time

import pytest

from tests.captionparts import OVERHEARD, Scripted, pair
from tests.conftest import day_table, spoken
from voicehost.asr import (
    CATCH_UP,
    AsrError,
    Revision,
    available_mb,
    choose_captions,
)
from voicehost.config import ConfigError, load_config
from voicehost.phrases.words import Word

CHUNK = b"\0\0" * 1600  # 0.1 s


def honest_speech() -> tuple[list[Word], list[Word], list[Word]]:
    """"честное слово, выставляю семь": the partials' words, the grammar's
    final words (the unlisted form as [unk]), the captions' final words."""
    partial = [Word("[unk]", 1.0, 1.5), Word("слово", 1.5, 1.9), Word("выставляю", 2.0, 2.6), Word("семь", 2.7, 3.0)]
    final = [Word("[unk]", 1.02, 1.48), Word("слово", 1.5, 1.9), Word("выставляю", 2.0, 2.6), Word("семь", 2.7, 3.0)]
    captions = [Word("честное", 1.0, 1.46), Word("слово", 1.5, 1.92), Word("выставляю", 2.0, 2.62),
                Word("семь", 2.7, 3.01)]
    return partial, final, captions


def test_only_the_forbidden_forms_the_grammar_cannot_list_are_overheard():
    # a prefix rule's forms ("честн…", "клянусь…") are never in the grammar's list
    assert OVERHEARD("честное") and OVERHEARD("Честностью,") and OVERHEARD("клянусь") and OVERHEARD("клятвой")
    assert not OVERHEARD("пари"), "listed (a rule's whole word): the grammar hears it itself"
    assert not OVERHEARD("семерых") and not OVERHEARD("хорошо") and not OVERHEARD("[unk]") and not OVERHEARD("")


def test_the_final_result_takes_the_forbidden_form_the_captions_heard_at_the_unks_time():
    partial, final, captions = honest_speech()
    recognizer = pair(Scripted([(partial, False), ([Revision(tuple(partial), tuple(final))], True)]),
                      Scripted([([], False), (captions, True)]))
    assert recognizer.accept(CHUNK) == partial      # partials are never held for the captions
    (revision,) = recognizer.accept(CHUNK)
    assert isinstance(revision, Revision) and revision.old == tuple(partial)
    assert revision.new == (Word("честное", 1.02, 1.48), *final[1:])  # the word from the captions, the grammar's times
    recognizer.close()


def test_a_caption_far_from_every_unk_or_no_forbidden_word_changes_nothing():
    final = [Word("[unk]", 1.0, 1.4), Word("выставляю", 2.0, 2.6), Word("семь", 2.7, 3.0)]
    for captions in ([Word("честное", 5.0, 5.4)],                        # elsewhere in time
                     [Word("хорошо", 1.0, 1.4)],                         # no rule word
                     [Word("пари", 1.0, 1.4)]):                          # listed: the grammar's own call
        recognizer = pair(Scripted([(final, True)]), Scripted([(captions, True)]))
        assert recognizer.accept(CHUNK) == final, captions
        recognizer.close()


def test_the_final_result_waits_for_slow_captions_but_never_longer_than_catch_up():
    partial, final, captions = honest_speech()
    script = [(partial, False), ([Revision(tuple(partial), tuple(final))], True)]
    slow = pair(Scripted(list(script)), Scripted([([], False), (captions, True)], delay=0.1))
    slow.accept(CHUNK)
    (revision,) = slow.accept(CHUNK)
    assert isinstance(revision, Revision) and revision.new[0].word == "честное"
    slow.close()

    stuck = threading.Event()
    hung = Scripted([([], False), (captions, True)])
    hung.accept = lambda pcm: stuck.wait(10) and []  # type: ignore[method-assign]
    late = pair(Scripted(list(script)), hung)
    late.accept(CHUNK)
    began = time.monotonic()
    (revision,) = late.accept(CHUNK)
    waited = time.monotonic() - began
    assert isinstance(revision, Revision) and revision.new == tuple(final)  # nothing heard in time: as decided
    assert CATCH_UP - 0.05 <= waited < CATCH_UP + 1.0
    stuck.set()
    late.close()


def test_each_caption_word_fills_one_unk_and_the_closest_one():
    final = [Word("[unk]", 1.0, 1.3), Word("[unk]", 1.3, 1.7)]
    captions = [Word("честное", 1.32, 1.7), Word("клянешься", 1.0, 1.28)]
    recognizer = pair(Scripted([(final, True)]), Scripted([(captions, True)]))
    assert [w.word for w in recognizer.accept(CHUNK)] == ["клянешься", "честное"]
    recognizer.close()


def test_the_host_gets_the_suggestion_for_a_form_only_the_captions_heard(tmp_path):
    """Through the live table: the 3.6.10 suggestion for "честное", which the
    grammar heard as [unk]; a replay of the journal holds it too."""
    from voicehost.journal import replay_entries

    path = tmp_path / "j.jsonl"
    live = day_table(path)
    emitted = []
    live.listeners.append(emitted.extend)
    t = live.game.now + 1.0
    partial = spoken(t, "[unk]", "слово")
    final = tuple(Word(w.word, w.start + 0.01, w.end) for w in partial)
    captions = [Word("честное", t, t + 0.5), Word("слово", t + 0.5, t + 1.0)]
    recognizer = pair(Scripted([(partial, False), ([Revision(tuple(partial), final)], True)]),
                      Scripted([([], False), (captions, True)]))
    for _ in range(2):
        live.hear(recognizer.accept(CHUNK))
    recognizer.close()
    assert [o.key for o in emitted] == ["3.6.10"]
    assert emitted[0].values["word"] == "честное"
    played = live.game
    live.close()
    game, _, _ = replay_entries(path)
    assert [o.key for o in game.outputs if o.key == "3.6.10"] == ["3.6.10"]
    assert game.now == pytest.approx(played.now)


def test_captions_auto_runs_them_where_memory_and_a_second_core_allow():
    assert choose_captions("auto", 2048, 2).on and choose_captions("on", 100, 1).on
    assert not choose_captions("off", 8192, 8).on
    assert "only 600 MB" in choose_captions("auto", 600, 4).why and not choose_captions("auto", 600, 4).on
    assert not choose_captions("auto", 4096, 1).on and not choose_captions("auto", None, 4).on
    with pytest.raises(AsrError, match=r"\[asr\] captions must be one of auto, on, off, got 'yes'"):
        choose_captions("yes", 4096, 4)


def test_available_memory_is_read_from_meminfo(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:        8000000 kB\nMemFree:  100 kB\nMemAvailable:    2097152 kB\n")
    assert available_mb(meminfo) == 2048
    meminfo.write_text("MemTotal: 1 kB\n")
    assert available_mb(meminfo) is None
    assert available_mb(tmp_path / "none") is None


def test_the_captions_setting_reads_auto_on_off_and_the_old_booleans(tmp_path):
    path = tmp_path / "config.toml"
    assert load_config(None).asr.captions == "auto"
    for written, read in (("true", "on"), ("false", "off"), ('"auto"', "auto"), ('"off"', "off")):
        path.write_text(f"[asr]\ncaptions = {written}\n")
        assert load_config(path).asr.captions == read, written
    for written, said in (('"sometimes"', "'sometimes'"), ("3", "3"), ("[true]", r"\[True\]")):
        path.write_text(f"[asr]\ncaptions = {written}\n")
        with pytest.raises(ConfigError, match=rf"\[asr\] 'captions' must be one of auto, on, off, got {said}$"):
            load_config(path)


class Captioner(Scripted):
    """Captions that say so when their utterance is finished, or fail on a chunk."""

    def __init__(self, script, final: list, fail_on: int | None = None) -> None:
        super().__init__(script)
        self.final = final
        self.fail_on = fail_on
        self.fed = 0

    def accept(self, pcm: bytes) -> list:
        self.fed += 1
        if self.fed == self.fail_on:
            raise RuntimeError("the captions' decoder broke")
        return super().accept(pcm)

    def finish(self) -> list:
        super().finish()
        return list(self.final)


def test_finish_ends_the_captions_utterance_and_the_pair_goes_on_listening():
    """An evening's games listen with one pair: `finish` at a game's end
    gives the captions' last words and the captions keep hearing after it."""
    decider = Scripted([([Word("[unk]", 0.0, 0.4)], True), ([], False)])
    captioner = Captioner([([Word("ну", 0.0, 0.4)], False), ([Word("вот", 5.0, 5.3)], False)],
                          final=[Word("значит", 0.5, 0.9)])
    recognizer = pair(decider, captioner)
    recognizer.accept(CHUNK)
    recognizer.finish()
    assert [w.word for w in recognizer.captions] == ["ну", "значит"] and recognizer.captioning
    recognizer.accept(CHUNK)          # the next game
    recognizer.finish()
    assert [w.word for w in recognizer.captions] == ["ну", "значит", "вот", "значит"]
    recognizer.close()
    assert not recognizer.captioning and decider.closed and captioner.closed


def test_failed_captions_keep_nothing_and_the_grammar_goes_on_deciding():
    decider = Scripted([([Word("выставляю", 0.0, 0.5)], False), ([Word("[unk]", 0.6, 0.9)], True)] * 50)
    captioner = Captioner([], final=[], fail_on=2)
    recognizer = pair(decider, captioner)
    heard = []
    for _ in range(100):
        heard += recognizer.accept(CHUNK)
    assert not recognizer.captioning
    assert recognizer._queue.qsize() == 0, "no audio piles up for captions that no longer hear"
    assert len(heard) == 100
    began = time.monotonic()
    recognizer.finish()
    assert time.monotonic() - began < 0.2
    recognizer.close()


def test_a_recording_waits_for_the_captions_whatever_it_takes():
    """`catch_up = None` (a recording, fed faster than real time): the final
    result waits until the captions heard its audio, so the journal does not
    depend on the machine's speed."""
    partial, final, captions = honest_speech()
    recognizer = pair(Scripted([(partial, False), ([Revision(tuple(partial), tuple(final))], True)]),
                      Scripted([([], False), (captions, True)], delay=CATCH_UP + 0.3))
    recognizer.catch_up = None
    recognizer.accept(CHUNK)
    (revision,) = recognizer.accept(CHUNK)
    assert isinstance(revision, Revision) and revision.new[0].word == "честное"
    recognizer.close()


def test_the_microphone_pipeline_times_every_game_from_its_own_start_and_leaves_the_recognizer_open():
    """One recognizer for an evening: its stream time runs on, game 2's words
    are timed from game 2's audio (not an hour late), the captions shifted
    alike, and the recognizer stays open for the next game."""
    import types

    from tests.conftest import run_async
    from tests.fakes import FakeMicrophone
    from voicehost.live.listening import listen

    decider = Scripted([([], False)] * 30 + [([Word("семь", 30 * 0.1 + 0.2, 30 * 0.1 + 0.5)], True)])
    captioner = Captioner([([], False)] * 30 + [([Word("семь", 30 * 0.1 + 0.2, 30 * 0.1 + 0.5)], False)], final=[])
    recognizer = pair(decider, captioner)
    clock = types.SimpleNamespace(t=0.0)
    clock.at = lambda monotonic: clock.t   # the game time the thread started at
    posted: list = []
    live = types.SimpleNamespace(lag=1.0, hear=posted.extend, open_captions=None,
                                 hearing=types.SimpleNamespace(host_audio=None))   # no host channel
    run_async(listen(live, FakeMicrophone([CHUNK] * 30), recognizer, clock, lambda: False))   # game 1: 3 s, silent
    assert not decider.closed and recognizer.captioning
    clock.t = 100.0                                                                     # game 2's clock
    run_async(listen(live, FakeMicrophone([CHUNK]), recognizer, clock, lambda: False))
    (word,) = [w for w in posted if isinstance(w, Word)]
    # its audio began at stream time 3.0 s: 0.2 s into game 2, game time 100 - lag + 0.2
    assert word.start == pytest.approx(99.2) and word.end == pytest.approx(99.5)
    assert [(w.word, round(w.start, 2)) for w in live.open_captions()] == [("семь", 99.2)]
    captioner.fail_on = captioner.fed + 1
    run_async(listen(live, FakeMicrophone([CHUNK]), recognizer, clock, lambda: False))
    assert live.open_captions() is None, "failed captions: the page shows the rule words"
    recognizer.close()


def test_a_recorded_game_hears_the_captions_words_whatever_the_machines_speed(tmp_path):
    """`voicehost run --audio-file`: the recording's pair waits for its
    captions (`catch_up = None`), so the host gets the suggestion even when
    the captions decode slower than the grammar; the page has the captions."""
    from tests.conftest import run_async
    from tests.fakes import FakeMicrophone
    from voicehost.live.listening import HostScript, play_recording

    live = day_table(tmp_path / "j.jsonl")
    emitted = []
    live.listeners.append(emitted.extend)
    partial, final, captions = honest_speech()
    recognizer = pair(Scripted([(partial, False), ([Revision(tuple(partial), tuple(final))], True)]),
                      Scripted([([], False), (captions, True)], delay=CATCH_UP + 0.2))
    run_async(play_recording(live, FakeMicrophone([CHUNK, CHUNK]), recognizer, HostScript(None, 10), live.clock))
    assert recognizer.catch_up is None and not recognizer.captioning, "played through, then closed"
    assert "3.6.10" in [o.key for o in emitted]
    live.close()
