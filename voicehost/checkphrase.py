"""`check-phrase`: judge one regular day speech as the moderator would."""
from __future__ import annotations

import json
from pathlib import Path

from voicehost.errors import InputError
from voicehost.files import input_file, read_input
from voicehost.game.narration import verdict
from voicehost.game.variants import variant_for
from voicehost.jsonio import loads_strict
from voicehost.jsontypes import JSONOutObject
from voicehost.phrases.grammar import Grammar
from voicehost.phrases.listener import ListenerEvent, Nomination, SpeechListener, StaticContext
from voicehost.phrases.words import Word, words_from_json, words_from_text
from voicehost.rules import RuleOptions


def check_speech(
    words: list[Word],
    grammar: Grammar,
    rules: RuleOptions,
    context: StaticContext,
    limit: float,
) -> list[ListenerEvent]:
    listener = SpeechListener(
        grammar,
        context,
        nominations=variant_for(rules).nominations_by_phrase,  # the city variant's host names the candidates
        pause_limit=rules.nomination_pause,
        pass_silence=rules.pass_silence,
        limit=limit,
        required_fillers=rules.required_fillers,
    )
    events: list[ListenerEvent] = []
    for word in words:
        events += listener.hear(word)
        if listener.ended:
            break
    events += listener.finish()
    return sorted(events, key=lambda e: e.t)


def _words(text: str | None, source: str | None) -> list[Word]:
    """The speech: plain words (`--text`), or recognized words as JSON from a file or stdin."""
    if text is not None:
        return words_from_text(text)
    raw = read_input(source)
    try:
        data = loads_strict(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"input is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise InputError("input is not valid JSON: nested too deep") from None
    except ValueError as exc:  # NaN/Infinity, or an integer of thousands of digits
        raise InputError(f"input is not valid JSON: {' '.join(str(exc).split())[:120]}") from None
    return words_from_json(data)


def check_phrase_lines(
    rules: RuleOptions,
    *,
    source: str | None = None,
    text: str | None = None,
    alive: list[int] | None = None,
    nominated: list[int] | None = None,
    already_nominated: bool = False,
    limit: float | None = None,
    explain: bool = False,
) -> str:
    """The `check-phrase` command (SPEC): one JSON line per event the speech makes."""
    input_file(Path(source) if source not in (None, "-") else None, "")
    from voicehost.phrasebook import load_phrasebook
    from voicehost.phrases.grammar import load_grammar

    words = _words(text, source)
    context = StaticContext(set(alive) if alive is not None else set(range(1, 11)),
                            list(nominated or []), already_nominated)
    seconds = limit if limit is not None else rules.speech_seconds
    events = check_speech(words, load_grammar(rules.grammar), rules, context, seconds)
    out = []
    for event in events:
        line: JSONOutObject = event.to_json()
        if explain and isinstance(event, Nomination) and event.reason:
            line["explain"] = verdict(load_phrasebook(rules.phrasebook), event, rules)
        out.append(json.dumps(line, ensure_ascii=False))
    return "".join(f"{line}\n" for line in out)
