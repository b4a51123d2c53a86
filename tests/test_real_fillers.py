"""The grammar without [unk] (issue 19 item 2), with the real Korean model,
which has no [unk]: its most frequent words, read from its own graph, stand
for every other sound, so free speech nominates nobody while the committed
fixture's nominations are all heard, and `auto` takes the grammar."""
from __future__ import annotations

import numpy as np
import pytest

from tests.realparts import KO_MODEL, ko_live_model
from tools.latency_fixture import FIXTURE, STAND_INS, _espeak, load_transcript, translate
from voicehost.asr import VoskRecognizer, filler_split, grammar_fillers, model_knows, plain_words
from voicehost.asr.choice import syllables
from voicehost.audio import RATE, read_wav
from voicehost.phrases.grammar import load_grammar
from voicehost.phrases.listener import Nomination, SpeechListener, StaticContext
from voicehost.vocabulary import frequent_words

# Free Korean speech between nominations (espeak-ng; "어제", a stand-in, is a number said in passing).
FREE = ["안녕하세요 만나서 반갑습니다", "오늘 날씨가 좋네요", "이 사람은 정말 이상해요", "어제 영화를 봤어요",
        "커피 한 잔 주세요", "내일 다시 만나요"]


@pytest.fixture(scope="module")
def fillers():
    return grammar_fillers(KO_MODEL, None, sorted(STAND_INS))[0]


def free_speech() -> bytes:
    rng = np.random.default_rng(3)
    parts = []
    for text in FREE:
        parts += [_espeak(text, 160), rng.normal(0, 30, int(RATE * 1.5))]
    return np.clip(np.concatenate(parts), -32768, 32767).astype("<i2").tobytes()


def heard(pcm: bytes, fillers: list[str]) -> list:
    recognizer = VoskRecognizer(ko_live_model(), phrases=sorted(STAND_INS), fillers=fillers)
    items = []
    step = int(RATE * 0.04) * 2
    for i in range(0, len(pcm), step):
        items += recognizer.accept(pcm[i:i + step])
    items += recognizer.finish()
    recognizer.close()
    return plain_words(translate(items, STAND_INS))


def nominations(words) -> list[int]:
    grammar = load_grammar("ru")
    listener, out = SpeechListener(grammar, StaticContext()), []
    for word in words:
        for event in listener.hear(word):
            if isinstance(event, Nomination) and event.accepted:  # a refused attempt puts nobody up
                out.append(event.target)
                listener = SpeechListener(grammar, StaticContext())
    return out


def test_the_models_frequent_words_come_from_its_own_graph(fillers):
    assert len(fillers) == 400 and len(set(fillers)) == 400
    # the commonest words of two syllables or more: the particle "의", the
    # commonest word, would fit inside every rule word
    assert fillers[:3] == ["에서", "으로", "이다"] and "의" in frequent_words(KO_MODEL, 5)
    assert all(syllables(w) >= 2 for w in fillers)
    assert not set(fillers) & set(STAND_INS)
    # nor a likeness of a rule word: "라디오쇼" sounds like "라디오", "게임기" like "게임"
    alike = ["라디오쇼", "게임기", "버스를", "라디"]
    assert all(model_knows(ko_live_model(), w) for w in alike)
    assert filler_split(None, [*alike, "에서"], STAND_INS)[0] == ["에서"]
    assert all(model_knows(ko_live_model(), w) for w in fillers)
    assert not any(w.startswith(("<", "[", "#", "!")) for w in fillers)


def test_an_unreadable_graph_gives_no_fillers(tmp_path, caplog):
    (tmp_path / "graph").mkdir()
    (tmp_path / "graph" / "Gr.fst").write_bytes(b"\xd6\xfd\xb2\x7e" + b"\0" * 64)
    with caplog.at_level("WARNING"):
        assert frequent_words(tmp_path, 10) == []
    assert "no filler vocabulary" in caplog.text
    assert frequent_words(tmp_path / "nothing", 10) == []


def test_free_speech_nominates_nobody_with_fillers_and_the_fixture_is_still_heard(fillers):
    free = free_speech()
    bare = heard(free, [])
    assert nominations(bare), "without fillers free speech comes out as stand-ins and nominates"
    words = heard(free, fillers)
    assert nominations(words) == []
    assert sum(w.word == "[unk]" for w in words) > len(words) // 2
    transcript = load_transcript()
    got = heard(read_wav(FIXTURE).pcm, fillers)
    measured = [u for u in transcript["utterances"] if u["kind"] != "lead-in"]
    spans = [[w.word for w in got if u["words"][0]["start"] - 0.3 <= w.start <= u["words"][-1]["end"] + 0.3]
             for u in measured]
    assert spans == [[STAND_INS[w["word"]] for w in u["words"]] for u in measured]


def test_auto_at_the_table_takes_the_grammar_with_fillers_for_a_model_without_unk(caplog):
    import io

    from voicehost.asr import CaptionedRecognizer
    from voicehost.config import AsrSettings, Config
    from voicehost.live.listening import recognizer_for

    config = Config(asr=AsrSettings(model=str(KO_MODEL), low_latency=False, captions="on"))
    with caplog.at_level("INFO", logger="voicehost.asr.factory"):
        recognizer = recognizer_for(config, config.rules(), io.StringIO())
    assert recognizer.phrases is not None and len(recognizer.fillers) == 400
    assert "listening with the grammar recognizer" in caplog.text and "400 of its most frequent" in caplog.text
    # [asr] captions = true: the open recognizer beside it
    assert isinstance(recognizer, CaptionedRecognizer) and recognizer.captioner.phrases is None
    # and lends the rules the forbidden forms the grammar cannot list
    assert recognizer.overheard is not None and recognizer.overheard("честное") and not recognizer.overheard("семь")
    recognizer.close()


@pytest.mark.parametrize("paced", [True, False], ids=["microphone", "recording"])
def test_a_word_the_grammar_cannot_list_comes_from_the_captions_with_the_grammars_times(fillers, paced):
    """Warmed up as at the table: the grammar lacks "게임" (it plays a
    forbidden word's unlisted form, "честное") and hears it as [unk]; the
    utterance's final result has "게임" from the captions, at the grammar's
    times, and the captions' times are the grammar's (the warm-up is not
    audio to them). At the microphone's pace the captions keep up; a
    recording, fed as fast as it decodes, waits for them (`catch_up = None`)."""
    import time

    from voicehost.asr import CaptionedRecognizer, Revision

    pcm = read_wav(FIXTURE).pcm[int(10.8 * RATE) * 2:int(13.4 * RATE) * 2]  # "라디오 게임" and silence
    phrases = sorted(set(STAND_INS) - {"게임"})
    recognizer = CaptionedRecognizer(VoskRecognizer(ko_live_model(), phrases=phrases, fillers=fillers),
                                     VoskRecognizer(ko_live_model()), overheard=lambda word: word == "게임")
    recognizer.warm_up()
    if not paced:
        recognizer.catch_up = None
    items: list = []
    step = int(RATE * 0.04) * 2
    began = time.monotonic()
    for i in range(0, len(pcm), step):
        items += recognizer.accept(pcm[i:i + step])
        if paced:
            time.sleep(max(0.0, began + (i + step) / 2 / RATE - time.monotonic()))  # the microphone's pace
    items += recognizer.finish()
    recognizer.close()
    taken = [w.word for w in plain_words(i for i in items if not isinstance(i, Revision))]
    assert taken == ["라디오", "[unk]"], "from the partials: the grammar's own words"
    words = plain_words(items)
    assert [w.word for w in words] == ["라디오", "게임"]
    captions = recognizer.captions
    assert [w.word for w in captions] == ["라디오", "게임"]
    for word, caption in zip(words, captions, strict=True):
        assert abs(word.start - caption.start) < 0.1 and abs(word.end - caption.end) < 0.1


def test_captions_hear_every_word_while_the_grammar_decides(tmp_path, fillers):
    """Both recognizers from the same chunks: the rules get only the grammar's
    words (stand-ins or [unk]); the captions have the open recognizer's words."""
    from tests.realparts import KO_TEXT, espeak_wav
    from voicehost.asr import CaptionedRecognizer
    from voicehost.live.listening import chunks_of

    speech = read_wav(espeak_wav(tmp_path / "ko.wav", KO_TEXT, "ko"))
    seen = []
    recognizer = CaptionedRecognizer(
        VoskRecognizer(ko_live_model(), phrases=sorted(STAND_INS), fillers=fillers),
        VoskRecognizer(ko_live_model()), on_caption=seen.append)
    items = []
    for chunk in chunks_of(speech, 0.04):
        items += recognizer.accept(chunk)
    items += recognizer.finish()
    assert recognizer.audio_time == pytest.approx(speech.seconds, abs=0.05)
    assert {w.word for w in plain_words(items)} <= set(STAND_INS) | {"[unk]"}
    captions = [w.word for w in recognizer.captions]
    assert len(captions) >= 4 and "[unk]" not in captions and not set(captions) & set(STAND_INS)
    assert seen and captions == [w.word for w in plain_words(i for batch in seen for i in batch)]
    recognizer.close()


def test_a_weighted_phrase_is_listed_as_many_times_as_it_counts():
    phrases = sorted(STAND_INS)
    recognizer = VoskRecognizer(ko_live_model(), phrases=phrases, weights={"라디오": 3, "없는말은": 5})
    assert recognizer.grammar is not None and recognizer.grammar.count("라디오") == 3
    assert sorted(set(recognizer.grammar)) == phrases  # a weight for a word not in the phrases adds nothing
    recognizer.close()


def test_at_the_tables_grammar_size_every_nomination_is_heard_from_the_partials():
    """The bench's table setting (tools/latency_fixture.py `table_grammar`: 222
    words, the stand-ins' other forms and the trigger's look-alikes among them,
    the model's fillers, the trigger weighted): every nomination of the fixture
    is taken from the partials within 0.7 s of audio after its number ends, and
    the final result keeps it. With one-syllable fillers, the final result cut
    "버스" into "더 [unk]"; with the default minimum-Bayes-risk result, "라디오
    게임" became "라디오국 [unk]"; unweighted, a partial showed "라디오 어제" as
    "라디오쇼" up to the final result, 1.1 s after the number."""
    from voicehost.asr import TRIGGER, Revision
    from voicehost.bench.standins import StandInTable

    table = StandInTable(KO_MODEL)
    table.model = ko_live_model()
    recognizer = table.recognizer()
    recognizer.warm_up()
    pcm = read_wav(FIXTURE).pcm
    step = int(RATE * 0.04) * 2
    events = []
    for i in range(0, len(pcm), step):
        events += [(recognizer.audio_time, item) for item in recognizer.accept(pcm[i:i + step])]
    events += [(recognizer.audio_time, item) for item in recognizer.finish()]
    recognizer.close()
    for u in load_transcript()["utterances"][1:]:
        number, start, end = u["words"][1], u["words"][0]["start"] - 0.3, u["words"][-1]["end"] + 2.0
        mine = [(t, item) for t, item in events if start <= t <= end]
        taken = [(t, item) for t, item in mine if not isinstance(item, Revision)]
        (final,) = [item for _, item in mine if isinstance(item, Revision)]
        want = [TRIGGER, table.meaning(number["word"])]
        assert [table.meaning(w.word) for w in final.new[:2]] == want, (u["text"], final)
        assert [table.meaning(item.word) for _, item in taken[:2]] == want, (u["text"], taken)
        assert taken[1][0] - number["end"] <= 0.7, (u["text"], taken[1][0] - number["end"])
