"""The table's speaker: plays announcements in order on a thread of its own,
public ones on the table speaker, private ones on the host's earpiece; the
fixed announcements prerendered (kept in memory, or on disk across evenings),
so the moderator's most frequent answers start playing at once. Voices
(voicehost.tts) only synthesize."""
from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from voicehost.audio import Clip, NullSink, Sink
from voicehost.errors import VoicehostError
from voicehost.tts import Voice, cache_path, cached_render, read_clip

log = logging.getLogger(__name__)


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
        texts = list(dict.fromkeys(texts))
        voice = self.voice
        apart = getattr(voice, "render_apart", None)
        missing = self._missing(texts, folder)
        if folder is not None and apart is not None and missing:
            apart(missing, folder)  # what it could not render is rendered below
        for text in texts:
            if text not in self.cache:
                self.cache[text] = cached_render(voice, text, folder)
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
            path = cache_path(self.voice, text, folder)
            if path.is_file():
                self.on_disk[text] = path
            else:
                self._later[text] = folder
        return len(self._later)

    def uncached(self, texts: Iterable[str], folder: Path | None) -> int:
        """How many of `texts` `prerender` would have to synthesize now."""
        return len(self._missing(texts, folder)) if self.voice is not None else 0

    def _missing(self, texts: Iterable[str], folder: Path | None) -> list[str]:
        """Those of `texts` neither in memory nor on disk in `folder`."""
        voice = self.voice
        assert voice is not None
        return [text for text in dict.fromkeys(texts) if text not in self.cache and
                (folder is None or not cache_path(voice, text, folder).is_file())]

    def clip_for(self, text: str) -> Clip | None:
        """A prerendered clip of `text` (from memory or from disk), or None."""
        cached = self.cache.get(text)
        if cached is None and text in self.on_disk:
            cached = read_clip(self.on_disk[text])
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
        clip = cached_render(self.voice, text, folder)
        path = cache_path(self.voice, text, folder)
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
