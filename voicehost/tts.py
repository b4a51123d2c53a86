"""Speech out: a Piper voice when one is configured, espeak-ng as the built-in
fallback. Voices yield clips; playing them is the speaker's job. The fixed
announcements are rendered once at start-up into a cache, so the moderator's
most frequent answers start playing at once."""
from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import queue
import shutil
import subprocess
import threading
import time
import wave
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from voicehost.audio import Clip, NullSink, Sink
from voicehost.errors import VoicehostError

log = logging.getLogger(__name__)


class VoiceError(VoicehostError):
    """A voice that cannot be loaded or cannot speak."""


class Voice(Protocol):
    name: str

    def synthesize(self, text: str) -> Iterator[Clip]: ...


class PiperVoice:
    """A Piper .onnx voice; yields one clip per sentence as it is synthesized."""

    def __init__(self, model: Path, config: Path | None = None) -> None:
        if not model.is_file():
            raise VoiceError(f"no Piper voice at {model}: run `voicehost models download`")
        config = config or model.with_name(model.name + ".json")
        if not config.is_file():
            raise VoiceError(f"the Piper voice {model.name} has no config ({config.name}) beside it")
        try:
            from piper import PiperVoice as _Piper
        except ImportError:
            raise VoiceError("the piper-tts package is not installed: run scripts/setup") from None
        try:
            self._voice = _load_piper(_Piper, model, config)
        except Exception as exc:
            raise VoiceError(f"the Piper voice {model} is broken ({type(exc).__name__}): "
                             f"download it again with `voicehost models download`") from None
        self.name = model.stem
        self.rate = self._voice.config.sample_rate

    def synthesize(self, text: str) -> Iterator[Clip]:
        for chunk in self._voice.synthesize(text):
            yield Clip(chunk.audio_int16_bytes, chunk.sample_rate)


def _load_piper(piper_class: Any, model: Path, config: Path) -> Any:
    """The voice with onnxruntime's memory arena off: with it, a long sentence
    grows the process by 230 MB that is never given back; at the table Piper
    mostly plays cached clips, so the arena's speed-up is not worth it."""
    import json

    import onnxruntime
    from piper.config import PiperConfig

    options = onnxruntime.SessionOptions()
    options.enable_cpu_mem_arena = False
    options.intra_op_num_threads = 1
    try:
        session = onnxruntime.InferenceSession(str(model), sess_options=options,
                                               providers=["CPUExecutionProvider"])
        return piper_class(config=PiperConfig.from_dict(json.loads(config.read_text("utf-8"))),
                           session=session)
    except TypeError:  # another piper-tts release: its own loader, arena and all
        return piper_class.load(model, config_path=config)


class EspeakVoice:
    """The built-in fallback: espeak-ng, which speaks Russian and Ukrainian."""

    def __init__(self, language: str = "ru", speed: int = 165) -> None:
        self.binary = shutil.which("espeak-ng")
        if self.binary is None:
            raise VoiceError("espeak-ng is not installed: run scripts/setup (or apt-get install espeak-ng)")
        self.language = language
        self.speed = speed
        self.name = f"espeak-ng:{language}"

    def synthesize(self, text: str) -> Iterator[Clip]:
        try:
            wav = subprocess.run([str(self.binary), "-v", self.language, "-s", str(self.speed), "--stdout", text],
                                 capture_output=True, check=True, timeout=30).stdout
        except (subprocess.SubprocessError, OSError) as exc:
            raise VoiceError(f"espeak-ng failed: {exc}") from None
        with wave.open(io.BytesIO(wav)) as reader:
            yield Clip(reader.readframes(reader.getnframes()), reader.getframerate())


def open_voice(piper_model: Path | None, language: str) -> Voice:
    """The configured Piper voice, else espeak-ng; says why when it falls back."""
    if piper_model is not None:
        try:
            return PiperVoice(piper_model)
        except VoiceError as exc:
            log.info("%s; speaking with espeak-ng instead", exc)   # the log's, not the host's screen
    return EspeakVoice(language)


def render(voice: Voice, text: str) -> Clip:
    clips = list(voice.synthesize(text))
    if not clips:
        return Clip(b"", 16_000)
    rate = clips[0].rate
    return Clip(b"".join(c.pcm for c in clips), rate)


def _cache_path(voice: Voice, text: str, folder: Path) -> Path:
    key = hashlib.sha256(f"{voice.name}\n{text}".encode()).hexdigest()[:24]
    return folder / f"{key}.wav"


def _read_clip(path: Path) -> Clip | None:
    try:
        with wave.open(str(path), "rb") as reader:
            return Clip(reader.readframes(reader.getnframes()), reader.getframerate())
    except (OSError, wave.Error, EOFError):
        return None


def _cached_render(voice: Voice, text: str, folder: Path | None) -> Clip:
    """The clip of `text`, from `folder` when it was rendered before, else
    rendered (and written there, when the disk lets it: the clip is said
    all the same)."""
    if folder is None:
        return render(voice, text)
    path = _cache_path(voice, text, folder)
    if path.is_file():
        clip = _read_clip(path)
        if clip is not None:
            return clip
        path.unlink(missing_ok=True)
    clip = render(voice, text)
    part = path.with_suffix(".part")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with wave.open(str(part), "wb") as writer:
            writer.setnchannels(1)
            writer.setsampwidth(2)
            writer.setframerate(clip.rate)
            writer.writeframes(clip.pcm)
        part.replace(path)
    except OSError as exc:   # a full or read-only disk, or no folder: rendered again next time
        log.warning("could not keep %r in %s: %s", text, folder, exc.strerror or exc)
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)
    return clip


@dataclass
class Spoken:
    """One announcement as played: when it started (game clock) and how long it lasts."""

    text: str
    private: bool
    start: float
    seconds: float
    cached: bool
    latency: float  # from the decision to the first sample, seconds (wall clock)


@dataclass
class _Item:
    text: str
    private: bool
    at: float | None = None  # game time of the decision
    decided: float = field(default_factory=time.perf_counter)


class Speaker:
    """Plays announcements in order: public ones on the table speaker, private
    ones (the Don's and the Sheriff's answers) on the host's earpiece only.

    Remembers when it spoke, so the listener can ignore its own voice."""

    def __init__(self, voice: Voice | None, table: Sink, earpiece: Sink | None,
                 clock: Callable[[], float], *, tail: float = 0.3, realtime: bool = True) -> None:
        self.voice = voice
        # On a real clock playback starts when the device takes the audio; on an
        # audio clock (a recorded game, faster than real time) it is scheduled
        # in game time: at the decision, or when the previous answer ends.
        self.realtime = realtime
        self._free_at = float("-inf")
        self.table = table
        self.earpiece = earpiece
        self.clock = clock
        self.tail = tail
        self.cache: dict[str, Clip] = {}
        self.on_disk: dict[str, Path] = {}  # prerendered, read when said
        self.spoken: list[Spoken] = []
        self._queue: queue.Queue[_Item | None] = queue.Queue()
        self._later: dict[str, Path] = {}   # rare lines to render the first time they are said
        self._idle = threading.Event()
        self._idle.set()
        self._thread = threading.Thread(target=self._run, name="speaker", daemon=True)
        self._thread.start()

    def prerender(self, texts: Iterable[str], folder: Path | None = None) -> int:
        """Render the fixed announcements once, kept in memory; with `folder`,
        kept on disk across evenings too (keyed by voice and text)."""
        if self.voice is None:
            return 0
        for text in texts:
            if text not in self.cache:
                self.cache[text] = _cached_render(self.voice, text, folder)
        from voicehost.asr import malloc_trim

        malloc_trim()  # synthesis buffers go back to the system
        return len(self.cache)

    def render_when_said(self, texts: Iterable[str], folder: Path) -> int:
        """Lines said rarely (a foul, a vote count): read from `folder` when an
        earlier start rendered them, else synthesized the first time they are
        said and kept there from then on. A first start renders none of them,
        so it does not keep the table waiting; returns how many wait so."""
        if self.voice is None:
            return 0
        for text in texts:
            if text in self.cache or text in self.on_disk:
                continue
            path = _cache_path(self.voice, text, folder)
            if path.is_file():
                self.on_disk[text] = path
            else:
                self._later[text] = folder
        return len(self._later)

    def uncached(self, texts: Iterable[str], folder: Path | None) -> int:
        """How many of `texts` `prerender` would have to synthesize now."""
        if self.voice is None:
            return 0
        voice = self.voice
        return sum(1 for text in dict.fromkeys(texts) if text not in self.cache and
                   (folder is None or not _cache_path(voice, text, folder).is_file()))

    def clip_for(self, text: str) -> Clip | None:
        """A prerendered clip of `text` (from memory or from disk), or None."""
        cached = self.cache.get(text)
        if cached is None and text in self.on_disk:
            cached = _read_clip(self.on_disk[text])
        return cached

    def say(self, text: str, *, private: bool = False, at: float | None = None) -> None:
        if private and self.earpiece is None:
            return  # private answers go to the host's page only
        self._idle.clear()
        self._queue.put(_Item(text, private, at))

    def wait(self, timeout: float = 30.0) -> bool:
        """Until everything queued has been played."""
        return self._idle.wait(timeout)

    def is_echo(self, start: float, end: float) -> bool:
        """Whether a word heard at [start, end] overlaps our own public speech (plus the tail)."""
        for spoken in reversed(self.spoken[-20:]):
            if not spoken.private and start <= spoken.start + spoken.seconds + self.tail and end >= spoken.start:
                return True
        return False

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=10)
        for sink in {id(s): s for s in (self.table, self.earpiece) if s is not None}.values():
            sink.close()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                self._play(item)
            except VoicehostError as exc:
                log.warning("could not say %r: %s", item.text, exc)
            finally:
                if self._queue.empty():
                    self._idle.set()

    def _play(self, item: _Item) -> None:
        sink = self.earpiece if item.private else self.table
        if sink is None or self.voice is None or isinstance(sink, NullSink):
            return
        cached = self.clip_for(item.text)
        if cached is not None:
            self._play_clips(item, sink, iter([cached]), cached=True)
            return
        folder = self._later.pop(item.text, None)
        try:
            if folder is None:
                clips = self.voice.synthesize(item.text)
            else:  # a rare line said for the first time: rendered once, kept on disk
                clips = iter([self._keep_on_disk(item.text, folder)])
            self._play_clips(item, sink, clips, cached=False)
        finally:
            # Even with onnxruntime's arena off, glibc keeps what a synthesis
            # freed: 50 long sentences grew the process by 340 MB
            # (tools/bench_piper.py); trimmed after each, it stays at one
            # sentence's worth.
            from voicehost.asr import malloc_trim

            malloc_trim()

    def _keep_on_disk(self, text: str, folder: Path) -> Clip:
        assert self.voice is not None
        clip = _cached_render(self.voice, text, folder)
        path = _cache_path(self.voice, text, folder)
        if path.is_file():
            self.on_disk[text] = path
        return clip

    def _play_clips(self, item: _Item, sink: Sink, clips: Iterator[Clip], *, cached: bool) -> None:
        record: Spoken | None = None
        for clip in clips:
            if record is None:
                record = Spoken(item.text, item.private, self._start(item), 0.0, cached,
                                time.perf_counter() - item.decided)
                self.spoken.append(record)
            record.seconds += clip.seconds
            sink.play(clip)
        if record is not None and not item.private:
            self._free_at = record.start + record.seconds

    def _start(self, item: _Item) -> float:
        if self.realtime or item.at is None:
            return self.clock()
        return max(item.at, self._free_at)
