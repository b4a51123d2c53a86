"""Recognition: Vosk from a local model folder, 16 kHz mono, with word times.

Vosk's word times count from the start of the stream a recognizer was fed;
the live loop adds the game-clock time of that start. Along its jobs:

- `committer`: the partial committer, pure (partials and final results ->
  words and `Revision`s, numbers decided by value), and the `Recognizer`
  protocol the table listens through;
- `choice`: which recognizer the table gets (`choose_listening`, the one place
  that decides grammar vs open), the grammar's phrase list and fillers;
- `vosk`: the Vosk adapter (`VoskRecognizer`) and both recognizers together
  (`CaptionedRecognizer`);
- `model_files`: whether a folder is a model, its low-latency view, loading it.

Callers import from `voicehost.asr`; the names below are the package's API."""
from __future__ import annotations

from voicehost.asr.choice import (
    CAPTION_CHOICES,
    FILLER_COUNT,
    MODES,
    TRIGGER_WEIGHT,
    Captions,
    Listening,
    available_mb,
    choose_captions,
    choose_listening,
    filler_split,
    grammar_fillers,
    grammar_phrases,
    overheard_words,
    unheard_rule_words,
    usable_cores,
)
from voicehost.asr.committer import (
    FOUR_MAFIA,
    MARGIN,
    OTHER,
    PARTIAL_LAG,
    TRIGGER,
    WRONG_FORM,
    Meaning,
    PartialCommitter,
    Recognizer,
    Revision,
    SpeechLimits,
    exact_text,
    new_words,
    plain_words,
    rule_meaning,
)
from voicehost.asr.model_files import (
    ENDPOINT_RULE2,
    LOW_LATENCY,
    AsrError,
    SpeechModel,
    load_model,
    low_latency_options,
    low_latency_view,
    model_knows,
    model_problem,
)
from voicehost.asr.vosk import CAPTION_WORDS, CATCH_UP, CaptionedRecognizer, VoskRecognizer, malloc_trim

__all__ = [
    "CAPTION_CHOICES", "CAPTION_WORDS", "CATCH_UP", "ENDPOINT_RULE2", "FILLER_COUNT", "FOUR_MAFIA", "LOW_LATENCY",
    "MARGIN", "MODES", "OTHER", "PARTIAL_LAG", "TRIGGER", "TRIGGER_WEIGHT", "WRONG_FORM", "AsrError",
    "CaptionedRecognizer", "Captions", "Listening", "Meaning", "PartialCommitter", "Recognizer", "Revision",
    "SpeechModel",
    "SpeechLimits", "VoskRecognizer", "available_mb", "choose_captions", "choose_listening", "exact_text",
    "filler_split", "grammar_fillers", "grammar_phrases", "load_model", "low_latency_options", "low_latency_view",
    "malloc_trim", "model_knows", "model_problem", "new_words", "overheard_words", "plain_words", "rule_meaning",
    "unheard_rule_words", "usable_cores",
]
