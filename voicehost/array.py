"""A microphone array in the middle of the table (SPEC §7.1): its geometry
(`[audio] array`) and the seats' directions seen from it (`[table] seats`,
measured by `voicehost calibrate`). A leaf module of plain records, read by
the config, the audio sources and the direction stage alike.

    [audio]
    array = "respeaker-6"          # or { mics_mm = [[x, y], ...], channels = [1, 2, ...] }

    [table]
    seats = { 1 = 36.0, 2 = 72.0 }  # degrees, counter-clockwise from the array's x axis"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeGuard

from voicehost.channels import ARRAY_SETTING, Channel, ChannelMap, Input
from voicehost.errors import ConfigError

MAX_SEAT = 11


@dataclass(frozen=True)
class ArrayGeometry:
    """`mics`: metres in the array's plane, mic k on input channel `channels[k]` (from 1)."""

    name: str
    mics: tuple[tuple[float, float], ...]
    channels: tuple[int, ...]


def mic_map(geometry: ArrayGeometry, device: str = "") -> ChannelMap:
    """The array's microphones as mapped input channels of `device`, in mic
    order (mic k as "seat" k + 1: numbered, nobody's), for the channel sources."""
    return ChannelMap(tuple(Channel(Input(device, channel), k + 1) for k, channel in enumerate(geometry.channels)),
                      ARRAY_SETTING)


def _circle(radius_mm: float, count: int, first_deg: float = 0.0) -> tuple[tuple[float, float], ...]:
    return tuple((round(radius_mm / 1000 * math.cos(math.radians(first_deg + 360 * k / count)), 6),
                  round(radius_mm / 1000 * math.sin(math.radians(first_deg + 360 * k / count)), 6))
                 for k in range(count))


# Seeed's ReSpeaker boards, as ODAS's configurations for them place the mics.
PRESETS: dict[str, ArrayGeometry] = {
    "respeaker-4": ArrayGeometry("respeaker-4", _circle(32.0, 4, 180.0), (1, 2, 3, 4)),
    "respeaker-6": ArrayGeometry("respeaker-6", _circle(46.3, 6, 120.0), (1, 2, 3, 4, 5, 6)),
    # USB Mic Array v2.0 with its 6-channel firmware: channel 1 is its own processed mix, 6 the playback.
    "respeaker-usb": ArrayGeometry("respeaker-usb", _circle(32.0, 4, 180.0), (2, 3, 4, 5)),
}


def parse_array(value: object, where: str) -> ArrayGeometry:
    """A preset's name, {preset = NAME}, or {mics_mm = [[x, y], ...], channels = [...]}."""
    if isinstance(value, dict) and set(value) == {"preset"}:
        value = value["preset"]
    if isinstance(value, str):
        if value not in PRESETS:
            raise ConfigError(f"{where} must be one of {', '.join(PRESETS)} or a table with mics_mm, got {value!r}")
        return PRESETS[value]
    if not isinstance(value, dict) or "mics_mm" not in value or set(value) - {"mics_mm", "channels"}:
        raise ConfigError(f"{where} must be a preset ({', '.join(PRESETS)}) or a table of mics_mm and channels")
    mics = value["mics_mm"]
    if not isinstance(mics, list) or len(mics) < 2 or not all(
            isinstance(m, list) and len(m) == 2 and all(_number(x) for x in m) for m in mics):
        raise ConfigError(f"{where}: mics_mm must list at least two [x, y] positions in millimetres")
    positions = tuple((float(x) / 1000, float(y) / 1000) for x, y in mics)
    if len(set(positions)) != len(positions):
        raise ConfigError(f"{where}: mics_mm places two microphones at the same point")
    channels = value.get("channels", list(range(1, len(mics) + 1)))
    if not isinstance(channels, list) or len(channels) != len(mics) or len(set(channels)) != len(channels) \
            or not all(type(c) is int and c >= 1 for c in channels):
        raise ConfigError(f"{where}: channels must give each of the {len(mics)} microphones its own input "
                          f"channel from 1")
    return ArrayGeometry("custom", positions, tuple(channels))


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def parse_seat_angles(value: object, where: str) -> dict[int, float]:
    """`[table] seats`: seat numbers to degrees, 0 to 360."""
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table of seats to angles in degrees, as `voicehost calibrate` writes it")
    angles: dict[int, float] = {}
    for key, angle in value.items():
        seat = str(key).strip()
        if not (seat.isdigit() and 1 <= int(seat) <= MAX_SEAT):
            raise ConfigError(f"{where}: '{key}' is not a seat from 1 to {MAX_SEAT}")
        if not _number(angle) or not 0 <= float(angle) <= 360:
            raise ConfigError(f"{where}: seat {seat}'s angle must be in degrees from 0 to 360, got {angle!r}")
        angles[int(seat)] = float(angle) % 360
    return dict(sorted(angles.items()))


def gap(a: float, b: float) -> float:
    """The angle between two directions, 0 to 180 degrees."""
    return abs((a - b + 180) % 360 - 180)


def nearest_seat(seats: dict[int, float], angle: float, tolerance: float) -> int | None:
    """The seat whose direction is nearest `angle`, if within `tolerance` degrees and
    clearly nearer than the next seat (half the tolerance); else None."""
    ranked = sorted(seats, key=lambda s: gap(seats[s], angle))
    if not ranked or gap(seats[ranked[0]], angle) > tolerance:
        return None
    if len(ranked) > 1 and gap(seats[ranked[1]], angle) - gap(seats[ranked[0]], angle) < tolerance / 2:
        return None
    return ranked[0]


__all__ = ["PRESETS", "ArrayGeometry", "gap", "mic_map", "nearest_seat", "parse_array", "parse_seat_angles"]
