"""WAV files: a recorded game played as a source (one channel, or a
microphone per seat's many), and what the table says or hears recorded."""
from __future__ import annotations

import struct
import threading
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import numpy as np

from voicehost.audio.pcm import (
    CHUNK_SECONDS,
    RATE,
    AudioError,
    ChannelSource,
    Clip,
    Frame,
    split_channels,
    to_mono16,
)
from voicehost.channels import Channel, ChannelMap


class _PcmReader(Protocol):
    """A WAV file being read: `wave`'s reader, or ours for WAVE_FORMAT_EXTENSIBLE."""

    def getnchannels(self) -> int: ...

    def getframerate(self) -> int: ...

    def getsampwidth(self) -> int: ...

    def getnframes(self) -> int: ...

    def getcomptype(self) -> str: ...

    def readframes(self, count: int) -> bytes: ...

    def close(self) -> None: ...


class _ExtensiblePcm:
    """A PCM WAV in WAVE_FORMAT_EXTENSIBLE (sox and many recorders write it),
    which Python 3.11's `wave` refuses; read with the same interface."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("rb")
        header = self._file.read(12)
        if header[:4] != b"RIFF" or header[8:12] != b"WAVE":
            raise wave.Error("not a RIFF/WAVE file")
        fmt = None
        while True:
            head = self._file.read(8)
            if len(head) < 8:
                raise wave.Error("no data chunk")
            kind, size = head[:4], struct.unpack("<I", head[4:])[0]
            if kind == b"fmt ":
                fmt = self._file.read(size + size % 2)
            elif kind == b"data":
                break
            else:
                self._file.seek(size + size % 2, 1)
        if fmt is None:
            raise wave.Error("no fmt chunk")
        tag, self._channels, self._rate = struct.unpack("<HHI", fmt[:8])
        self._width = struct.unpack("<H", fmt[14:16])[0] // 8
        if tag == 0xFFFE and fmt[24:26] != b"\x01\x00":
            raise wave.Error("extensible WAV that is not integer PCM")
        self._frames = size // (self._width * self._channels)

    def getnframes(self) -> int:
        return int(self._frames)

    def getframerate(self) -> int:
        return int(self._rate)

    def getnchannels(self) -> int:
        return int(self._channels)

    def getsampwidth(self) -> int:
        return int(self._width)

    def getcomptype(self) -> str:
        return "NONE"

    def readframes(self, count: int) -> bytes:
        return self._file.read(count * self._width * self._channels)

    def close(self) -> None:
        self._file.close()


def _open_wav(path: Path) -> _PcmReader:
    try:
        return wave.open(str(path), "rb")
    except wave.Error as exc:
        if "65534" not in str(exc):
            raise
        return _ExtensiblePcm(path)


class WavFileSource:
    """A recorded game played through the same pipeline as a microphone."""

    def __init__(self, path: Path, chunk_seconds: float = CHUNK_SECONDS) -> None:
        self.path = path
        self.chunk_seconds = chunk_seconds
        try:
            self._wav = _open_wav(path)
        except FileNotFoundError:
            raise AudioError(f"no audio file at {path}") from None
        except (wave.Error, EOFError, struct.error) as exc:
            raise AudioError(f"{path} is not a PCM WAV file ({exc}); convert it with: "
                             f"sox {path.name} -r 16000 -c 1 -b 16 -e signed-integer game-16k.wav") from None
        if self._wav.getcomptype() != "NONE" or self._wav.getsampwidth() not in (1, 2, 4):
            raise AudioError(f"{path}: only uncompressed 8/16/32-bit PCM WAV is read")

    @property
    def seconds(self) -> float:
        return float(self._wav.getnframes() / self._wav.getframerate())

    def chunks(self) -> Iterator[bytes]:
        wav = self._wav
        frames = max(1, int(wav.getframerate() * self.chunk_seconds))
        while True:
            data = wav.readframes(frames)
            if not data:
                return
            yield to_mono16(data, wav.getframerate(), wav.getnchannels(), wav.getsampwidth())

    def frames_of(self, channels: ChannelMap) -> Iterator[Frame]:
        """A recording of a microphone per seat: the file's channel N is every
        mapped channel numbered N (a recording has no devices)."""
        wav = self._wav
        wanted = self._wanted(channels)
        frames = max(1, int(wav.getframerate() * self.chunk_seconds))
        while True:
            data = wav.readframes(frames)
            if not data:
                return
            yield split_channels(data, wav.getframerate(), wav.getnchannels(), wav.getsampwidth(), wanted)

    def _wanted(self, channels: ChannelMap) -> dict[int, Channel]:
        wanted: dict[int, Channel] = {}
        count = self._wav.getnchannels()
        for channel in channels.channels:
            number = channel.input.channel
            if number > count:
                raise AudioError(f"{self.path} has {count} channel{'s' if count > 1 else ''}; "
                                 f"{channels.mapping(channel)}")
            if number in wanted:
                raise AudioError(f"{self.path}: {channels.setting} maps both {wanted[number].who} and {channel.who} "
                                 f"to channel {number} (a recording's channels are numbered across devices)")
            wanted[number] = channel
        return wanted

    def close(self) -> None:
        self._wav.close()


class WavFileChannels:
    """A multichannel WAV as a `ChannelSource`."""

    def __init__(self, path: Path, channels: ChannelMap, chunk_seconds: float = CHUNK_SECONDS) -> None:
        self.file = WavFileSource(path, chunk_seconds)
        self.channels = channels
        self.file._wanted(channels)   # a channel the file lacks: said now, before the game

    def frames(self) -> Iterator[Frame]:
        return self.file.frames_of(self.channels)

    def close(self) -> None:
        self.file.close()


def read_wav(path: Path) -> Clip:
    source = WavFileSource(path)
    try:
        return Clip(b"".join(source.chunks()), RATE)
    finally:
        source.close()


class WavFileSink:
    """Records what would be played, as one WAV file (tests, `--record`)."""

    def __init__(self, path: Path, rate: int = 22_050) -> None:
        self.rate = rate
        self._wav = wave.open(str(path), "wb")
        self._wav.setnchannels(1)
        self._wav.setsampwidth(2)
        self._wav.setframerate(rate)
        self._lock = threading.Lock()

    def play(self, clip: Clip) -> None:
        pcm = clip.pcm if clip.rate == self.rate else to_mono16(clip.pcm, clip.rate, 1, 2, self.rate)
        with self._lock:
            self._wav.writeframes(pcm)

    def close(self) -> None:
        with self._lock:
            self._wav.close()


class RecordedChannels:
    """A `ChannelSource` that also writes every mapped channel to one WAV
    (`--record` with a microphone per seat): the file's channel N is input
    N, so `--audio-file` plays it back with the same `[audio] channels`."""

    def __init__(self, source: ChannelSource, channels: ChannelMap, path: Path) -> None:
        numbers: dict[int, Channel] = {}
        for channel in channels.channels:
            if channel.input.channel in numbers:
                raise AudioError(f"--record: {numbers[channel.input.channel].who} and {channel.who} are both "
                                 f"channel {channel.input.channel} (of two devices): one file cannot keep both")
            numbers[channel.input.channel] = channel
        self.source = source
        self.count = max(numbers)
        self.numbers = numbers
        try:
            self._wav = wave.open(str(path), "wb")
        except OSError as exc:
            raise AudioError(f"--record: cannot write {path}: {exc.strerror or exc}") from None
        self._wav.setnchannels(self.count)
        self._wav.setsampwidth(2)
        self._wav.setframerate(RATE)

    def frames(self) -> Iterator[Frame]:
        for frame in self.source.frames():
            length = min((len(pcm) for pcm in frame.values()), default=0) // 2
            block = np.zeros((length, self.count), "<i2")
            for number, channel in self.numbers.items():
                if channel in frame:
                    block[:, number - 1] = np.frombuffer(frame[channel], "<i2")[:length]
            self._wav.writeframes(block.tobytes())
            yield frame

    def close(self) -> None:
        self.source.close()
        self._wav.close()
