"""The night and the morning: the first night's meetings, the hunt with its
number calls, the don's and sheriff's checks, and the dawn that tells the
night's result (2.1, 2.4). The morning is every variant's; the rest is the
sports night, which the city variant replaces with its own sequence."""
from __future__ import annotations

from typing import TYPE_CHECKING

from voicehost.game import discipline, floors, scoring
from voicehost.game.model import Cause, FloorKind, Phase, Role, Team, Winner
from voicehost.game.records import CheckRecord

if TYPE_CHECKING:
    from voicehost.game.moderator import Moderator


def morning(game: Moderator) -> None:
    seats, day = game.state.seats, game.state.day
    seats.day += 1
    day.today, day.nominators = [], set()
    day.vote_resolved, day.lift_only = False, False
    day.tied, day.vote_round = None, 0
    game.say("morning")
    if seats.night >= 2 and game.variant.dawn(game):
        return
    floors.start_speeches(game)


# ------------------------------------------------------ the first night

def first_night(game: Moderator) -> None:
    game.enter(Phase.MAFIA_MEETING)
    game.say("night_falls")
    game.say("mafia_wakes")
    game.set_timer("step", game.rules.mafia_meet_seconds)


def meet_don(game: Moderator) -> None:
    game.enter(Phase.DON_MEETING)
    game.say("mafia_sleeps")
    game.say("don_meets")
    game.set_timer("step", game.rules.don_seconds)


def meet_sheriff(game: Moderator) -> None:
    game.enter(Phase.SHERIFF_MEETING)
    game.say("don_sleeps")
    game.say("sheriff_meets")
    game.set_timer("step", game.rules.sheriff_seconds)


def end_first_night(game: Moderator) -> None:
    game.say("sheriff_sleeps")
    morning(game)


# ------------------------------------------------------------- the hunt

def nightfall(game: Moderator) -> None:
    if quiet_draw(game):
        return
    seats, night = game.state.seats, game.state.night
    seats.night = seats.day + 1
    game.state.record.eliminated_at_nightfall = len(game.state.record.eliminated)
    night.shot, night.shot_entered, night.hunt_index = None, False, 0
    game.enter(Phase.HUNT)
    game.say("night_falls")
    game.say("hunt")
    game.set_timer("step", game.rules.number_call_seconds)


def quiet_draw(game: Moderator) -> bool:
    """FIIM 1.5: three rounds (night k ≥ 2 and day k) in a row with nobody leaving."""
    record = game.state.record
    if game.rules.quiet_rounds != "draw" or game.state.seats.day < 2:
        return False
    quiet = len(record.eliminated) == record.eliminated_at_nightfall
    record.quiet_rounds = record.quiet_rounds + 1 if quiet else 0
    if record.quiet_rounds < 3:
        return False
    game.say("quiet_draw")
    scoring.finish(game, Winner.DRAW)
    return True


def hunt_step(game: Moderator) -> None:
    night = game.state.night
    night.hunt_index += 1
    game.say("number", seat=night.hunt_index)
    if night.hunt_index < game.variant.default_seats:
        game.set_timer("step", game.rules.number_call_seconds)
    elif night.shot_entered:
        wake_don(game)


def shot(game: Moderator, seat: int | None) -> None:
    night = game.state.night
    night.shot, night.shot_entered = seat, True
    if night.hunt_index >= game.variant.default_seats:
        wake_don(game)


def wake_don(game: Moderator) -> None:
    game.say("mafia_sleeps")
    game.enter(Phase.DON_CHECK)
    game.say("don_wakes")
    game.set_timer("step", game.rules.don_seconds)


def don_done(game: Moderator) -> None:
    game.say("don_sleeps")
    game.enter(Phase.SHERIFF_CHECK)
    game.say("sheriff_wakes")
    game.set_timer("step", game.rules.sheriff_seconds)


def sheriff_done(game: Moderator) -> None:
    game.say("sheriff_sleeps")
    morning(game)


# A check is answered to the host at once, but its window still runs its full
# time (SPEC §5): a window that closed early would tell the table the role lives.

def checked_tonight(game: Moderator, role: str) -> bool:
    night = game.state.seats.night
    return any(c.night == night and c.role == role for c in game.state.record.checks)


def don_check(game: Moderator, seat: int) -> None:
    is_sheriff = game.state.seats.roles[seat] is Role.SHERIFF
    game.state.record.checks.append(CheckRecord(game.state.seats.night, "don", seat,
                                                "sheriff" if is_sheriff else "not_sheriff"))
    game.say("don_yes" if is_sheriff else "don_no", private=True, seat=seat)


def sheriff_check(game: Moderator, seat: int) -> None:
    role = game.state.seats.roles[seat]
    black = isinstance(role, Role) and role.team is Team.BLACK
    game.state.record.checks.append(CheckRecord(game.state.seats.night, "sheriff", seat,
                                                "black" if black else "red"))
    game.say("sheriff_black" if black else "sheriff_red", private=True, seat=seat)


# ------------------------------------------------------------- the dawn

def dawn(game: Moderator) -> bool:
    """The night's result, told in the morning; True when the day does not
    simply go on to its speeches (a last word first, or the game's end)."""
    shot_seat = game.state.night.shot
    if shot_seat is not None and shot_seat in game.state.seats.alive:
        killed(game, shot_seat)
        return True
    game.say("missed")
    return quiet_red_win(game)


def killed(game: Moderator, seat: int) -> None:
    game.say("killed", seat=seat)
    discipline.remove(game, seat, Cause.SHOT)
    if scoring.check_win(game):
        return
    if game.state.seats.night == 2:
        game.state.record.first_killed = seat
    floors.queue_floors(game, [seat], FloorKind.LAST_WORD, then="speeches")


def quiet_red_win(game: Moderator) -> bool:
    """4MAFIA 1.7.2: three misses in a row with nobody leaving in between."""
    record = game.state.record
    if game.rules.quiet_rounds != "red_win":
        return False
    record.misses += 1
    if record.misses < 3:
        return False
    game.say("quiet_red_wins")
    scoring.finish(game, Winner.RED)
    return True
