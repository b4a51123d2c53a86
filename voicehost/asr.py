"""Recognition: Vosk from a local model folder, 16 kHz mono, with word times.

Vosk's word times count from the start of the stream a recognizer was fed;
the live loop adds the game-clock time of that start.

Words are decided from Vosk's plain-text partial (`SetPartialWords(False)`):
it is the best path over every decoded frame, so a word shows ~0.45 s after
it ends, where the timed partial waits for lattice determinization (0.85-1.8 s).
A partial word counts once it has meant the same to the rules for
`stable_seconds` of audio, or a later word has appeared after it; each word
is judged on its own. "The same" is `rule_meaning`: a number word by its
value, whatever case ending the partial shows while the ending is still
being heard ("седьмой" -> "седьмого"), any wrong form of the trigger as a
wrong form, a word the rules ignore as any other; the trigger, fillers,
forbidden words and the rest by their exact text.
The text partial has no times, so a word taken from it carries estimated
times (`PartialCommitter.estimate`). The final result brings the exact times:
the recognizer then hands over a `Revision` (provisional words -> final
words), and the table replays the utterance with them (voicehost.revision),
so every rule that depends on word times (the 10 s pause, the 1.5 s after
"пас", the speech limit) is in the end judged on the exact times; when a
decision changes, the moderator corrects itself aloud.

To keep those corrections rare, a word whose estimated gap to the word before
it could lie near one of the timing thresholds is not taken from the partial
at all: it waits for the final result and its exact times (see `_risky`)."""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import hashlib
import json
import logging
import queue
import shutil
import threading
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from voicehost.audio import RATE
from voicehost.errors import VoicehostError
from voicehost.phrases.grammar import Grammar, Kind, normalize
from voicehost.phrases.words import Word

log = logging.getLogger(__name__)


class AsrError(VoicehostError):
    """A model that cannot be loaded, or a recognizer that cannot start."""


@dataclass(frozen=True)
class Revision:
    """The final result of an utterance replacing the words already taken from
    its partials: same texts with exact times, or different words."""

    old: tuple[Word, ...]
    new: tuple[Word, ...]

    def shifted(self, offset: float) -> Revision:
        return Revision(tuple(w.shifted(offset) for w in self.old), tuple(w.shifted(offset) for w in self.new))

    @property
    def contradicts(self) -> bool:
        """Whether the final result heard other words than the partials did."""
        return [w.word for w in self.old] != [w.word for w in self.new[:len(self.old)]]


class Recognizer(Protocol):
    """Takes 16 kHz mono 16-bit chunks, returns the words it has committed to
    (and `Revision`s of words it committed earlier); `audio_time` is how much
    audio it has been fed."""

    @property
    def audio_time(self) -> float: ...

    def accept(self, pcm: bytes) -> list[Word | Revision]: ...

    def finish(self) -> list[Word | Revision]: ...


def grammar_phrases(grammar: Grammar) -> list[str]:
    """The phrase list for grammar-limited mode: every whole word the rules
    react to in speech. Forbidden words matched by a prefix or a part of a word
    ("честн…") have too many forms to list; only the open recognizer hears them."""
    words = {grammar.trigger, *grammar.wrong_forms, *grammar.fillers, *grammar.thanks, *grammar.passes,
             *grammar.numbers, *grammar.question_words}
    for rule in grammar.forbidden:
        words |= set(rule.words)
        for phrase in rule.phrases:
            words |= set(phrase.split())
    words.discard("№")
    return sorted(words)


def unheard_rule_words(grammar: Grammar, knows: Callable[[str], bool]) -> list[str]:
    """The rule words a model's vocabulary lacks (it can never hear them), the
    ones a nomination needs first: the trigger, the numbers (by seat), the
    words that end a speech, the fillers, then the rest alphabetically."""
    def rank(word: str) -> tuple[int, int, str]:
        if word == grammar.trigger:
            return (0, 0, word)
        seat = grammar.numbers.get(word)
        if seat is not None:
            return (1, seat, word)
        if word in grammar.thanks or word in grammar.passes:
            return (2, 0, word)
        if word in grammar.fillers or word in grammar.wrong_forms:
            return (3, 0, word)
        return (4, 0, word)

    return sorted((w for w in grammar_phrases(grammar) if " " not in w and not knows(w)), key=rank)


MODES = ("auto", "grammar", "open")


@dataclass(frozen=True)
class Listening:
    """Which recognizer the table listens with, and why (for the log)."""

    grammar: bool
    why: str

    @property
    def name(self) -> str:
        return "the grammar recognizer (the rule words and [unk])" if self.grammar else \
            "the open-vocabulary recognizer"


FILLER_COUNT = 400  # a model's frequent words a grammar takes as [unk] when the model has no [unk]


def filler_split(grammar: Grammar | None, words: Iterable[str], rule_words: Iterable[str]) -> \
        tuple[list[str], list[str]]:
    """A model's frequent words for a grammar without [unk]: (fillers, heard):
    a word the speech rules react to (a forbidden word's other form,
    "честное") is heard as itself, any other is a filler heard as [unk]; the
    rule words themselves are neither."""
    rules = set(rule_words)
    fillers: list[str] = []
    heard: list[str] = []
    for word in words:
        if word in rules:
            continue
        (heard if grammar is not None and grammar.reacts_to(word) else fillers).append(word)
    return fillers, heard


def grammar_fillers(model_dir: Path, grammar: Grammar | None, rule_words: list[str],
                    count: int = FILLER_COUNT) -> tuple[list[str], list[str]]:
    """`filler_split` of a model's `count` most frequent words that are no rule
    words (`voicehost.vocabulary`); ([], []) when its graph cannot be read."""
    from voicehost.vocabulary import frequent_words

    fillers, heard = filler_split(grammar, frequent_words(model_dir, 2 * count, set(rule_words)), rule_words)
    return fillers[:count], heard


def choose_listening(mode: str, knows: Callable[[str], bool], fillers: int = 0) -> Listening:
    """The recognizer for `[asr] mode`: "auto" takes the grammar when the
    model can say that a sound is none of the rule words: with its [unk], or
    with `fillers` of its own frequent words that are heard as [unk]
    (`voicehost.vocabulary`); with neither, every cough would come out as the
    nearest rule word, so it listens openly. "grammar" and "open" are the
    host's own choice and are kept."""
    if mode not in MODES:
        raise AsrError(f"[asr] mode must be one of {', '.join(MODES)}, got {mode!r}")
    unk = knows("[unk]")
    if mode == "open":
        return Listening(False, "[asr] mode is open")
    if mode == "grammar":
        return Listening(True, "[asr] mode is grammar" + ("" if unk or fillers else
                         "; the model has no [unk], so any sound may be heard as a rule word"))
    if unk:
        return Listening(True, "[asr] mode is auto and the model has [unk] for every other sound")
    if fillers:
        return Listening(True, f"[asr] mode is auto and the model has no [unk]: {fillers} of its most frequent "
                               f"words that are no rule words stand for every other sound")
    return Listening(False, "[asr] mode is auto and the model has no [unk], nor a vocabulary to take fillers "
                            "from: a grammar would hear every sound as a rule word")


def model_problem(model_dir: Path) -> str | None:
    """Why a folder is not a usable Vosk model, or None if it looks like one."""
    if not model_dir.exists():
        return f"no speech model at {model_dir}"
    if not model_dir.is_dir():
        return f"{model_dir} is a file, not a model folder"
    if not (model_dir / "am" / "final.mdl").is_file() and not (model_dir / "final.mdl").is_file():
        return f"{model_dir} is not a Vosk model folder (no am/final.mdl)"
    if not (model_dir / "conf" / "model.conf").is_file():
        return f"{model_dir} is not a complete Vosk model (no conf/model.conf)"
    return None


# Seconds from a word's end to its first appearance in the text partial, as
# measured with frames-per-chunk 6 (the acoustic model's right context is 0.34 s).
PARTIAL_LAG = 0.4
MARGIN = 0.5  # how far an estimated time may be off


@dataclass(frozen=True)
class SpeechLimits:
    """The timing rules of a speech (SPEC), as the table's rules set them: a
    nomination fails after a pause of more than `pause_limit`, and a pass word
    ends the speech after `pass_silence` with no new word (4mafia: 10 s, 1.5 s)."""

    pause_limit: float = 10.0
    pass_silence: float = 1.5
    pass_words: frozenset[str] = frozenset({"пас"})


FOUR_MAFIA = SpeechLimits()


Meaning = Callable[[str], Hashable]
# What every wrong form of the trigger means (`rule_meaning`): never taken from
# a partial, the final result decides. A wrong form only ever refuses, so
# waiting costs a refusal a quarter of a second; a trigger shown for a moment
# as its wrong form ("выставляем" -> "выставляю", the commonest mishearing near
# the trigger) is then never announced as a refusal and corrected.
WRONG_FORM = ("wrong form",)
# The trigger, and a word the rules do not know: after a taken trigger such a
# word can only refuse the nomination (extra words), and a partial shows one
# where a number is still being heard ("выставляю [unk]" -> "выставляю
# седьмого"), so it too waits for the partial to change or the final result.
TRIGGER = ("trigger",)
OTHER = ("other",)


def exact_text(text: str) -> Hashable:
    """Without a grammar every change of a partial word's text is a new word."""
    return text


def rule_meaning(grammar: Grammar) -> Meaning:
    """What a heard word is to the speech rules, for the partial committer:
    two texts with the same meaning are one word still being heard.

    A number is its seat (1..10, 0 for another number) in any case or form;
    every wrong form of the trigger gets the same refusal, so they are one,
    but never the trigger itself ("выставляю" nominates, "выставляем" does
    not); a word the rules treat as "[unk]" is any such word. The trigger,
    fillers (a ruleset may require one by name), thanks, pass, question and
    forbidden words keep their exact text."""

    def meaning(text: str) -> Hashable:
        word = normalize(text)
        kind = grammar.kind(word)
        if kind is Kind.TRIGGER:
            return TRIGGER
        if kind is Kind.NUMBER:
            return ("number", grammar.number(word))
        if kind is Kind.WRONG_FORM:
            return WRONG_FORM
        if not grammar.reacts_to(text):
            return OTHER
        return (kind.value, word)

    return meaning


class PartialCommitter:
    """Turns Vosk text partials and final results into words, each taken once.

    Partial words are identified by their place in the utterance and their
    `meaning` (the exact text unless told otherwise, `rule_meaning` at the
    table): a word whose meaning changes starts its stability window again,
    and never holds back the words after it. A word is taken with the text
    the partial shows at that moment; the final result has the last word."""

    def __init__(self, stable_seconds: float = 0.1, *, limits: SpeechLimits = FOUR_MAFIA,
                 margin: float = MARGIN, lag: float = PARTIAL_LAG, meaning: Meaning = exact_text) -> None:
        self.stable_seconds = stable_seconds
        self.limits = limits
        self.margin = margin
        self.lag = lag
        self.meaning = meaning
        self._first: dict[tuple[int, Hashable], float] = {}
        self._taken: list[Word] = []  # this utterance's words taken from partials
        self._held = False            # a word is waiting for the final result
        self._attempt = False         # the last words taken are the trigger and fillers
        self.anchor = 0.0             # audio time where this utterance started
        self.last: Word | None = None  # the last word of the last final result (exact times)

    @property
    def pending(self) -> bool:
        """Whether words of this utterance wait for its final result."""
        return bool(self._taken) or self._held

    def partial(self, texts: list[str], audio_time: float) -> list[Word]:
        out: list[Word] = []
        keys = set()
        for index, text in enumerate(texts):
            key = (index, self.meaning(text))
            keys.add(key)
            first = self._first.setdefault(key, audio_time)
            if index != len(self._taken) or self._held:
                continue
            later = index < len(texts) - 1
            if not later and audio_time - first + 1e-9 < self.stable_seconds:
                continue
            if key[1] == WRONG_FORM or (self._attempt and key[1] == OTHER):
                continue  # the words after it wait with it
            word = self.estimate(text, first, audio_time)
            if self._risky(first):
                self._held = True
                continue
            self._taken.append(word)
            out.append(word)
            meaning = key[1]
            filler = isinstance(meaning, tuple) and meaning[:1] == (Kind.FILLER.value,)
            self._attempt = meaning == TRIGGER or (self._attempt and filler)
        self._first = {k: v for k, v in self._first.items() if k in keys}
        return out

    def estimate(self, text: str, first_seen: float, audio_time: float) -> Word:
        """Times for a word seen first at `first_seen`: it ended about `lag`
        before, after the word before it, and inside the audio fed so far."""
        floor = self._taken[-1].end if self._taken else self.anchor
        end = min(audio_time, max(floor, first_seen - self.lag))
        start = max(floor, end - 0.3)
        return Word(text, round(start, 3), round(end, 3), 0.0)

    def _risky(self, first_seen: float) -> bool:
        """Whether the gap before the next word could fall on either side of a
        timing rule's limit: then only the final result's exact times decide.

        The word started at the latest when it was first seen. Inside one
        utterance the endpointer closes the utterance after 2 s of silence, so
        only the 1.5 s after a "пас" can be at stake, judged from the "пас"'s
        estimated end. The first word of an utterance starts after the
        utterance began (`anchor`) and the word before it has exact times, so
        its gap lies in [anchor - end, first_seen - end]."""
        rules = self.limits
        if self._taken:
            before = self._taken[-1]
            return before.word in rules.pass_words and first_seen - before.end + self.margin >= rules.pass_silence
        if self.last is None:
            return False
        low, high = self.anchor - self.last.end - self.margin, first_seen - self.last.end + self.margin
        limits = (rules.pause_limit, rules.pass_silence) if self.last.word in rules.pass_words \
            else (rules.pause_limit,)
        return any(low <= limit <= high for limit in limits)

    def final(self, items: list[dict[str, Any]], audio_time: float) -> list[Word | Revision]:
        words = [Word(str(i["word"]), float(i["start"]), float(i["end"]), float(i.get("conf", 1.0)))
                 for i in items]
        taken, self._taken = self._taken, []
        self._first.clear()
        self._held = self._attempt = False
        self.anchor = audio_time
        if words:
            self.last = words[-1]
        if not taken:
            return list(words)
        return [Revision(tuple(taken), tuple(words))]


def model_knows(model: Any, word: str) -> bool:
    """Whether a loaded Vosk model's vocabulary has `word`."""
    found: int = model.vosk_model_find_word(word)
    return found >= 0


@functools.cache
def _libc() -> Any:
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

    With `phrases`, a grammar recognizer: only those words (and `[unk]` for
    anything else) can be heard; it decodes at a few per cent of real time and
    takes tens of MB where an open one takes ~200. A model without `[unk]`
    gets an open recognizer instead, unless `force_grammar` (the host chose
    `[asr] mode = "grammar"`, or a benchmark whose audio holds only grammar
    words); `choose_listening` is where the table decides."""

    def __init__(self, model: Any, *, phrases: list[str] | None = None, stable_seconds: float = 0.1,
                 force_grammar: bool = False, limits: SpeechLimits = FOUR_MAFIA,
                 meaning: Meaning = exact_text, fillers: Iterable[str] = ()) -> None:
        import vosk

        self.model = model
        self.fillers = frozenset(fillers) - set(phrases or ())
        if phrases is not None and not self.knows("[unk]") and not force_grammar and not self.fillers:
            # Without [unk] every sound would come out as the nearest grammar
            # word: a cough could nominate. An open recognizer is slower and
            # larger, but hears what was said.
            log.warning("the speech model has no [unk]: listening with the open vocabulary instead of "
                        "the grammar")
            phrases = None
        self.phrases = phrases
        if phrases is not None:
            known = [p for p in phrases if self.knows(p)] + (["[unk]"] if self.knows("[unk]") else [])
            known += sorted(w for w in self.fillers if self.knows(w))
            self._rec = vosk.KaldiRecognizer(model, RATE, json.dumps(known or ["[unk]"], ensure_ascii=False))
        else:
            self._rec = vosk.KaldiRecognizer(model, RATE)
        self._rec.SetWords(True)
        self._rec.SetPartialWords(False)
        self.audio_time = 0.0
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
        for the first-use allocations; the stream then starts afresh."""
        self._rec.AcceptWaveform(b"\0\0" * (RATE // 2))
        self._rec.Reset()

    def accept(self, pcm: bytes) -> list[Word | Revision]:
        self.audio_time += len(pcm) / 2 / RATE
        if self._rec.AcceptWaveform(pcm):
            return self._committer.final(self._final(self._rec.Result()), self.audio_time)
        texts = json.loads(self._rec.PartialResult()).get("partial", "").split()
        if self.fillers:
            texts = ["[unk]" if t in self.fillers else t for t in texts]
        return list(self._committer.partial(texts, self.audio_time))

    def finish(self) -> list[Word | Revision]:
        return self._committer.final(self._final(self._rec.FinalResult()), self.audio_time)

    def _final(self, result: str) -> list[dict[str, Any]]:
        """A final result's words, a filler heard as [unk]."""
        items: list[dict[str, Any]] = json.loads(result).get("result", [])
        if self.fillers:
            items = [dict(i, word="[unk]") if i.get("word") in self.fillers else i for i in items]
        return items

    def close(self) -> None:
        self._rec = None
        malloc_trim()


CAPTION_WORDS = 200  # the captions kept: the last words heard


class CaptionedRecognizer:
    """Both recognizers together (`[asr] captions = true`): the grammar
    recognizer decides, and an open recognizer over the same model, fed the
    same chunks on a thread of its own (so its slower decoding never holds up
    a decision), hears every word for the captions (`captions`: the last
    words it settled on, revisions applied, times from the stream's start;
    `on_caption` is called on that thread). The rules only ever see the
    deciding recognizer's words."""

    def __init__(self, decider: VoskRecognizer, captioner: VoskRecognizer,
                 on_caption: Callable[[list[Word | Revision]], None] | None = None) -> None:
        self.decider = decider
        self.captioner = captioner
        self.on_caption = on_caption
        self._captions: list[Word] = []
        self._lock = threading.Lock()
        self._queue: queue.Queue[bytes | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="captions", daemon=True)
        self._thread.start()

    @property
    def captions(self) -> list[Word]:
        with self._lock:
            return list(self._captions)

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
        self.decider.warm_up()
        self._queue.put(b"\0\0" * (RATE // 2))

    def accept(self, pcm: bytes) -> list[Word | Revision]:
        self._queue.put(pcm)
        return self.decider.accept(pcm)

    def finish(self, timeout: float = 60.0) -> list[Word | Revision]:
        """The decider's last words; the captions catch up first (at most `timeout`)."""
        words = self.decider.finish()
        self._stop(timeout)
        if not self._thread.is_alive():
            self._caption(self.captioner.finish())
        return words

    def _run(self) -> None:
        while (pcm := self._queue.get()) is not None:
            try:
                self._caption(self.captioner.accept(pcm))
            except Exception:  # the captions stop; the table goes on deciding
                log.exception("the captions recognizer failed")
                return

    def _caption(self, items: list[Word | Revision]) -> None:
        if items:
            with self._lock:
                self._captions = plain_words([*self._captions, *items])[-CAPTION_WORDS:]
            if self.on_caption is not None:
                self.on_caption(items)

    def _stop(self, timeout: float) -> None:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join(timeout)

    def close(self) -> None:
        self._stop(5.0)
        if not self._thread.is_alive():
            self.captioner.close()
        self.decider.close()


def new_words(items: Iterable[Word | Revision]) -> list[Word]:
    """Only the words heard for the first time (training mode, which never corrects itself)."""
    out: list[Word] = []
    for item in items:
        out += list(item.new[len(item.old):]) if isinstance(item, Revision) else [item]
    return out


def plain_words(items: Iterable[Word | Revision]) -> list[Word]:
    """The words a stream of results settles on (for tools that need no revisions)."""
    out: list[Word] = []
    for item in items:
        if isinstance(item, Revision):
            del out[len(out) - len(item.old):]
            out += item.new
        else:
            out.append(item)
    return out


# Kaldi determinizes the partial lattice in chunks; by default a word can wait
# up to 60 frames (1.8 s) before it shows in partial words. frames-per-chunk 6
# (default 24) lets the text partial follow the audio within 60 ms.
LOW_LATENCY = ("--determinize-max-delay=10", "--determinize-min-chunk-size=5", "--frames-per-chunk=6")
ENDPOINT_RULE2 = "--endpoint.rule2.min-trailing-silence"


def low_latency_options(endpoint_seconds: float = 0.25) -> tuple[str, ...]:
    """Options appended to the model's conf (a later option overrides an earlier one)."""
    return LOW_LATENCY + (f"{ENDPOINT_RULE2}={endpoint_seconds:g}",)


def low_latency_view(model_dir: Path, cache: Path, endpoint_seconds: float = 0.25) -> Path:
    """The model as Vosk should load it for live play: a folder of links to the
    model's files with a conf/model.conf that ends with `low_latency_options`.
    The downloaded model itself is never changed."""
    conf = (model_dir / "conf" / "model.conf").read_text("utf-8")
    options = low_latency_options(endpoint_seconds)
    tuned = conf.rstrip("\n") + "\n" + "\n".join(options) + "\n"
    digest = hashlib.sha256(f"{model_dir.resolve()}\n{tuned}".encode()).hexdigest()[:16]
    view = cache / f"{model_dir.name}-{digest}"
    if not (view / "conf" / "model.conf").is_file():
        try:
            (view / "conf").mkdir(parents=True, exist_ok=True)
            for entry in model_dir.iterdir():
                if entry.name != "conf" and not (view / entry.name).exists():
                    (view / entry.name).symlink_to(entry.resolve())
            for entry in (model_dir / "conf").iterdir():
                if entry.name != "model.conf":
                    shutil.copy2(entry, view / "conf" / entry.name)
            (view / "conf" / "model.conf").write_text(tuned, "utf-8")
        except OSError as exc:
            log.warning("could not tune %s for low latency (%s); using it as it is", model_dir, exc)
            return model_dir
    return view


def load_model(model_dir: Path, *, low_latency_cache: Path | None = None,
               endpoint_seconds: float = 0.25) -> Any:
    """Load once, share between recognizers (the vocabulary check, the stream)."""
    problem = model_problem(model_dir)
    if problem:
        raise AsrError(f"{problem}: run `voicehost models download` (or set [asr] model in config.toml)")
    if low_latency_cache is not None:
        model_dir = low_latency_view(model_dir, low_latency_cache, endpoint_seconds)
    try:
        import vosk
    except ImportError:
        raise AsrError("the vosk package is not installed: run scripts/setup") from None
    vosk.SetLogLevel(-2)
    try:
        return vosk.Model(str(model_dir))
    except Exception:
        raise AsrError(f"the speech model at {model_dir} is broken (Vosk could not load it): "
                       f"download it again with `voicehost models download`") from None
