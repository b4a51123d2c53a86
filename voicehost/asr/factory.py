"""The recognizer a table listens with, built from the settings: the model
loaded once, grammar or open listening as `[asr] mode` picks it, the
captions recognizer beside it when `[asr] captions` allows, warmed up."""
from __future__ import annotations

import logging

from voicehost.asr.choice import (
    TRIGGER_WEIGHT,
    available_mb,
    choose_captions,
    choose_listening,
    grammar_fillers,
    grammar_phrases,
    overheard_words,
    unheard_rule_words,
    usable_cores,
)
from voicehost.asr.committer import FOUR_MAFIA, Meaning, SpeechLimits, exact_text, rule_meaning
from voicehost.asr.model_files import AsrError, SpeechModel, load_model, model_knows, model_problem
from voicehost.asr.vosk import CaptionedRecognizer, VoskRecognizer
from voicehost.config import AsrSettings, Config
from voicehost.phrases.grammar import load_grammar
from voicehost.rules import RuleOptions

log = logging.getLogger(__name__)


def recognizer_for(config: Config, rules: RuleOptions) -> tuple[VoskRecognizer | CaptionedRecognizer, list[str]]:
    """The recognizer a table listens with: the model loaded once, the
    recognizer `[asr] mode` picks, warmed up; and the rule words of the
    grammar the model can never hear (for the host to be told)."""
    model_dir = config.model_dir(rules.language)
    problem = model_problem(model_dir)
    if problem:
        raise AsrError(f"{problem}: get it with `voicehost models download`, or play from the keyboard "
                       f"with `voicehost run --text`")
    model = load_model(model_dir, low_latency_cache=config.path("models/.low-latency")
                       if config.asr.low_latency else None, endpoint_seconds=config.asr.endpoint_ms / 1000)
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
    return recognizer, missing


def listening_recognizer(model: SpeechModel, settings: AsrSettings, phrases: list[str],
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


__all__ = ["listening_recognizer", "recognizer_for"]
