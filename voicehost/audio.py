"""Audio in and out as streams of chunks: a WAV file and a microphone are two
sources of the same thing; a speaker, an earpiece and a recording file are
sinks. PyAudio is imported only where a device is opened."""
from __future__ import annotations

import contextlib
import logging
import os
import struct
import threading
import wave
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Protocol

import numpy as np

from voicehost.channels import Channel, ChannelMap
from voicehost.errors import VoicehostError

log = logging.getLogger(__name__)

RATE = 16_000  # what the recognizer takes: 16 kHz, mono, 16-bit
CHUNK_SECONDS = 0.04  # 40 ms: the text partial follows the audio this closely


class AudioError(VoicehostError):
    """A device or file that cannot give or take audio."""


DeviceInfo = Mapping[str, "str | int | float"]   # what PortAudio says of a device


class _Stream(Protocol):
    """An open PyAudio stream."""

    def read(self, frames: int, exception_on_overflow: bool = ...) -> bytes: ...

    def write(self, data: bytes) -> None: ...

    def stop_stream(self) -> None: ...

    def close(self) -> None: ...


class _PortAudio(Protocol):
    """A `pyaudio.PyAudio`: PortAudio started, its devices and streams."""

    def open(self, *, format: int, channels: int, rate: int, input: bool = ..., output: bool = ...,  # noqa: A002
             input_device_index: int | None = ..., output_device_index: int | None = ...,
             frames_per_buffer: int = ...) -> _Stream: ...

    def get_device_count(self) -> int: ...

    def get_device_info_by_index(self, index: int) -> DeviceInfo: ...

    def get_default_input_device_info(self) -> DeviceInfo: ...

    def get_default_output_device_info(self) -> DeviceInfo: ...

    def terminate(self) -> None: ...


class _PcmReader(Protocol):
    """A WAV file being read: `wave`'s reader, or ours for WAVE_FORMAT_EXTENSIBLE."""

    def getnchannels(self) -> int: ...

    def getframerate(self) -> int: ...

    def getsampwidth(self) -> int: ...

    def getnframes(self) -> int: ...

    def getcomptype(self) -> str: ...

    def readframes(self, count: int) -> bytes: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Clip:
    """Mono 16-bit PCM."""

    pcm: bytes
    rate: int

    @property
    def seconds(self) -> float:
        return len(self.pcm) / 2 / self.rate


def to_mono16(pcm: bytes, rate: int, channels: int, width: int, target: int = RATE) -> bytes:
    """Mix to mono and resample (linear interpolation) to `target` Hz, 16-bit."""
    if width == 2:
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32)
    elif width == 1:
        samples = (np.frombuffer(pcm, dtype=np.uint8).astype(np.float32) - 128.0) * 256.0
    elif width == 4:
        samples = np.frombuffer(pcm, dtype="<i4").astype(np.float32) / 65536.0
    else:
        raise AudioError(f"unsupported sample width: {width * 8} bit")
    if channels > 1:
        samples = samples[: len(samples) - len(samples) % channels].reshape(-1, channels).mean(axis=1)
    if rate != target and len(samples):
        count = max(1, int(round(len(samples) * target / rate)))
        positions = np.linspace(0, len(samples) - 1, count)
        samples = np.interp(positions, np.arange(len(samples)), samples).astype(np.float32)
    return np.clip(samples, -32768, 32767).astype("<i2").tobytes()


class Source(Protocol):
    """Yields 16 kHz mono 16-bit chunks until the audio ends."""

    def chunks(self) -> Iterator[bytes]: ...

    def close(self) -> None: ...


Frame = dict[Channel, bytes]   # one chunk of every mapped channel, each 16 kHz mono 16-bit


class ChannelSource(Protocol):
    """Yields one `Frame` per chunk until the audio ends (a microphone per seat)."""

    def frames(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...


def split_channels(pcm: bytes, rate: int, channels: int, width: int, wanted: dict[int, Channel]) -> Frame:
    """The `wanted` channels (numbered from 1) of interleaved PCM, each as 16 kHz mono 16-bit."""
    dtype = {1: "u1", 2: "<i2", 4: "<i4"}.get(width)
    if dtype is None:
        raise AudioError(f"unsupported sample width: {width * 8} bit")
    usable = len(pcm) - len(pcm) % (channels * width)
    samples = np.frombuffer(pcm[:usable], dtype=dtype).reshape(-1, channels)
    return {channel: to_mono16(np.ascontiguousarray(samples[:, number - 1]).tobytes(), rate, 1, width)
            for number, channel in wanted.items()}


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
                raise AudioError(f"{self.path} has {count} channel{'s' if count > 1 else ''}; [audio] channels "
                                 f"maps {channel.who} to channel {number}")
            if number in wanted:
                raise AudioError(f"{self.path}: [audio] channels maps both {wanted[number].who} and {channel.who} "
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


# --------------------------------------------------------------- devices


@dataclass(frozen=True)
class Device:
    index: int
    name: str
    inputs: int
    outputs: int
    rate: int


@contextlib.contextmanager
def _native_quiet() -> Iterator[None]:
    """ALSA and JACK print their probing to the process's stderr; keep the terminal clean."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    with open(os.devnull, "wb") as null:
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


class _QuietPyAudio:
    """pyaudio, whose PyAudio() start-up is run with native chatter silenced."""

    def __init__(self, module: ModuleType) -> None:
        self._module = module
        self.paInt16: int = module.paInt16   # noqa: N815 - mirrors the library's name

    def PyAudio(self) -> _PortAudio:  # noqa: N802 - mirrors the library's name
        with _native_quiet():
            pa: _PortAudio = self._module.PyAudio()
            return pa


def _pyaudio() -> _QuietPyAudio:
    try:
        import pyaudio
    except ImportError:
        raise AudioError("PyAudio is not installed: run scripts/setup (it installs portaudio and PyAudio)") \
            from None
    return _QuietPyAudio(pyaudio)


def list_devices() -> list[Device]:
    pa = _pyaudio().PyAudio()
    try:
        return [
            Device(i, str(info["name"]), int(info["maxInputChannels"]), int(info["maxOutputChannels"]),
                   int(info["defaultSampleRate"]))
            for i in range(pa.get_device_count())
            for info in [pa.get_device_info_by_index(i)]
        ]
    finally:
        pa.terminate()


def channel_report(channels: ChannelMap, input_device: str, devices: list[Device]) -> list[str]:
    """One line per mapped channel (`[audio] channels`): whose it is, and the
    device and channel it reads, or why it cannot be read."""
    lines = []
    for channel in channels.channels:
        spec = channel.input.device or input_device
        try:
            found = _match_device(spec, [d for d in devices if d.inputs > 0])
        except AudioError as exc:
            lines.append(f"{channel.who}: channel {channel.input}: {exc}")
            continue
        name = found.name if found is not None else "the default input"
        if found is not None and channel.input.channel > found.inputs:
            lines.append(f"{channel.who}: channel {channel.input}: {name} has only {found.inputs} input channels")
        else:
            lines.append(f"{channel.who}: input {channel.input.channel} of {name}")
    return lines


def _match_device(spec: str | int | None, devices: list[Device], kind: str = "input") -> Device | None:
    """A device among `devices` by index or by (part of) its name; None for the system default."""
    if spec in (None, "", "default"):
        return None
    if isinstance(spec, int) or str(spec).isdigit():
        found = [d for d in devices if d.index == int(spec)]
    else:
        found = [d for d in devices if d.name == spec] or [
            d for d in devices if str(spec).lower() in d.name.lower()]
    if not found:
        names = ", ".join(f"{d.index}: {d.name}" for d in devices) or "none"
        raise AudioError(f"no {kind} device '{spec}' (available {kind}s: {names}); "
                         f"see `voicehost devices`")
    return found[0]


def find_device(spec: str | int | None, *, output: bool) -> Device | None:
    """A device by index or by (part of) its name; None for the system default."""
    if spec in (None, "", "default"):
        return None
    devices = [d for d in list_devices() if (d.outputs if output else d.inputs) > 0]
    return _match_device(spec, devices, "output" if output else "input")


def _open_device(pyaudio: _QuietPyAudio, device: str | int | None, *,
                 output: bool) -> tuple[_PortAudio, DeviceInfo]:
    """A PyAudio instance and the device's info; one clear line when there is none."""
    pa = pyaudio.PyAudio()
    try:
        found = find_device(device, output=output)
        if found:
            return pa, pa.get_device_info_by_index(found.index)
        return pa, (pa.get_default_output_device_info() if output else pa.get_default_input_device_info())
    except OSError:
        pa.terminate()
        what, key = ("speaker", "table_device") if output else ("microphone", "input_device")
        raise AudioError(f"no {what} found: connect one, or name it as [audio] {key} in config.toml "
                         f"(see `voicehost devices`)") from None
    except AudioError:
        pa.terminate()
        raise


class MicrophoneSource:
    """Captures from a PyAudio input device, resampled to 16 kHz mono."""

    def __init__(self, device: str | int | None = None, chunk_seconds: float = CHUNK_SECONDS) -> None:
        pyaudio = _pyaudio()
        self._pa, info = _open_device(pyaudio, device, output=False)
        self.rate = int(info["defaultSampleRate"])
        self.channels = 1
        self.frames = int(self.rate * chunk_seconds)
        try:
            self._stream = self._pa.open(format=pyaudio.paInt16, channels=1, rate=self.rate, input=True,
                                         input_device_index=int(info["index"]),
                                         frames_per_buffer=self.frames)
        except OSError as exc:
            self._pa.terminate()
            raise AudioError(f"cannot open microphone '{info['name']}': {exc}") from None
        self._closed = threading.Event()

    def chunks(self) -> Iterator[bytes]:
        while not self._closed.is_set():
            try:
                data = self._stream.read(self.frames, exception_on_overflow=False)
            except OSError:
                return
            if not data:
                return
            yield to_mono16(data, self.rate, 1, 2)

    def close(self) -> None:
        self._closed.set()
        try:
            self._stream.stop_stream()
            self._stream.close()
        finally:
            self._pa.terminate()


class _DeviceChannels:
    """One input device's stream, opened with as many channels as its highest mapped one."""

    def __init__(self, pyaudio: _QuietPyAudio, device: str, wanted: dict[int, Channel],
                 chunk_seconds: float) -> None:
        self.wanted = wanted
        self.pa, info = _open_device(pyaudio, device or None, output=False)
        self.rate = int(info["defaultSampleRate"])
        self.count = max(wanted)
        self.frames = int(self.rate * chunk_seconds)
        if self.count > int(info["maxInputChannels"]):
            self.pa.terminate()
            raise AudioError(f"'{info['name']}' has {int(info['maxInputChannels'])} input channels; [audio] channels "
                             f"maps {wanted[self.count].who} to channel {self.count}")
        try:
            self.stream = self.pa.open(format=pyaudio.paInt16, channels=self.count, rate=self.rate, input=True,
                                       input_device_index=int(info["index"]), frames_per_buffer=self.frames)
        except OSError as exc:
            self.pa.terminate()
            raise AudioError(f"cannot open '{info['name']}' with {self.count} channels: {exc}") from None

    def read(self) -> Frame:
        data = self.stream.read(self.frames, exception_on_overflow=False)
        return split_channels(data, self.rate, self.count, 2, self.wanted)

    def close(self) -> None:
        try:
            self.stream.stop_stream()
            self.stream.close()
        finally:
            self.pa.terminate()


class ChannelMicrophone:
    """A microphone per seat (`[audio] channels`): every mapped channel of one
    or several input devices, read in step, each as 16 kHz mono."""

    def __init__(self, channels: ChannelMap, input_device: str = "", chunk_seconds: float = CHUNK_SECONDS) -> None:
        pyaudio = _pyaudio()
        self._devices: list[_DeviceChannels] = []
        try:
            for device in channels.devices:
                self._devices.append(_DeviceChannels(pyaudio, device or input_device, channels.on_device(device),
                                                     chunk_seconds))
        except AudioError:
            self.close()
            raise
        self._closed = threading.Event()

    def frames(self) -> Iterator[Frame]:
        while not self._closed.is_set():
            frame: Frame = {}
            try:
                for device in self._devices:
                    frame.update(device.read())
            except OSError:
                return
            yield frame

    def close(self) -> None:
        if hasattr(self, "_closed"):
            self._closed.set()
        for device in self._devices:
            device.close()


class Sink(Protocol):
    """Takes mono 16-bit PCM and plays or stores it."""

    def play(self, clip: Clip) -> None: ...

    def close(self) -> None: ...


class NullSink:
    def play(self, clip: Clip) -> None:
        pass

    def close(self) -> None:
        pass


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


class SpeakerSink:
    """Plays through a PyAudio output device (the table speaker or the host's earpiece)."""

    def __init__(self, device: str | int | None = None) -> None:
        self._pyaudio = _pyaudio()
        self._pa, self._info = _open_device(self._pyaudio, device, output=True)
        self.name = str(self._info["name"])
        self._streams: dict[int, _Stream] = {}

    def _stream(self, rate: int) -> _Stream:
        if rate not in self._streams:
            self._streams[rate] = self._pa.open(format=self._pyaudio.paInt16, channels=1, rate=rate,
                                                output=True, output_device_index=int(self._info["index"]))
        return self._streams[rate]

    def play(self, clip: Clip) -> None:
        try:
            self._stream(clip.rate).write(clip.pcm)
        except OSError as exc:
            log.warning("speaker %s: %s", self.name, exc)

    def close(self) -> None:
        for stream in self._streams.values():
            stream.stop_stream()
            stream.close()
        self._pa.terminate()
