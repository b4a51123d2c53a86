"""Sound devices through PyAudio (PortAudio): the list `voicehost devices`
prints, a microphone, the channels of a microphone per seat, a speaker or
earpiece. PyAudio is imported only where a device is opened."""
from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Protocol

from voicehost.audio.pcm import CHUNK_SECONDS, AudioError, Clip, Frame, split_channels, to_mono16
from voicehost.channels import ARRAY_SETTING, Channel, ChannelMap

log = logging.getLogger(__name__)

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
    """One line per mapped channel (`[audio] channels`, or an array's mics):
    whose it is, and the device and channel it reads, or why it cannot be read."""
    lines = []
    for channel in channels.channels:
        who = f"mic {channel.who}" if channels.setting == ARRAY_SETTING else channel.who
        spec = channel.input.device or input_device
        try:
            found = _match_device(spec, [d for d in devices if d.inputs > 0])
        except AudioError as exc:
            lines.append(f"{who}: channel {channel.input}: {exc}")
            continue
        name = found.name if found is not None else "the default input"
        if found is not None and channel.input.channel > found.inputs:
            lines.append(f"{who}: channel {channel.input}: {name} has only {found.inputs} input channels")
        else:
            lines.append(f"{who}: input {channel.input.channel} of {name}")
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

    def __init__(self, pyaudio: _QuietPyAudio, device: str, channels: ChannelMap, wanted: dict[int, Channel],
                 chunk_seconds: float) -> None:
        self.wanted = wanted
        self.pa, info = _open_device(pyaudio, device or None, output=False)
        self.rate = int(info["defaultSampleRate"])
        self.count = max(wanted)
        self.frames = int(self.rate * chunk_seconds)
        if self.count > int(info["maxInputChannels"]):
            self.pa.terminate()
            raise AudioError(f"'{info['name']}' has {int(info['maxInputChannels'])} input channels; "
                             f"{channels.mapping(wanted[self.count])}")
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
                self._devices.append(_DeviceChannels(pyaudio, device or input_device, channels,
                                                     channels.on_device(device), chunk_seconds))
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
