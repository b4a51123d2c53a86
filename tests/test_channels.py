"""`[audio] channels` (SPEC §7.1): the host and seats 1..10 mapped to input
channels; anything else is one clear line naming the key."""
from __future__ import annotations

from pathlib import Path

import pytest

from voicehost.audio import Device, channel_report
from voicehost.channels import ChannelMap, Input
from voicehost.config import load_config
from voicehost.errors import ConfigError


def _config(tmp_path: Path, body: str):
    path = tmp_path / "config.toml"
    path.write_text(body, "utf-8")
    return load_config(path)


def test_one_microphone_is_the_default(tmp_path):
    audio = _config(tmp_path, "[audio]\n").audio
    assert audio.channels == ChannelMap() and not audio.channels.on
    assert audio.out_of_turn_ms == 700


def test_host_and_seats_map_to_inputs(tmp_path):
    channels = _config(tmp_path, '[audio.channels]\nhost = 1\n1 = 2\n2 = "3"\n10 = "Scarlett 18i20:4"\n').audio.channels
    assert channels.on
    assert channels.host is not None and channels.host.input == Input("", 1)
    assert {seat: c.input for seat, c in channels.seats.items()} == {
        1: Input("", 2), 2: Input("", 3), 10: Input("Scarlett 18i20", 4)}
    assert channels.devices == ("", "Scarlett 18i20")
    assert sorted(channels.on_device("")) == [1, 2, 3]


@pytest.mark.parametrize("body, needle", [
    ("[audio.channels]\n11 = 2\n", "'11' is neither host nor a seat from 1 to 10"),
    ("[audio.channels]\nhost = 0\n", "must name a channel from 1"),
    ("[audio.channels]\nhost = 1\n3 = 1\n", "channel 1 is both host's and 3's"),
    ("[audio.channels]\n3 = true\n", "must be a channel number"),
    ("[audio]\nchannels = 3\n", "[audio] channels must be a table"),
    ("[audio]\nout_of_turn_ms = 20\n", "'out_of_turn_ms' must be from 100"),
])
def test_bad_channels_are_one_line_naming_the_key(tmp_path, body, needle):
    with pytest.raises(ConfigError) as raised:
        _config(tmp_path, body)
    assert needle in str(raised.value) and "config.toml" in str(raised.value)


def test_devices_names_each_mapped_channel_or_why_it_cannot_be_read(tmp_path):
    channels = _config(tmp_path, '[audio.channels]\nhost = 1\n1 = 2\n2 = "Scarlett:19"\n3 = "Nope:1"\n').audio.channels
    devices = [Device(0, "Scarlett 18i20 USB", 18, 20, 48000), Device(1, "HDA Intel", 2, 2, 44100)]
    lines = channel_report(channels, "HDA", devices)
    assert lines[0] == "host: input 1 of HDA Intel"
    assert lines[1] == "1: input 2 of HDA Intel"
    assert lines[2] == "2: channel Scarlett:19: Scarlett 18i20 USB has only 18 input channels"
    assert lines[3].startswith("3: channel Nope:1: no input device 'Nope'")


def test_devices_names_each_mic_of_the_array_and_whether_its_channel_is_there():
    from voicehost.array import PRESETS, mic_map

    devices = [Device(0, "ReSpeaker 4 Mic Array (UAC1.0)", 6, 2, 16000), Device(1, "HDA Intel", 2, 2, 44100)]
    lines = channel_report(mic_map(PRESETS["respeaker-usb"]), "ReSpeaker", devices)
    assert lines == [f"mic {k}: input {k + 1} of ReSpeaker 4 Mic Array (UAC1.0)" for k in (1, 2, 3, 4)]
    assert channel_report(mic_map(PRESETS["respeaker-usb"]), "HDA", devices)[-1] == \
        "mic 4: channel 5: HDA Intel has only 2 input channels"
