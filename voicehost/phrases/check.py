"""`check-phrase`: judge one regular day speech as the moderator would."""
from __future__ import annotations

from voicehost.phrases.grammar import Grammar
from voicehost.phrases.listener import ListenerEvent, SpeechListener, StaticContext
from voicehost.phrases.words import Word
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
        nominations=rules.game != "city",  # the city variant's host names the candidates
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
