"""Audio in: a live microphone and a recorded game, both through the one
input pipeline (live/pipeline.py), and the host
inputs that go with a recording."""
from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from voicehost.asr import (
    FOUR_MAFIA,
    TRIGGER_WEIGHT,
    AsrError,
    CaptionedRecognizer,
    Meaning,
    Recognizer,
    SpeechLimits,
    VoskRecognizer,
    available_mb,
    choose_captions,
    choose_listening,
    exact_text,
    grammar_fillers,
    grammar_phrases,
    load_model,
    model_knows,
    model_problem,
    overheard_words,
    rule_meaning,
    unheard_rule_words,
    usable_cores,
)
from voicehost.audio import Clip, Source
from voicehost.config import AsrSettings, Config
from voicehost.errors import InputError, VoicehostError
from voicehost.game.events import Event, parse_event
from voicehost.live.clock import AudioClock, GameClock
from voicehost.live.pipeline import Timing, hear_audio
from voicehost.live.table import LiveTable
from voicehost.live.texts import live_texts
from voicehost.rules import RuleOptions

log = logging.getLogger(__name__)


class HostScript:
    """Host inputs for a recorded game (tallies, shots, fouls), each applied
    as soon as the game reaches a point where it fits, as in simulate."""

    def __init__(self, path: Path | None, size: int) -> None:
        self.events: list[Event] = []
        if path is None:
            return
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{path}: the host script is not UTF-8 text") from None
        except OSError as exc:
            raise InputError(f"cannot read the host script {path}: {exc.strerror or exc}") from None
        for number, line in enumerate(text.split("\n"), 1):
            if line.strip():
                try:
                    self.events.append(parse_event(json.loads(line), size))
                except (ValueError, RecursionError, VoicehostError) as exc:
                    raise InputError(f"{path}:{number}: {' '.join(str(exc).split())}") from None

    def feed(self, live: LiveTable) -> None:
        while self.events and live.game.fits(self.events[0]):
            live.apply(self.events.pop(0))


async def listen(live: LiveTable, source: Source, recognizer: Recognizer, clock: GameClock,
                 stopped: Callable[[], bool]) -> None:
    """A live game's microphone through the input pipeline until `stopped()`. A
    word's game time is its wall-clock time less the listening lag, the clock
    the speaker times its playback on (the echo guard). The recognizer is the
    caller's: an evening's games listen with one, its stream time running on
    from game to game."""
    started = time.monotonic()
    base = recognizer.audio_time  # the stream time this game's audio starts at

    def offset() -> float:  # the deal restarts the clock: read afresh
        return clock.at(started) - live.lag - base

    show_captions(live, recognizer, offset)
    try:
        await hear_audio(live, source.chunks(), recognizer, Timing(offset, more=lambda: not stopped(), lenient=True))
    except VoicehostError as exc:
        log.error("the microphone stopped: %s", exc)


def show_captions(live: LiveTable, recognizer: Recognizer, offset: Callable[[], float]) -> None:
    """The page's captions from a captions recognizer's words, shifted into
    game time by `offset()`; None once they failed (the page then shows the rule words)."""
    if isinstance(recognizer, CaptionedRecognizer):
        live.open_captions = lambda: [w.shifted(offset()) for w in recognizer.captions] \
            if recognizer.captioning else None


def close_recognizer(recognizer: Recognizer) -> None:
    """Free the recognizer and give its memory back to the system (malloc_trim)."""
    close = getattr(recognizer, "close", None)
    if close is not None:
        close()


async def play_recording(live: LiveTable, source: Source, recognizer: Recognizer, host: HostScript,
                         clock: AudioClock) -> None:
    """A recorded game through the same pipeline: the audio drives the clock,
    faster than real time; the host's inputs are applied as the game reaches them."""
    offset = live.game_now() - recognizer.audio_time
    if isinstance(recognizer, CaptionedRecognizer):
        recognizer.catch_up = None   # faster than real time: the journal must not depend on the machine's speed
    show_captions(live, recognizer, lambda: offset)
    host.feed(live)

    def more() -> bool:
        live.tick()
        host.feed(live)
        return not (live.over or live.failure is not None)

    await hear_audio(live, source.chunks(), recognizer, Timing(lambda: offset, clock.skip_to, more))
    live.tick()
    close_recognizer(recognizer)


def recognizer_for(config: Config, rules: RuleOptions, out: TextIO) -> VoskRecognizer | CaptionedRecognizer:
    """The recognizer `run` and `train` listen with: the model loaded once,
    the recognizer `[asr] mode` picks, warmed up; the host is told which rule
    words the model can never hear."""
    model_dir = config.model_dir(rules.language)
    problem = model_problem(model_dir)
    if problem:
        raise AsrError(f"{problem}: get it with `voicehost models download`, or play from the keyboard "
                       f"with `voicehost run --text`")
    model = load_model(model_dir, low_latency_cache=config.path("models/.low-latency")
                       if config.asr.low_latency else None, endpoint_seconds=config.asr.endpoint_ms / 1000)
    from voicehost.phrases.grammar import load_grammar

    grammar = load_grammar(rules.grammar)
    phrases = grammar_phrases(grammar)
    # which words wait for the final result's exact times: this table's limits, not 4mafia's
    limits = SpeechLimits(rules.nomination_pause, rules.pass_silence, frozenset(grammar.passes))
    fillers: tuple[list[str], list[str]] = ([], [])
    if config.asr.mode != "open" and not model_knows(model, "[unk]"):
        fillers = grammar_fillers(model_dir, grammar, phrases)
        log.info("the speech model has no [unk]: %d of its frequent words are fillers heard as [unk], %d more "
                 "are forms the rules react to", len(fillers[0]), len(fillers[1]))
    decider = listening_recognizer(model, config.asr, phrases, limits, rule_meaning(grammar), *fillers,
                                   weights={grammar.trigger: TRIGGER_WEIGHT})
    recognizer: VoskRecognizer | CaptionedRecognizer = decider
    if decider.phrases is not None:  # an open recognizer hears every word already
        captions = choose_captions(config.asr.captions, available_mb(), usable_cores())
        log.info("%s: %s", "an open recognizer beside the grammar one hears every word for the captions and "
                 "the forms of forbidden words the grammar cannot list" if captions.on else
                 "no captions recognizer: the page's captions show the rule words", captions.why)
        if captions.on:
            recognizer = CaptionedRecognizer(
                decider, VoskRecognizer(model, stable_seconds=config.asr.stable_ms / 1000, limits=limits),
                overheard=overheard_words(grammar, decider.phrases))
    recognizer.warm_up()  # the first utterance is not the one that pays for the decoder's start-up
    missing = unheard_rule_words(grammar, recognizer.knows)
    if missing:
        log.info("the speech model %s lacks %d of the %d rule words of the grammar %s: %s", model_dir,
                    len(missing), len(phrases), rules.grammar, " ".join(missing))
        words = ", ".join(missing[:12]) + (" …" if len(missing) > 12 else "")
        out.write(live_texts(rules.phrasebook).text("model_missing_words", count=len(missing), words=words) + "\n")
    return recognizer


def listening_recognizer(model: Any, settings: AsrSettings, phrases: list[str],
                         limits: SpeechLimits = FOUR_MAFIA, meaning: Meaning = exact_text,
                         fillers: list[str] | None = None, heard: list[str] | None = None,
                         weights: dict[str, int] | None = None) -> VoskRecognizer:
    """A recognizer over a loaded model as `[asr] mode` picks it (`choose_listening`), said in the log;
    its partial words are judged by `meaning` (`rule_meaning` of the table's grammar). A grammar
    also takes the model's `fillers` (heard as [unk]) and `heard` words (`grammar_fillers`), and
    counts its phrases by `weights` (the trigger: `TRIGGER_WEIGHT`)."""
    fillers = fillers or []
    choice = choose_listening(settings.mode, lambda word: model_knows(model, word), len(fillers))
    log.info("listening with %s: %s", choice.name, choice.why)
    return VoskRecognizer(model, phrases=phrases + list(heard or []) if choice.grammar else None,
                          stable_seconds=settings.stable_ms / 1000, limits=limits,
                          meaning=meaning, fillers=fillers if choice.grammar else (), weights=weights)


def chunks_of(clip: Clip, seconds: float = 0.1) -> Iterator[bytes]:
    step = int(clip.rate * seconds) * 2
    for i in range(0, len(clip.pcm), step):
        yield clip.pcm[i:i + step]
