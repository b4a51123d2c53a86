"""Floors: a player's turn to speak (a day speech, a tie speech, a last word),
its timers, and what the speech listener heard in it.

Every function here decides and returns effects (game/effects.py); the
floors' own slice of the state (the open floor, its listener, the queue, the
day's speakers and nominations) it keeps itself."""
from __future__ import annotations

from voicehost.game.effects import (
    AskLift,
    ClearTimers,
    Context,
    Effects,
    Enter,
    Explain,
    Nightfall,
    SetDeadline,
    SetTimer,
    StartRound,
    StartVote,
    Suggest,
    say,
)
from voicehost.game.keys import Key
from voicehost.game.model import Floor, FloorKind, Phase, Then, Timer
from voicehost.game.narration import FLOOR_INTRO
from voicehost.game.records import NominationRecord
from voicehost.phrases.listener import (
    ForbiddenWord,
    HostQuestion,
    ListenerEvent,
    Nomination,
    Reason,
    SpeechEnd,
    SpeechListener,
)
from voicehost.rules import Silence

FLOOR_PHASES = {FloorKind.SPEECH: Phase.SPEECH, FloorKind.TIE: Phase.TIE_SPEECH,
                FloorKind.LAST_WORD: Phase.LAST_WORD}


class FloorContext:
    """Answers the listener's question about a nomination from the game (read only)."""

    def __init__(self, game: Context, seat: int) -> None:
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


def record_nomination(game: Context, seat: int, target: int) -> None:
    """An accepted nomination goes on today's list and into the protocol."""
    state = game.state
    state.day.nominators.add(seat)
    state.day.today.append(target)
    state.record.nominations.append(NominationRecord(state.seats.day, seat, target))


# ------------------------------------------------------------------ the day

def start_speeches(game: Context) -> Effects:
    order = game.speaking_order()
    day = game.state.day
    day.speakers, day.opener = order, order[0]
    return next_speech(game)


def next_speech(game: Context) -> Effects:
    day, alive = game.state.day, game.state.seats.alive
    effects: Effects = []
    while day.speakers:
        seat = day.speakers.pop(0)
        if seat not in alive:
            continue
        seconds, said = speech_seconds(game, seat)
        effects += said
        game.state.record.silenced.discard(seat)  # a silence lasts one speech
        if seconds:
            return effects + open_floor(game, seat, FloorKind.SPEECH, seconds)
    return [*effects, StartVote()]


def speech_seconds(game: Context, seat: int) -> tuple[float, Effects]:
    """60 s, or what a silenced player gets (3.4; FIIM 9.6.1), with what is said of it."""
    rules, silenced = game.rules, game.state.record.silenced
    if seat not in silenced:
        return rules.speech_seconds, []
    few = len(game.state.seats.alive)
    if rules.silence == Silence.SKIP:
        if few <= 3:
            return rules.speech_seconds, []
        return 0.0, [say(Key.SILENCED_SKIPS, seat=seat)]
    seconds = rules.silenced_speech_seconds_few if few <= 4 else rules.silenced_speech_seconds
    return seconds, [say(Key.SILENCED_SPEAKS, seat=seat, seconds=seconds)]


# ---------------------------------------------------------------- a floor

def open_floor(game: Context, seat: int, kind: FloorKind, seconds: float) -> Effects:
    floors, now, rules = game.state.floors, game.state.clock.base, game.rules
    floors.count += 1
    floor = Floor(floors.count, seat, kind, now, now + seconds,
                  nominations=kind is FloorKind.SPEECH and game.nominations_by_phrase)
    floors.floor = floor
    floors.listener = SpeechListener(
        game.grammar,
        FloorContext(game, seat),
        nominations=floor.nominations,
        pause_limit=rules.nomination_pause,
        pass_silence=rules.pass_silence,
        required_fillers=rules.required_fillers,
    )
    effects: Effects = [Enter(FLOOR_PHASES[kind]), say(FLOOR_INTRO[kind], seat=seat)]
    warning = rules.warning_seconds
    if warning > 0 and seconds > warning:
        effects.append(SetDeadline(Timer.FLOOR_WARN, floor.end - warning))
    effects.append(SetTimer(Timer.FLOOR_END, seconds))
    return effects


def queue_floors(game: Context, seats: tuple[int, ...], kind: FloorKind, then: Then) -> Effects:
    game.state.floors.queue = [(seat, kind) for seat in seats]
    game.state.floors.then = then
    return next_queued_floor(game)


def next_queued_floor(game: Context) -> Effects:
    floors = game.state.floors
    while floors.queue:
        seat, kind = floors.queue.pop(0)
        if kind is FloorKind.TIE and seat not in game.state.seats.alive:
            continue
        seconds = (game.rules.tie_speech_seconds if kind is FloorKind.TIE
                   else game.rules.last_word_seconds)
        return open_floor(game, seat, kind, seconds)
    then, floors.then = floors.then, Then.NOTHING
    if then is Then.SPEECHES:
        return start_speeches(game)
    if then is Then.NIGHT:
        return [Nightfall()]
    if then is Then.REVOTE:
        return [StartRound(tuple(game.state.day.tied or []))]
    return [AskLift()]


def close_floor(game: Context) -> Effects:
    floors = game.state.floors
    floor = floors.floor
    if floor is None:
        return []
    floors.floor, floors.listener = None, None
    effects: Effects = [ClearTimers()]
    if floor.kind is FloorKind.SPEECH:
        return effects + next_speech(game)
    return effects + next_queued_floor(game)


# ------------------------------------------------------------- the words

def listener_events(game: Context, events: list[ListenerEvent]) -> Effects:
    """What the listener heard, decided. Its accepted nominations are on
    record before anything of the batch is told (a question to the host in
    the same words counts them)."""
    floor = game.state.floors.floor
    for event in events:
        if isinstance(event, Nomination) and event.accepted and floor is not None:
            record_nomination(game, floor.seat, event.target)
    effects: Effects = []
    for event in events:
        if isinstance(event, Nomination):
            effects += nomination(game, event)
        elif isinstance(event, HostQuestion):
            nominees = [s for s in game.state.day.today if s in game.state.seats.alive]
            if nominees:
                effects.append(say(Key.HOST_ANSWER, t=event.t, seats=nominees))
            else:
                effects.append(say(Key.HOST_ANSWER_NONE, t=event.t))
        elif isinstance(event, ForbiddenWord):
            floor = game.state.floors.floor
            effects.append(Suggest(event.t, event.word, event.clause,
                                   floor.seat if floor else 0, event.suggest))
        elif isinstance(event, SpeechEnd):
            game.state.clock.timers.pop(Timer.PASS, None)
            effects += close_floor(game)
    return effects


def nominated_by_hand(game: Context) -> FloorContext | None:
    """The open regular speech's context, where the host may nominate for its speaker."""
    floor = game.state.floors.floor
    return FloorContext(game, floor.seat) if floor is not None and floor.nominations else None


def host_nomination(game: Context, target: int) -> Effects:
    """The host entered the speaker's nomination (admission judged it as the listener would)."""
    floor = game.state.floors.floor
    assert floor is not None and floor.nominations
    record_nomination(game, floor.seat, target)
    return nomination(game, Nomination(target, True, game.state.clock.now))


def nomination(game: Context, event: Nomination) -> Effects:
    rules = game.rules
    if event.accepted:
        if rules.confirm_nominations:
            if rules.confirmation:  # the club's own phrase
                return [say(Key.ACCEPTED, t=event.t, seat=event.target, phrase=rules.confirmation)]
            return [say(Key.ACCEPTED, t=event.t, seat=event.target)]
        return []
    if rules.explain_rejections:
        return [Explain(event)]
    return []
