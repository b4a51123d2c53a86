"""The array's settings and the calibration walk (SPEC §7.1): `[audio] array`
and `[table] seats` read or refused in one line, utterances cut from the
array's audio, the walk's questions and retries, the angles written into the
settings without disturbing the rest of the file."""
from __future__ import annotations

import tomllib

import numpy as np
import pytest

from tests.signalparts import quiet, speech
from voicehost.array import PRESETS, gap, nearest_seat, parse_array, parse_seat_angles
from voicehost.config import load_config
from voicehost.errors import ConfigError
from voicehost.live.calibration import Cutter, Walk, close_seats, save_angles, utterances, webrtc_voice
from voicehost.live.texts import live_texts

TEXTS = live_texts("phrasebook.ru")


def test_the_presets_and_a_custom_array_are_read_and_bad_ones_named_in_one_line(tmp_path):
    six = parse_array("respeaker-6", "[audio] array")
    assert len(six.mics) == 6 and six.channels == (1, 2, 3, 4, 5, 6)
    assert all(abs(np.hypot(x, y) - 0.0463) < 1e-4 for x, y in six.mics)
    assert parse_array({"preset": "respeaker-usb"}, "a").channels == (2, 3, 4, 5)   # channel 1: its own mix
    custom = parse_array({"mics_mm": [[0, 30], [30, 0], [0, -30]], "channels": [3, 4, 5]}, "a")
    assert custom.mics == ((0.0, 0.03), (0.03, 0.0), (0.0, -0.03)) and custom.channels == (3, 4, 5)
    for bad, said in (("respeaker-9", "must be one of respeaker-4, respeaker-6, respeaker-usb"),
                      ({"mics_mm": [[0, 1]]}, "at least two [x, y]"),
                      ({"mics_mm": [[0, 1], [0, 1]]}, "two microphones at the same point"),
                      ({"mics_mm": [[0, 1], [1, 0]], "channels": [1, 1]}, "its own input channel"),
                      (7, "a preset")):
        with pytest.raises(ConfigError, match=said.replace("[", r"\[")):
            parse_array(bad, "[audio] array")
    assert parse_seat_angles({"1": 36, "10": 360.0}, "s") == {1: 36.0, 10: 0.0}
    for bad, said in (({"12": 10}, "'12' is not a seat"), ({"1": 400}, "from 0 to 360, got 400"),
                      ({"1": "north"}, "got 'north'"), ([1], "must be a table")):
        with pytest.raises(ConfigError, match=said):
            parse_seat_angles(bad, "[table] seats")
    path = tmp_path / "c.toml"
    path.write_text('[audio]\narray = "respeaker-4"\n[table]\nseats = { 1 = 45.0, 2 = 90.5 }\n', "utf-8")
    config = load_config(path)
    assert config.audio.array == PRESETS["respeaker-4"] and config.table.seats == {1: 45.0, 2: 90.5}
    for channels in ("3 = 2", "host = 7"):   # a host channel beside an array would never be read
        path.write_text(f'[audio]\narray = "respeaker-4"\n[audio.channels]\n{channels}\n', "utf-8")
        with pytest.raises(ConfigError, match="keep one of them"):
            load_config(path)


def test_the_nearest_seat_is_given_only_when_it_is_clearly_nearest():
    seats = {1: 0.0, 2: 36.0, 3: 72.0, 10: 324.0}
    assert nearest_seat(seats, 3.0, 12.0) == 1 and nearest_seat(seats, 350.0, 12.0) == 1
    assert nearest_seat(seats, 18.0, 12.0) is None     # between 1 and 2
    assert nearest_seat(seats, 180.0, 12.0) is None    # near no seat
    assert gap(350, 10) == 20 and gap(10, 350) == 20


def test_utterances_are_cut_at_a_pause_and_a_cough_is_none():
    voice = webrtc_voice()
    one = np.concatenate([quiet(0.5), speech(1.5), quiet(1.0), speech(0.2, 1.2), quiet(1.0), speech(1.2, 1.0)])
    block = np.stack([one, one // 2, one // 3])
    cut = list(utterances(iter([block[:, i:i + 640] for i in range(0, block.shape[1], 640)]), voice))
    assert len(cut) == 2   # the 0.2 s between them is a cough
    assert cut[0].samples.shape[0] == 3 and cut[0].start < 0.7 and 1.7 < cut[0].end < 2.3
    assert 4.1 < cut[1].start < 4.3 and cut[1].end > 5.0   # the recording's end closes the last one
    assert Cutter(voice).feed(np.stack([quiet(2.0)] * 3)) == []


def test_the_walk_asks_again_when_unclear_and_names_what_it_missed_and_what_is_too_close():
    heard = iter([(100.0, 0.2), (37.0, 0.9), (75.0, 0.8), (0.0, 0.1), (0.0, 0.1), (0.0, 0.1), (80.0, 0.9)])
    said: list[str] = []
    fake = iter(range(100))

    def listen():
        from voicehost.live.calibration import Utterance

        yield Utterance(next(fake), 1.0, np.zeros((2, 10), np.int16))

    walk = Walk(TEXTS, lambda samples: next(heard), said.append, listen)
    angles = walk.run([1, 2, 3, 4])
    assert angles == {1: 37.0, 2: 75.0, 4: 80.0}
    assert "Место 1: направление неясно, повторите, пожалуйста" in said
    assert "Место 1: направление 37 градусов" in said
    assert "Место 3 не измерено: запустите калибровку снова или повторите это место" in said
    assert said[-1].startswith("Места 2 и 4 почти на одном направлении (5°)")
    assert close_seats({1: 0.0, 2: 359.0, 3: 180.0}, TEXTS)[0].startswith("Места 1 и 2")


def test_the_angles_go_into_the_settings_and_the_rest_of_the_file_stays(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('ruleset = "4mafia"\n\n[table]\nseats = { 1 = 5.0 }\n\n[audio]\narray = "respeaker-6"\n', "utf-8")
    save_angles(path, {2: 72.04, 1: 36.0}, "2026-12-05")
    data = tomllib.loads(path.read_text("utf-8"))
    assert data["table"]["seats"] == {"1": 36.0, "2": 72.0} and data["audio"]["array"] == "respeaker-6"
    assert data["ruleset"] == "4mafia" and path.read_text("utf-8").count("[table]") == 1
    assert load_config(path).table.seats == {1: 36.0, 2: 72.0}
    fresh = tmp_path / "new.toml"
    save_angles(fresh, {3: 108.0}, "2026-12-05")
    assert tomllib.loads(fresh.read_text("utf-8")) == {"table": {"seats": {"3": 108.0}}}


def test_a_recording_with_too_few_channels_names_the_setting_that_maps_them(tmp_path):
    import wave

    from voicehost.array import mic_map
    from voicehost.audio import AudioError, WavFileChannels
    from voicehost.channels import Channel, ChannelMap, Input

    mono = tmp_path / "mono.wav"
    with wave.open(str(mono), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16_000)
        out.writeframes(b"\0\0" * 1600)
    with pytest.raises(AudioError, match=r"has 1 channel; \[audio\] array reads its mic 2 from channel 2$"):
        WavFileChannels(mono, mic_map(PRESETS["respeaker-4"]))
    seats = ChannelMap((Channel(Input("", 1), None), Channel(Input("", 3), 7)))
    with pytest.raises(AudioError, match=r"has 1 channel; \[audio\] channels maps 7 to channel 3$"):
        WavFileChannels(mono, seats)
