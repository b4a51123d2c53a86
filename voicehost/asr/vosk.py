"""The Vosk adapter: a recognizer stream over a loaded model that feeds the
partial committer, and the captioning pair (both recognizers together).

Words are decided from Vosk's plain-text partial (`SetPartialWords(False)`):
it is the best path over every decoded frame, so a word shows ~0.45 s after
it ends, where the timed partial waits for lattice determinization (0.85-1.8 s).
The final result is the lattice's best path too (`SetMaxAlternatives(1)`),
not Vosk's default minimum-Bayes-risk words: those may be another word
sequence than the best path the partials showed, so a number already
announced was retracted for words no partial had shown ("버스" -> "더 [unk]")."""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import json
import logging
import queue
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from voicehost.asr.committer import (
    FOUR_MAFIA,
    Meaning,
    PartialCommitter,
    Revision,
    SpeechLimits,
    exact_text,
    plain_words,
)
from voicehost.asr.model_files import SpeechModel, model_knows
from voicehost.audio import RATE
from voicehost.phrases.words import Word

log = logging.getLogger(__name__)



@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")


def malloc_trim() -> None:
    """Give freed recognizer memory back to the system (glibc keeps it otherwise);
    called after every synthesized line, so the library is looked up once."""
    try:
        _libc().malloc_trim(0)
    except (OSError, AttributeError):
        pass


class VoskRecognizer:
    """One recognizer stream over a loaded model (see `load_model`).

    With `phrases`, a grammar recognizer: only those words (and `[unk]`, or
    the model's `fillers` passed on as "[unk]", for anything else) can be
    heard; it decodes at a few per cent of real time and takes tens of MB
    where an open one takes ~200; `weights` count a phrase more than once in
    the grammar's language model (Vosk estimates it from the list, so a
    phrase listed n times is n times as likely). Without, the open recognizer. Whether a
    model may get a grammar at all (one without [unk] or fillers would hear
    every cough as a rule word) is decided in one place, `choose_listening`
    (`voicehost.live.listening.listening_recognizer` at the table)."""

    def __init__(self, model: SpeechModel, *, phrases: list[str] | None = None, stable_seconds: float = 0.1,
                 limits: SpeechLimits = FOUR_MAFIA, meaning: Meaning = exact_text,
                 fillers: Iterable[str] = (), weights: Mapping[str, int] | None = None) -> None:
        import vosk

        self.model = model
        self.fillers = frozenset(fillers) - set(phrases or ())
        self.phrases = phrases
        self.grammar: list[str] | None = None  # the phrase list Vosk got, weights as repeats
        if phrases is not None:
            known = [p for p in phrases if self.knows(p)] + (["[unk]"] if self.knows("[unk]") else [])
            known += sorted(w for w in self.fillers if self.knows(w))
            for word, times in sorted((weights or {}).items()):  # a phrase listed n times is n times as likely
                if word in phrases and self.knows(word):
                    known += [word] * (times - 1)
            self.grammar = known or ["[unk]"]
            self._rec = vosk.KaldiRecognizer(model, RATE, json.dumps(self.grammar, ensure_ascii=False))
        else:
            self._rec = vosk.KaldiRecognizer(model, RATE)
        self._rec.SetWords(True)
        self._rec.SetPartialWords(False)
        self._rec.SetMaxAlternatives(1)  # the best path, as the partials show it (see the module's note)
        self.audio_time = 0.0
        self.ended = False  # whether the last chunk (or `finish`) ended an utterance: its final result came
        self._skew = 0.0  # seconds of warm-up audio Vosk still counts its word times from
        self._committer = PartialCommitter(stable_seconds, limits=limits, meaning=meaning)

    @property
    def pending(self) -> bool:
        """Whether words taken from partials still wait for the final result."""
        return self._committer.pending

    def knows(self, word: str) -> bool:
        return model_knows(self.model, word)

    def missing(self, words: Iterable[str]) -> list[str]:
        """Words the model's vocabulary lacks: those can never be recognized."""
        return sorted({w for w in words if " " not in w and not self.knows(w)})

    def warm_up(self) -> None:
        """Decode a moment of silence once, so the first real word does not pay
        for the first-use allocations; the stream then starts afresh. Vosk's
        Reset keeps counting word times from the audio it was fed before
        (`samples_round_start_`), so the final results' times are taken back
        by the warm-up's length: without that every exact time came 0.5 s
        later than the words taken from partials and the table's clock."""
        silence = b"\0\0" * (RATE // 2)
        self._rec.AcceptWaveform(silence)
        self._rec.Reset()
        self._skew += len(silence) / 2 / RATE

    def accept(self, pcm: bytes) -> list[Word | Revision]:
        self.audio_time += len(pcm) / 2 / RATE
        self.ended = bool(self._rec.AcceptWaveform(pcm))
        if self.ended:
            return self._committer.final(self._final(self._rec.Result()), self.audio_time)
        texts = json.loads(self._rec.PartialResult()).get("partial", "").split()
        if self.fillers:
            texts = ["[unk]" if t in self.fillers else t for t in texts]
        return list(self._committer.partial(texts, self.audio_time))

    def finish(self) -> list[Word | Revision]:
        self.ended = True
        return self._committer.final(self._final(self._rec.FinalResult()), self.audio_time)

    def _final(self, result: str) -> list[dict[str, Any]]:
        """A final result's words, times from the stream's start, a filler heard as [unk]."""
        parsed = json.loads(result)
        best = (parsed.get("alternatives") or [parsed])[0]  # SetMaxAlternatives(1): the one best path
        items: list[dict[str, Any]] = best.get("result", [])
        if self._skew:
            # the best path may begin the first word in the warm-up's last frame: it starts with the stream
            items = [dict(i, start=max(0.0, float(i["start"]) - self._skew), end=max(0.0, float(i["end"]) - self._skew))
                     for i in items]
        if self.fillers:
            items = [dict(i, word="[unk]") if i.get("word") in self.fillers else i for i in items]
        return items

    def close(self) -> None:
        self._rec = None
        malloc_trim()


CAPTION_WORDS = 200  # the captions kept: the last words heard
# How long an utterance's final result waits for the captions to hear the
# audio fed so far (at the microphone's pace the open recognizer is a chunk
# or two behind): the decisions were taken from partials already, only the
# exact words of the utterance wait. A recording, fed faster than real time,
# waits for them whatever it takes (`catch_up = None`): its journal must not
# depend on the machine's speed.
CATCH_UP = 0.3
# How far apart in time a caption word and the deciding recognizer's "[unk]"
# may lie and still be one word (a caption taken from a partial has estimated times).
SAME_WORD = 0.15


class CaptionedRecognizer:
    """Both recognizers together (`[asr] captions`): the grammar recognizer
    decides, and an open recognizer over the same model, fed the same chunks
    on a thread of its own (so its slower decoding never holds up a
    decision), hears every word for the captions (`captions`: the last
    words it settled on, revisions applied, times from the stream's start;
    `on_caption` is called on that thread).

    The rules see the deciding recognizer's words, with one exception: a
    word the grammar cannot list, which the rules still react to (a
    forbidden word's other forms, "честное", "честностью": `overheard`
    says which), is heard by the grammar as "[unk]"; in an utterance's final
    result such an "[unk]" becomes the word the captions heard at its time,
    so the host gets the suggestion for it. Its times stay the decider's.

    `finish` ends the utterance for both and the pair goes on listening (an
    evening's next game); `close` stops the captions. If the captions fail,
    the decider goes on alone (`captioning` turns False)."""

    def __init__(self, decider: VoskRecognizer, captioner: VoskRecognizer,
                 on_caption: Callable[[list[Word | Revision]], None] | None = None,
                 overheard: Callable[[str], bool] | None = None) -> None:
        self.decider = decider
        self.captioner = captioner
        self.on_caption = on_caption
        self.overheard = overheard
        self.catch_up: float | None = CATCH_UP
        self._captions: list[Word] = []
        self._lock = threading.Lock()
        self._caught_up = threading.Condition(self._lock)
        self._fed = self._heard = 0  # chunks queued for the captions, and decoded by them
        self._queue: queue.Queue[bytes | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="captions", daemon=True)
        self._thread.start()

    @property
    def captions(self) -> list[Word]:
        with self._lock:
            return list(self._captions)

    @property
    def captioning(self) -> bool:
        """Whether the captions still hear (their thread did not fail nor stop)."""
        return self._thread.is_alive()

    @property
    def audio_time(self) -> float:
        return self.decider.audio_time

    @property
    def pending(self) -> bool:
        return self.decider.pending

    @property
    def phrases(self) -> list[str] | None:
        return self.decider.phrases

    @property
    def fillers(self) -> frozenset[str]:
        return self.decider.fillers

    def knows(self, word: str) -> bool:
        return self.decider.knows(word)

    def missing(self, words: Iterable[str]) -> list[str]:
        return self.decider.missing(words)

    def warm_up(self) -> None:
        """Both warmed up before the first chunk (the captions' thread waits for
        one): fed to the captions as audio, the warm-up put every caption half
        a second after the word it is."""
        self.decider.warm_up()
        self.captioner.warm_up()

    def accept(self, pcm: bytes, captions: bytes | None = None) -> list[Word | Revision]:
        """A chunk for both; `captions`: what the captions hear instead (an
        array's plain mix, while the decider hears the beam at the speaker)."""
        self._feed(pcm if captions is None else captions)
        items = self.decider.accept(pcm)
        return self._overheard(items, self.catch_up) if self.decider.ended else items

    def finish(self, timeout: float = 60.0) -> list[Word | Revision]:
        """The decider's last words; the captions end their utterance too and
        catch up first (at most `timeout`), then go on listening."""
        self._feed(b"")  # the captions' own finish, on their thread
        words = self.decider.finish()
        self._catch_up(timeout)
        return self._overheard(words, 0.0)

    def _feed(self, pcm: bytes) -> None:
        if not self._thread.is_alive():
            return  # the captions failed or stopped: nothing is kept for them
        with self._lock:
            self._fed += 1
        self._queue.put(pcm)

    def _run(self) -> None:
        while (pcm := self._queue.get()) is not None:
            try:
                self._caption(self.captioner.accept(pcm) if pcm else self.captioner.finish())
            except Exception:  # the captions stop; the table goes on deciding
                log.exception("the captions recognizer failed")
                return
            finally:
                with self._lock:
                    self._heard += 1
                    self._caught_up.notify_all()

    def _caption(self, items: list[Word | Revision]) -> None:
        if items:
            with self._lock:
                self._captions = plain_words([*self._captions, *items])[-CAPTION_WORDS:]
            if self.on_caption is not None:
                self.on_caption(items)

    def _overheard(self, items: list[Word | Revision], wait: float | None) -> list[Word | Revision]:
        """An utterance's final words with each "[unk]" the captions heard as
        an `overheard` word replaced by that word (see the class's note); the
        captions get `wait` seconds to catch up (None: what it takes)."""
        def unknown(item: Word | Revision) -> bool:
            return any(w.word == "[unk]" for w in item.new) if isinstance(item, Revision) else item.word == "[unk]"

        if self.overheard is None or not any(unknown(item) for item in items):
            return items
        self._catch_up(wait)
        with self._lock:
            candidates = [w for w in self._captions if self.overheard(w.word)]
        if not candidates:
            return items
        used: set[int] = set()

        def word(w: Word) -> Word:
            if w.word != "[unk]":
                return w
            near = [(min(w.end, c.end) - max(w.start, c.start), i) for i, c in enumerate(candidates)
                    if i not in used and c.start < w.end + SAME_WORD and c.end > w.start - SAME_WORD]
            if not near:
                return w
            i = max(near)[1]
            used.add(i)
            log.info("the captions heard %r where the grammar heard [unk] (%.2f-%.2f s)", candidates[i].word,
                     w.start, w.end)
            return replace(w, word=candidates[i].word)

        return [Revision(item.old, tuple(word(w) for w in item.new)) if isinstance(item, Revision) else word(item)
                for item in items]

    def _catch_up(self, timeout: float | None) -> None:
        """Until the captions heard the audio fed so far (or failed), at most `timeout` (None: no limit)."""
        with self._lock:
            self._caught_up.wait_for(lambda: self._heard >= self._fed or not self._thread.is_alive(), timeout)

    def _stop(self, timeout: float) -> None:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join(timeout)

    def close(self) -> None:
        self._stop(5.0)
        if not self._thread.is_alive():
            self.captioner.close()
        self.decider.close()
