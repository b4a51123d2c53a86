"""Floors: a player's turn to speak (a day speech, a tie speech, a last word),
its timers, and the speech listener that hears it."""
from __future__ import annotations

from typing import TYPE_CHECKING

from voicehost.game import narration
from voicehost.game.events import Speech
from voicehost.game.model import Floor, FloorKind, Phase
from voicehost.phrases.listener import (
    ForbiddenWord,
    HostQuestion,
    ListenerEvent,
    Nomination,
    Reason,
    SpeechEnd,
    SpeechListener,
)
from voicehost.phrases.words import Word

if TYPE_CHECKING:
    from voicehost.game.moderator import Moderator

FLOOR_PHASES = {FloorKind.SPEECH: Phase.SPEECH, FloorKind.TIE: Phase.TIE_SPEECH,
                FloorKind.LAST_WORD: Phase.LAST_WORD}


class FloorContext:
    """Answers the listener's questions about a nomination from the game."""

    def __init__(self, game: Moderator, seat: int) -> None:
        self.game, self.seat = game, seat

    def judge(self, target: int) -> str | None:
        day = self.game.state.day
        if self.seat in day.nominators:
            return Reason.SECOND_NOMINATION
        if target not in self.game.state.seats.alive:
            return Reason.NOT_ALIVE
        if target in day.today:
            return Reason.ALREADY_NOMINATED
        return None

    def accept(self, target: int) -> None:
        state = self.game.state
        state.day.nominators.add(self.seat)
        state.day.today.append(target)
        state.record.nominations.append({"day": state.seats.day, "by": self.seat, "target": target})


# ------------------------------------------------------------------ the day

def start_speeches(game: Moderator) -> None:
    game.state.day.speakers = game.variant.speaking_order(game)
    next_speech(game)


def next_speech(game: Moderator) -> None:
    day, alive = game.state.day, game.state.seats.alive
    while day.speakers:
        seat = day.speakers.pop(0)
        if seat not in alive:
            continue
        seconds = speech_seconds(game, seat)
        if seconds:
            open_floor(game, seat, FloorKind.SPEECH, seconds)
            return
    game.variant.start_vote(game)


def speech_seconds(game: Moderator, seat: int) -> float:
    """60 s, or what a silenced player gets (3.4; FIIM 9.6.1)."""
    rules, silenced = game.rules, game.state.record.silenced
    if seat not in silenced:
        return rules.speech_seconds
    silenced.discard(seat)
    few = len(game.state.seats.alive)
    if rules.silence == "skip":
        if few <= 3:
            return rules.speech_seconds
        game.say("silenced_skips", seat=seat)
        return 0.0
    seconds = rules.silenced_speech_seconds_few if few <= 4 else rules.silenced_speech_seconds
    game.say("silenced_speaks", seat=seat, seconds=seconds)
    return seconds


# ---------------------------------------------------------------- a floor

def open_floor(game: Moderator, seat: int, kind: FloorKind, seconds: float) -> None:
    game.enter(FLOOR_PHASES[kind])
    floors, now, rules = game.state.floors, game.state.clock.base, game.rules
    floors.count += 1
    floor = Floor(floors.count, seat, kind, now, now + seconds,
                  nominations=kind is FloorKind.SPEECH and game.variant.nominations_by_phrase)
    floors.floor = floor
    floors.listener = SpeechListener(
        game.grammar,
        FloorContext(game, seat),
        nominations=floor.nominations,
        pause_limit=rules.nomination_pause,
        pass_silence=rules.pass_silence,
        required_fillers=rules.required_fillers,
    )
    game.say(narration.FLOOR_INTRO[kind], seat=seat)
    warning = rules.warning_seconds
    timers = game.state.clock.timers
    if warning > 0 and seconds > warning:
        timers["floor_warn"] = floor.end - warning
    timers["floor_end"] = floor.end


def queue_floors(game: Moderator, seats: list[int], kind: FloorKind, then: str) -> None:
    game.state.floors.queue = [(seat, kind) for seat in seats]
    game.state.floors.then = then
    next_queued_floor(game)


def next_queued_floor(game: Moderator) -> None:
    floors = game.state.floors
    while floors.queue:
        seat, kind = floors.queue.pop(0)
        if kind is FloorKind.TIE and seat not in game.state.seats.alive:
            continue
        seconds = (game.rules.tie_speech_seconds if kind is FloorKind.TIE
                   else game.rules.last_word_seconds)
        open_floor(game, seat, kind, seconds)
        return
    from voicehost.game import voting

    then, floors.then = floors.then, ""
    if then == "speeches":
        start_speeches(game)
    elif then == "night":
        game.variant.nightfall(game)
    elif then == "revote":
        voting.start_round(game, game.state.day.tied or [])
    else:
        voting.ask_lift(game)


def close_floor(game: Moderator) -> None:
    floors = game.state.floors
    floor = floors.floor
    if floor is None:
        return
    floors.floor, floors.listener = None, None
    game.state.clock.timers.clear()
    if floor.kind is FloorKind.SPEECH:
        next_speech(game)
    else:
        next_queued_floor(game)


# ------------------------------------------------------------- the words

def speech(game: Moderator, event: Speech) -> None:
    """A whole floor's words: each is heard when it starts, until the floor closes."""
    floor = game.state.floors.floor
    assert floor is not None
    floor.heard = True
    for word in event.words:
        heard = word.shifted(floor.start)
        if game.state.floors.floor is not floor or heard.start >= floor.end:
            break
        game._advance(heard.start)
        if game.state.floors.floor is not floor:
            break
        hear(game, heard)


def hear(game: Moderator, word: Word) -> None:
    floors, clock = game.state.floors, game.state.clock
    if floors.listener is None or clock.paused_at is not None:
        return
    events = floors.listener.hear(word)
    clock.now = max(clock.now, word.end)
    listener_events(game, events)
    if floors.listener is None:
        return
    deadline = floors.listener.pass_deadline
    if deadline is None:
        clock.timers.pop("pass", None)
    else:
        clock.timers["pass"] = deadline


def listener_events(game: Moderator, events: list[ListenerEvent]) -> None:
    for event in events:
        if isinstance(event, Nomination):
            nomination(game, event)
        elif isinstance(event, HostQuestion):
            nominees = [s for s in game.state.day.today if s in game.state.seats.alive]
            if nominees:
                game.say("host_answer", t=event.t, seats=nominees)
            else:
                game.say("host_answer_none", t=event.t)
        elif isinstance(event, ForbiddenWord):
            floor = game.state.floors.floor
            narration.suggest(game, event.t, event.word, event.clause,
                              floor.seat if floor else 0, event.suggest)
        elif isinstance(event, SpeechEnd):
            game.state.clock.timers.pop("pass", None)
            close_floor(game)


def nominated_by_hand(game: Moderator) -> FloorContext | None:
    """The open regular speech's context, where the host may nominate for its speaker."""
    floor = game.state.floors.floor
    return FloorContext(game, floor.seat) if floor is not None and floor.nominations else None


def host_nomination(game: Moderator, target: int) -> None:
    """The host entered the speaker's nomination (admission judged it as the listener would)."""
    context = nominated_by_hand(game)
    assert context is not None
    context.accept(target)
    nomination(game, Nomination(target, True, game.state.clock.now))


def nomination(game: Moderator, event: Nomination) -> None:
    rules = game.rules
    if event.accepted:
        if rules.confirm_nominations:
            if rules.confirmation:  # the club's own phrase
                game.say("accepted", t=event.t, seat=event.target, phrase=rules.confirmation)
            else:
                game.say("accepted", t=event.t, seat=event.target)
        return
    if rules.explain_rejections:
        narration.explain(game, event)
