"""The night and the morning: the first night's meetings, the hunt with its
number calls, the don's and sheriff's checks, and the dawn that tells the
night's result (2.1, 2.4). The morning is every variant's; the rest is the
sports night, which the city variant replaces with its own sequence.

Each function returns what it decided (game/effects.py); the night's slice
of the state (and the day counters the morning turns) it keeps itself."""
from __future__ import annotations

from voicehost.game.effects import (
    CheckWin,
    Context,
    Dawn,
    Effects,
    Enter,
    Finish,
    FirstKilled,
    QueueFloors,
    Remove,
    SetTimer,
    StartSpeeches,
    say,
)
from voicehost.game.keys import Key
from voicehost.game.model import Cause, FloorKind, Phase, Role, Team, Then, Timer, Winner
from voicehost.game.records import CheckRecord
from voicehost.rules import QuietRounds


def morning(game: Context) -> Effects:
    seats, day = game.state.seats, game.state.day
    seats.day += 1
    day.today, day.nominators = [], set()
    day.vote_resolved, day.lift_only = False, False
    day.tied, day.vote_round = None, 0
    return [say(Key.MORNING), Dawn() if seats.night >= 2 else StartSpeeches()]


# ------------------------------------------------------ the first night

def first_night(game: Context) -> Effects:
    return [Enter(Phase.MAFIA_MEETING), say(Key.NIGHT_FALLS), say(Key.MAFIA_WAKES),
            SetTimer(Timer.STEP, game.rules.mafia_meet_seconds)]


def meet_don(game: Context) -> Effects:
    return [Enter(Phase.DON_MEETING), say(Key.MAFIA_SLEEPS), say(Key.DON_MEETS),
            SetTimer(Timer.STEP, game.rules.don_seconds)]


def meet_sheriff(game: Context) -> Effects:
    return [Enter(Phase.SHERIFF_MEETING), say(Key.DON_SLEEPS), say(Key.SHERIFF_MEETS),
            SetTimer(Timer.STEP, game.rules.sheriff_seconds)]


def end_first_night(game: Context) -> Effects:
    return [say(Key.SHERIFF_SLEEPS), *morning(game)]


# ------------------------------------------------------------- the hunt

def nightfall(game: Context) -> Effects:
    draw = quiet_draw(game)
    if draw:
        return draw
    seats, night = game.state.seats, game.state.night
    seats.night = seats.day + 1
    game.state.record.eliminated_at_nightfall = len(game.state.record.eliminated)
    night.shot, night.shot_entered, night.hunt_index = None, False, 0
    return [Enter(Phase.HUNT), say(Key.NIGHT_FALLS), say(Key.HUNT),
            SetTimer(Timer.STEP, game.rules.number_call_seconds)]


def quiet_draw(game: Context) -> Effects:
    """FIIM 1.5: three rounds (night k ≥ 2 and day k) in a row with nobody leaving."""
    record = game.state.record
    if game.rules.quiet_rounds != QuietRounds.DRAW or game.state.seats.day < 2:
        return []
    quiet = len(record.eliminated) == record.eliminated_at_nightfall
    record.quiet_rounds = record.quiet_rounds + 1 if quiet else 0
    if record.quiet_rounds < 3:
        return []
    return [say(Key.QUIET_DRAW), Finish(Winner.DRAW)]


def hunt_step(game: Context) -> Effects:
    night = game.state.night
    night.hunt_index += 1
    effects: Effects = [say(Key.NUMBER, seat=night.hunt_index)]
    if night.hunt_index < game.default_seats:
        return [*effects, SetTimer(Timer.STEP, game.rules.number_call_seconds)]
    if night.shot_entered:
        return effects + wake_don(game)
    return effects


def shot(game: Context, seat: int | None) -> Effects:
    night = game.state.night
    night.shot, night.shot_entered = seat, True
    return wake_don(game) if night.hunt_index >= game.default_seats else []


def wake_don(game: Context) -> Effects:
    return [say(Key.MAFIA_SLEEPS), Enter(Phase.DON_CHECK), say(Key.DON_WAKES),
            SetTimer(Timer.STEP, game.rules.don_seconds)]


def don_done(game: Context) -> Effects:
    return [say(Key.DON_SLEEPS), Enter(Phase.SHERIFF_CHECK), say(Key.SHERIFF_WAKES),
            SetTimer(Timer.STEP, game.rules.sheriff_seconds)]


def sheriff_done(game: Context) -> Effects:
    return [say(Key.SHERIFF_SLEEPS), *morning(game)]


# A check is answered to the host at once, but its window still runs its full
# time (SPEC §5): a window that closed early would tell the table the role lives.

def checked_tonight(game: Context, role: str) -> bool:
    night = game.state.seats.night
    return any(c.night == night and c.role == role for c in game.state.record.checks)


def don_check(game: Context, seat: int) -> Effects:
    is_sheriff = game.state.seats.roles[seat] is Role.SHERIFF
    game.state.record.checks.append(CheckRecord(game.state.seats.night, "don", seat,
                                                "sheriff" if is_sheriff else "not_sheriff"))
    return [say(Key.DON_YES if is_sheriff else Key.DON_NO, private=True, seat=seat)]


def sheriff_check(game: Context, seat: int) -> Effects:
    role = game.state.seats.roles[seat]
    black = isinstance(role, Role) and role.team is Team.BLACK
    game.state.record.checks.append(CheckRecord(game.state.seats.night, "sheriff", seat,
                                                "black" if black else "red"))
    return [say(Key.SHERIFF_BLACK if black else Key.SHERIFF_RED, private=True, seat=seat)]


# ------------------------------------------------------------- the dawn

def dawn(game: Context) -> Effects:
    """The night's result, told in the morning, and then the day's speeches
    (after a last word, unless the game ends)."""
    shot_seat = game.state.night.shot
    if shot_seat is not None and shot_seat in game.state.seats.alive:
        return killed(game, shot_seat)
    effects: Effects = [say(Key.MISSED)]
    quiet = quiet_red_win(game)
    return effects + (quiet or [StartSpeeches()])


def killed(game: Context, seat: int) -> Effects:
    effects: Effects = [say(Key.KILLED, seat=seat), Remove(seat, Cause.SHOT), CheckWin()]
    if game.state.seats.night == 2:
        effects.append(FirstKilled(seat))
    return [*effects, QueueFloors((seat,), FloorKind.LAST_WORD, Then.SPEECHES)]


def quiet_red_win(game: Context) -> Effects:
    """4MAFIA 1.7.2: three misses in a row with nobody leaving in between."""
    record = game.state.record
    if game.rules.quiet_rounds != QuietRounds.RED_WIN:
        return []
    record.misses += 1
    if record.misses < 3:
        return []
    return [say(Key.QUIET_RED_WINS), Finish(Winner.RED)]
