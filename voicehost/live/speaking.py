"""The table's voice: a speaker that survives any failure of one
announcement, and whose playback times are on the game clock, where the
heard words are, so its own voice is recognised as an echo."""
from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from voicehost.audio import AudioError, Clip, Sink
from voicehost.errors import VoicehostError
from voicehost.game import narration
from voicehost.game.keys import Key
from voicehost.game.model import Output, OutputKind
from voicehost.game.moderator import Moderator
from voicehost.game.narration import verdict_values
from voicehost.journal import revision
from voicehost.jsontypes import JSONObject
from voicehost.live.clock import Clock
from voicehost.live.playback import Speaker
from voicehost.live.texts import live_texts
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

    def render_apart(self, texts: list[str], folder: Path) -> bool:
        """The voice's own `render_apart` (Piper's: in a child process), where it has one."""
        apart = getattr(self.voice, "render_apart", None)
        return bool(apart(texts, folder)) if apart is not None else False

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
OPEN_LINES = frozenset({key.value for key in Key if key.open_ended} | {"day_begins"})
OPEN_EXPLANATIONS = frozenset({"pause_too_long", "extra_words"})


def _say(key: str, private: bool = False, **values: object) -> Output:
    return Output(0.0, OutputKind.SAY, key, private, dict(values))


def _answers(game: Moderator) -> list[Output]:
    """What a speaker's words make the table say at once, where the values are
    few: the confirmation, the next floor after "спасибо"/"пас", and (with
    explain_rejections) the finite reasons a nomination is refused."""
    rules, seats = game.rules, range(1, game.max_seat + 1)
    out: list[Output] = []
    if rules.confirm_nominations:
        extra: dict[str, object] = {"phrase": rules.confirmation} if rules.confirmation else {}
        out += [Output(0.0, OutputKind.SAY, Key.ACCEPTED, False, {"seat": seat, **extra}) for seat in seats]
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
    texts += [book.render(o) for key in Key if key.frequent for o in _lines(game, key)]
    texts += [book.render(o) for o in _answers(game)]
    texts += corrections(game)
    texts += host_lines(game)
    said = live_texts(game.rules.phrasebook)
    texts += [said.text("journal_failed_say"), said.text("journal_rewritten_say")]  # said when the disk cannot be
    return list(dict.fromkeys(texts))


def host_lines(game: Moderator) -> list[str]:
    """The host's frequent spoken commands said back (SPEC §7.2), and their
    undos: the clock controls and a foul to each seat, so a confirmation never
    waits for the voice."""
    said = live_texts(game.rules.phrasebook)
    events: list[JSONObject] = [{"type": kind} for kind in ("pause", "resume", "next")]
    events += [{"type": "foul", "seat": seat} for seat in range(1, game.max_seat + 1)]
    return [game.book.render(Output(0.0, OutputKind.SAY, key, False, {"detail": said.input(event)}))
            for key in ("host_said", "undone") for event in events]


def _unsaid(game: Moderator) -> frozenset[Key]:
    """The prerenderable lines this table never says: the other silence rule's
    line, and the card lines of another variant."""
    silenced = Key.SILENCED_SPEAKS if game.rules.silence == Silence.SKIP else Key.SILENCED_SKIPS
    return frozenset({silenced} | {key for key in Key if "card" in key.values and key not in game.variant.card_lines})


def _lines(game: Moderator, key: Key) -> list[Output]:
    """Every line of a prerenderable key at this table: each of its values over
    its few possibilities (seats, counts, the phrasebook's cards, the rules'
    silenced-speech lengths)."""
    seats = range(1, game.max_seat + 1)
    possible: dict[str, Iterable[object]] = {
        "seat": seats, "count": key.counts(game.max_seat), "card": list(game.book.cards),
        "seconds": sorted({game.rules.silenced_speech_seconds, game.rules.silenced_speech_seconds_few})}
    names = sorted(key.values)
    return [Output(0.0, OutputKind.SAY, key, False, dict(zip(names, combo, strict=True)))
            for combo in itertools.product(*(possible[name] for name in names))]


def _rare(game: Moderator) -> list[Output]:
    unsaid = _unsaid(game)
    return [line for key in Key if key.prerenderable and not key.frequent and key not in unsaid
            for line in _lines(game, key)]


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
