"""Whose microphone is which (SPEC §7.1): `[audio] channels` maps the host and
seats 1..10 to input channels, of `[audio] input_device` ("3": its third
input) or of a device named as `voicehost devices` lists it ("Scarlett:3").
An empty map is today's table: one microphone, every word the speaker's.

    [audio.channels]
    host = 1
    1 = 2
    2 = 3
    # ...
    10 = "USB Audio CODEC:1"

A leaf module: plain records, read by the config, the audio sources and the
hearing stage alike."""
from __future__ import annotations

from dataclasses import dataclass

from voicehost.errors import ConfigError

HOST = "host"
MAX_SEAT = 10


@dataclass(frozen=True, slots=True)
class Input:
    """One input channel: of `device` ("" = `[audio] input_device`), numbered from 1."""

    device: str
    channel: int

    def __str__(self) -> str:
        return f"{self.device}:{self.channel}" if self.device else str(self.channel)


@dataclass(frozen=True, slots=True)
class Channel:
    """A mapped input and whose it is: the host's (`seat` None) or a seat's."""

    input: Input
    seat: int | None

    @property
    def who(self) -> str:
        return HOST if self.seat is None else str(self.seat)


ARRAY_SETTING = "[audio] array"


@dataclass(frozen=True)
class ChannelMap:
    """The table's mapped channels, in config order; empty: one microphone."""

    channels: tuple[Channel, ...] = ()
    setting: str = "[audio] channels"   # what mapped them: a microphone array's mics are "[audio] array"'s

    def mapping(self, channel: Channel) -> str:
        """How the setting maps `channel`, for a line that says why it cannot be read."""
        if self.setting == ARRAY_SETTING:
            return f"{self.setting} reads its mic {channel.who} from channel {channel.input.channel}"
        return f"{self.setting} maps {channel.who} to channel {channel.input.channel}"

    @property
    def on(self) -> bool:
        return bool(self.channels)

    @property
    def host(self) -> Channel | None:
        return next((c for c in self.channels if c.seat is None), None)

    @property
    def seats(self) -> dict[int, Channel]:
        return {c.seat: c for c in self.channels if c.seat is not None}

    @property
    def devices(self) -> tuple[str, ...]:
        """The devices read, in order of first mention ("" = `[audio] input_device`)."""
        return tuple(dict.fromkeys(c.input.device for c in self.channels))

    def on_device(self, device: str) -> dict[int, Channel]:
        """The mapped channels of one device, by channel number."""
        return {c.input.channel: c for c in self.channels if c.input.device == device}


def parse_input(value: object, what: str) -> Input:
    """3 or "3" (of `[audio] input_device`), or "DEVICE:3"."""
    if isinstance(value, int) and not isinstance(value, bool):
        device, number = "", str(value)
    elif isinstance(value, str):
        device, _, number = value.rpartition(":")
        device = device.strip()
    else:
        raise ConfigError(f"{what} must be a channel number or \"DEVICE:N\", got {value!r}")
    if not number.strip().isdigit() or int(number) < 1:
        raise ConfigError(f"{what} must name a channel from 1 (as `voicehost devices` counts them), got {value!r}")
    return Input(device, int(number))


def parse_channels(data: object, where: str) -> ChannelMap:
    """`[audio] channels`: "host" and seats "1".."10" to inputs; one input is one person's."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must be a table of host and seats 1-{MAX_SEAT} to input channels")
    channels: list[Channel] = []
    taken: dict[Input, str] = {}
    for key, value in data.items():
        who = str(key).strip()
        if who != HOST and not (who.isdigit() and 1 <= int(who) <= MAX_SEAT):
            raise ConfigError(f"{where}: '{key}' is neither host nor a seat from 1 to {MAX_SEAT}")
        channel = Channel(parse_input(value, f"{where} '{key}'"), None if who == HOST else int(who))
        if channel.input in taken:
            raise ConfigError(f"{where}: channel {channel.input} is both {taken[channel.input]}'s and {who}'s")
        taken[channel.input] = channel.who
        channels.append(channel)
    return ChannelMap(tuple(channels))


__all__ = ["HOST", "Channel", "ChannelMap", "Input", "parse_channels", "parse_input"]
