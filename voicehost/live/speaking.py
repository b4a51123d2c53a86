"""The table's voice: a speaker that survives any failure of one
announcement, and whose playback times are on the game clock, where the
heard words are, so its own voice is recognised as an echo."""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from voicehost.audio import AudioError, Clip, Sink
from voicehost.errors import VoicehostError
from voicehost.game import narration
from voicehost.game.keys import OPEN_VALUES, VALUES, Key
from voicehost.game.model import Output, OutputKind
from voicehost.game.moderator import Moderator
from voicehost.journal import revision
from voicehost.live.clock import Clock
from voicehost.live.playback import Speaker
from voicehost.live.texts import live_texts
from voicehost.phrasebook import verdict_values
from voicehost.phrases.listener import Nomination, Reason
from voicehost.rules import Silence
from voicehost.tts import Voice, VoiceError

log = logging.getLogger(__name__)


class SupervisedVoice:
    """A voice whose every failure is a VoiceError: the speaker logs it, skips
    that announcement and speaks the rest of the game."""

    def __init__(self, voice: Voice) -> None:
        self.voice = voice
        self.name = voice.name

    def synthesize(self, text: str) -> Iterator[Clip]:
        try:
            for clip in self.voice.synthesize(text):
                if not isinstance(clip, Clip):  # the speaker would trip over it on its own thread
                    raise VoiceError(f"the voice {self.name} gave {type(clip).__name__}, not audio")
                yield clip
        except VoicehostError:
            raise
        except Exception as exc:
            log.exception("the voice failed on %r", text)
            raise VoiceError(f"the voice {self.name} failed ({type(exc).__name__}: {exc})") from exc


class SupervisedSink:
    """A sound device whose every failure is an AudioError, as for the voice."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink

    def play(self, clip: Clip) -> None:
        try:
            self.sink.play(clip)
        except VoicehostError:
            raise
        except Exception as exc:
            log.exception("the sound device failed")
            raise AudioError(f"the sound device failed ({type(exc).__name__}: {exc})") from exc

    def close(self) -> None:
        try:
            self.sink.close()
        except Exception:  # closing at the end must not hide the game's result
            log.exception("the sound device failed to close")


def supervised_speaker(voice: Voice, table: Sink, earpiece: Sink | None, clock: Clock, *, lag: float = 0.0,
                       tail: float = 0.3, realtime: bool = True) -> Speaker:
    """A speaker on the game clock: heard words carry game time (the wall
    clock less `lag`), so playback is timed on the same clock."""
    return Speaker(SupervisedVoice(voice), SupervisedSink(table),
                   SupervisedSink(earpiece) if earpiece is not None else None,
                   lambda: clock.now() - lag, tail=tail, realtime=realtime)


# Keys whose values are open-ended (lists of seats, a pause in seconds, any
# word): their lines are synthesized when said. Every other line the table can
# say is rendered at start-up (`fixed_phrases`, `rare_phrases`).
OPEN_LINES = frozenset({key.value for key in Key if VALUES[key] & OPEN_VALUES} | {"day_begins"})
OPEN_EXPLANATIONS = frozenset({"pause_too_long", "extra_words"})


def _say(key: str, private: bool = False, **values: Any) -> Output:
    return Output(0.0, OutputKind.SAY, key, private, dict(values))


def _answers(game: Moderator) -> list[Output]:
    """What a speaker's words make the table say at once, where the values are
    few: the confirmation, the next floor after "спасибо"/"пас", and (with
    explain_rejections) the finite reasons a nomination is refused."""
    rules, seats = game.rules, range(1, game.max_seat + 1)
    out: list[Output] = []
    if rules.confirm_nominations:
        extra: dict[str, Any] = {"phrase": rules.confirmation} if rules.confirmation else {}
        out += [_say("accepted", seat=seat, **extra) for seat in seats]
    out += [_say(key, seat=seat) for key in narration.FLOOR_INTRO.values() for seat in seats]
    if rules.explain_rejections:
        refused = [Nomination(seat, False, 0.0, reason) for reason in (Reason.NOT_ALIVE, Reason.ALREADY_NOMINATED)
                   for seat in seats]
        refused.append(Nomination(1, False, 0.0, Reason.SECOND_NOMINATION))
        refused += [Nomination(1, False, 0.0, Reason.WRONG_FORM, form) for form in sorted(game.grammar.wrong_forms)]
        if rules.required_fillers:
            refused.append(Nomination(1, False, 0.0, Reason.WRONG_FORM))
        for event in refused:
            key, values = verdict_values(event, rules)
            out.append(Output(0.0, OutputKind.SAY, event.reason or "", False, {"explain": key, **values}))
    return out


def corrections(game: Moderator) -> list[str]:
    """The corrections a revision can say about those answers, built as the
    table builds them (voicehost.journal.revision.correction): each answer made by the
    final result, and each confirmation it takes back."""
    texts = []
    for answer in _answers(game):
        made = revision.correction(game, [], [answer], 0.0)
        gone = revision.correction(game, [answer], [], 0.0)
        texts += [game.book.render(o) for o in made + gone]
    return texts


def fixed_phrases(game: Moderator) -> list[str]:
    """The frequent announcements and the answers to a speaker's words (and
    their corrections): rendered at start-up and kept in memory."""
    book = game.book
    texts = [text for key, text in book.say.items() if "{" not in text and not key.startswith("export_")]
    seats = range(1, game.max_seat + 1)
    for key in ("vote_question", "leaves", "killed", "number"):
        texts += [book.text(key, seat=seat) for seat in seats]
    texts += [book.render(o) for o in _answers(game)]
    texts += corrections(game)
    said = live_texts(game.rules.phrasebook)
    texts += [said.text("journal_failed_say"), said.text("journal_rewritten_say")]  # said when the disk cannot be
    return list(dict.fromkeys(texts))


def _rare(game: Moderator) -> list[Output]:
    rules, seats = game.rules, range(1, game.max_seat + 1)
    counts = range(game.max_seat + 1)
    out = [_say("foul", seat=seat, count=count) for seat in seats for count in (1, 2)]
    out += [_say("unfoul", seat=seat, count=count) for seat in seats for count in range(4)]
    out += [_say("vote_count", seat=seat, count=count) for seat in seats for count in counts]
    out += [_say("lift_count", count=count) for count in counts]
    out += [_say(key, count=count) for key in ("protest_changed", "protest_annulled", "protest_replayed",
                                                "protest_failed") for count in counts]
    if rules.silence == Silence.SKIP:
        out += [_say("silenced_skips", seat=seat) for seat in seats]
    else:
        out += [_say("silenced_speaks", seat=seat, seconds=seconds) for seat in seats
                for seconds in sorted({rules.silenced_speech_seconds, rules.silenced_speech_seconds_few})]
    for key in ("third_foul", "removed_fouls", "disqualified", "left_table", "single_day_one", "single_nominee",
                "best_player", "worst_player"):
        out += [_say(key, seat=seat) for seat in seats]
    for key in ("don_yes", "don_no", "sheriff_black", "sheriff_red"):
        out += [_say(key, True, seat=seat) for seat in seats]
    roles = list(game.book.cards)   # a card line names the role's key; the phrasebook reads its card
    out += [_say(key, key == "commissar_answer", seat=seat, card=role)
            for key in game.variant.card_lines for seat in seats for role in roles]
    return out


def rare_phrases(game: Moderator) -> list[str]:
    """Every other line the table can say whose values are few (a foul, a vote
    count, a removal, a night answer): rendered the first time it is said and
    kept on disk, so after an evening or two no line but the open-ended ones
    (`OPEN_LINES`) needs the voice during a game."""
    texts = [game.book.render(o) for o in _rare(game)]
    hot = set(fixed_phrases(game))
    return [text for text in dict.fromkeys(texts) if text not in hot]


def prerender(speaker: Speaker, game: Moderator, folder: Path, tell: Callable[[int], None] | None = None) -> None:
    """Every line with few values, rendered once per voice into `folder`:
    the frequent ones and the answers to words at start-up, kept in memory;
    the rare ones the first time they are said, read from disk from then on.
    `tell` hears how many must be synthesized now (only the first start with
    a voice takes long)."""
    hot, rare = fixed_phrases(game), rare_phrases(game)
    try:
        missing = speaker.uncached(hot, folder)
        if missing and tell is not None:
            tell(missing)
        speaker.prerender(hot, folder)
        speaker.render_when_said(rare, folder)
    except VoicehostError as exc:
        log.warning("could not prerender the fixed announcements: %s", exc)
