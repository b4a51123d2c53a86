"""The `city` variant (seed 003, SPEC §3.1): a party game on the same engine.

8–11 players; mafia, a commissar, and at most one doctor, lover and maniac.
Nights ≥ 2 run mafia kill, doctor heal, lover visit, commissar check, maniac
kill; everything takes effect in the morning, and each dead player's card is
read out. By day the host names the candidates; the top of the vote dies, a
tie is re-voted once, a second tie kills nobody. Leaving the table loses
nothing here: the player is out and the game goes on."""
from __future__ import annotations

from collections import Counter
from enum import Enum, StrEnum
from typing import TYPE_CHECKING, ClassVar

from voicehost.errors import GameError
from voicehost.game import night, voting
from voicehost.game.effects import (
    CheckWin,
    Effects,
    Enter,
    Morning,
    Nightfall,
    Remove,
    SetTimer,
    StartSpeeches,
    say,
)
from voicehost.game.events import BestMove, SeatEvent, Votes
from voicehost.game.keys import Key
from voicehost.game.model import Cause, Phase, Timer
from voicehost.game.records import CheckRecord
from voicehost.refusals import RefuseKey

if TYPE_CHECKING:
    from voicehost.game.effects import Context
    from voicehost.game.state import GameState

CITY_NIGHT = (("doctor", "heal"), ("lover", "visit"), ("commissar", "commissar_check"),
              ("maniac", "maniac_kill"))
ACTION_ROLE = {action: role for role, action in CITY_NIGHT}
# Each night window's role: woken, and put back to sleep.
WINDOW_SAY = {"doctor": (Key.DOCTOR_WAKES, Key.DOCTOR_SLEEPS), "lover": (Key.LOVER_WAKES, Key.LOVER_SLEEPS),
              "commissar": (Key.COMMISSAR_WAKES, Key.COMMISSAR_SLEEPS),
              "maniac": (Key.MANIAC_WAKES, Key.MANIAC_SLEEPS)}


class CitySide(StrEnum):
    CITY = "city"
    MAFIA = "mafia"
    MANIAC = "maniac"


class CityRole(Enum):
    CITIZEN = "citizen"
    MAFIA = "mafia"
    COMMISSAR = "commissar"
    DOCTOR = "doctor"
    LOVER = "lover"
    MANIAC = "maniac"

    @property
    def side(self) -> CitySide:
        return {"mafia": CitySide.MAFIA, "maniac": CitySide.MANIAC}.get(self.value, CitySide.CITY)


class CityCause(StrEnum):
    """Deaths only the city's night has."""

    COMMISSAR = "commissar"
    MANIAC = "maniac"


_DAY = frozenset({Phase.SPEECH, Phase.CANDIDATES, Phase.GAME_OVER})
TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.SETUP: frozenset({Phase.MAFIA_MEETING}),
    Phase.MAFIA_MEETING: _DAY,
    Phase.SPEECH: _DAY,
    Phase.CANDIDATES: frozenset({Phase.VOTING, Phase.HUNT, Phase.GAME_OVER}),
    Phase.VOTING: frozenset({Phase.TALLY, Phase.CANDIDATES, Phase.GAME_OVER}),
    Phase.TALLY: frozenset({Phase.VOTING, Phase.HUNT, Phase.CANDIDATES, Phase.GAME_OVER}),
    Phase.HUNT: frozenset({Phase.NIGHT_ACTION, Phase.GAME_OVER}),
    Phase.NIGHT_ACTION: _DAY | {Phase.NIGHT_ACTION},
    Phase.GAME_OVER: frozenset(),
}


def _role(game: Context, seat: int) -> CityRole:
    return CityRole(game.state.seats.roles[seat].value)


class CityVariant:
    kind = "city"
    exportable = False
    card_lines = ("commissar_answer", "city_died", "city_leaves")
    max_seat = 11
    default_seats = 10
    nominations_by_phrase = False
    transitions = TRANSITIONS
    win_say: ClassVar[dict[str, Key]] = {CitySide.CITY: Key.CITY_WINS, CitySide.MAFIA: Key.MAFIA_WINS,
               CitySide.MANIAC: Key.MANIAC_WINS}

    # -------------------------------------------------------- deal and sides

    def check_deal(self, game: Context, names: dict[int, str]) -> None:
        count = len(names)
        if not 8 <= count <= 11 or sorted(names) != list(range(1, count + 1)):
            raise game.error(f"the city variant seats 8 to 11 players on seats 1..N; got seats "
                             f"{', '.join(map(str, sorted(names)))}", key=RefuseKey.CITY_DEAL_SEATS,
                             seats=sorted(names))
        known = {r.value for r in CityRole}
        for seat, name in sorted(names.items()):
            if name not in known:
                raise game.error(f"setup seat {seat}: unknown role {name!r} "
                                 f"(known: {', '.join(sorted(known))})", key=RefuseKey.DEAL_UNKNOWN_ROLE,
                                 seat=seat, role=name, known=sorted(known))
        counts = Counter(names.values())
        if counts["mafia"] < 1 or counts["commissar"] != 1:
            raise game.error("the city variant needs at least one mafia and exactly one commissar",
                             key=RefuseKey.CITY_DEAL_ROLES)
        extra = [r for r in ("doctor", "lover", "maniac") if counts[r] > 1]
        if extra:
            raise game.error(f"the city variant has at most one {extra[0]}", key=RefuseKey.CITY_DEAL_EXTRA,
                             card=extra[0])

    def deal(self, names: dict[int, str]) -> dict[int, Enum]:
        return {seat: CityRole(name) for seat, name in sorted(names.items())}

    def side(self, role: Enum) -> str:
        return CityRole(role.value).side

    def winner(self, game: Context) -> StrEnum | None:
        alive = game.state.seats.alive
        sides = Counter(game.side(s) for s in alive)
        if sides[CitySide.MAFIA] == 0 and sides[CitySide.MANIAC] == 0:
            return CitySide.CITY
        if sides[CitySide.MANIAC] and len(alive) - 1 <= 1:
            return CitySide.MANIAC
        if not sides[CitySide.MANIAC] and sides[CitySide.MAFIA] >= len(alive) - sides[CitySide.MAFIA]:
            return CitySide.MAFIA
        return None

    def left_table_winner(self, game: Context, seat: int) -> StrEnum | None:
        return None  # a party game: nobody wins by another's leaving

    # ---------------------------------------------------------- the sequence

    def first_night(self, game: Context) -> Effects:
        """The acquaintance night: the mafia meet, and the day begins."""
        roles = {r.value for r in game.state.seats.roles.values()}
        game.state.night.windows = [action for role, action in CITY_NIGHT if role in roles]
        return night.first_night(game)

    def step(self, game: Context) -> Effects:
        phase = game.state.seats.phase
        if phase is Phase.MAFIA_MEETING:
            return [say(Key.MAFIA_SLEEPS), Morning()]
        if phase is Phase.NIGHT_ACTION:
            return self._window_done(game)
        return voting.vote_step(game)

    def speaking_order(self, state: GameState) -> list[int]:
        return sorted(state.seats.alive)

    def start_vote(self, game: Context) -> Effects:
        day = game.state.day
        day.cancel_day = None
        day.tied, day.vote_round = None, 0
        return [Enter(Phase.CANDIDATES)]

    def candidates(self, game: Context, seats: list[int]) -> Effects:
        if not seats:
            game.state.day.vote_resolved = True
            return [say(Key.CITY_NO_CANDIDATES), Nightfall()]
        effects: Effects = [say(Key.CITY_CANDIDATES, seats=seats)]
        if len(seats) == 1:
            return effects + self._voted_out(game, seats[0])
        return effects + voting.start_round(game, tuple(seats))

    def after_tally(self, game: Context, event: Votes) -> Effects:
        leaders, effects = voting.tally(game, event)
        day = game.state.day
        if len(leaders) == 1:
            return effects + self._voted_out(game, leaders[0])
        if day.tied is not None:
            day.vote_resolved = True
            return [*effects, say(Key.CITY_SECOND_TIE), Nightfall()]
        day.tied = leaders
        return [*effects, say(Key.TIE, seats=leaders), *voting.start_round(game, tuple(leaders))]

    def lift_votes(self, game: Context, count: int) -> Effects:
        raise AssertionError("admission lets no lift vote into a city game")

    def _voted_out(self, game: Context, seat: int) -> Effects:
        game.state.day.vote_resolved = True
        return [say(Key.CITY_LEAVES, seat=seat, card=_role(game, seat).value),
                Remove(seat, Cause.VOTE), CheckWin(), Nightfall()]

    # ------------------------------------------------------------- the night

    def nightfall(self, game: Context) -> Effects:
        seats, state = game.state.seats, game.state.night
        seats.night = seats.day + 1
        state.shot, state.shot_entered = None, False
        state.actions, state.window = {}, -1
        effects: Effects = [Enter(Phase.HUNT), say(Key.NIGHT_FALLS), say(Key.CITY_MAFIA_WAKES)]
        if not any(game.side(s) == CitySide.MAFIA for s in seats.alive):
            effects += self._shot(game, None)  # no mafia left to choose a victim
        return effects

    def night_input(self, game: Context, event: SeatEvent) -> Effects:
        if event.type == "shot":
            return self._shot(game, event.seat)
        game.state.night.actions[event.type] = event.seat
        if event.type == "commissar_check" and event.seat is not None:
            seat = event.seat
            found = _role(game, seat).value if game.side(seat) != CitySide.CITY else "citizen"
            game.state.record.checks.append(CheckRecord(game.state.seats.night, "commissar", seat,
                                                        str(game.side(seat))))
            return [say(Key.COMMISSAR_ANSWER, private=True, seat=seat, card=found)]
        # the window still runs its full time (SPEC §5): closing it now would tell the table who acts
        return []

    def _shot(self, game: Context, seat: int | None) -> Effects:
        game.state.night.shot, game.state.night.shot_entered = seat, True
        return [say(Key.MAFIA_SLEEPS), *self._next_window(game)]

    def _next_window(self, game: Context) -> Effects:
        state = game.state.night
        state.window += 1
        if state.window >= len(state.windows):
            return [Morning()]
        return [Enter(Phase.NIGHT_ACTION), say(WINDOW_SAY[ACTION_ROLE[state.windows[state.window]]][0]),
                SetTimer(Timer.STEP, game.rules.don_seconds)]

    def _window_done(self, game: Context) -> Effects:
        state = game.state.night
        return [say(WINDOW_SAY[ACTION_ROLE[state.windows[state.window]]][1]), *self._next_window(game)]

    def dawn(self, game: Context) -> Effects:
        """Every death of the night, each card read out; then the win check, and the day."""
        deaths = self._night_deaths(game)
        effects: Effects = [say(Key.CITY_DIED, seat=seat, card=_role(game, seat).value)
                            for seat, _ in deaths]
        effects += [Remove(seat, cause) for seat, cause in deaths]
        if not deaths:
            effects.append(say(Key.CITY_NO_DEATHS))
        return [*effects, CheckWin(), StartSpeeches()]

    def _night_deaths(self, game: Context) -> list[tuple[int, StrEnum]]:
        """The night's actions resolved: the lover's visit cancels the visited
        player's own action (not the mafia's kill); the heal saves from both kills;
        a commissar check on a mafia member or the maniac kills."""
        actions = game.state.night.actions
        visited = actions.get("visit")

        def acted(action: str) -> int | None:
            actor = game.role_seat(ACTION_ROLE[action])
            return None if actor == visited else actions.get(action)

        healed, shot = acted("heal"), game.state.night.shot
        deaths: list[tuple[int, StrEnum]] = []
        if shot is not None and shot != healed:
            deaths.append((shot, Cause.SHOT))
        checked = acted("commissar_check")
        if checked is not None and game.side(checked) != CitySide.CITY:
            deaths.append((checked, CityCause.COMMISSAR))
        killed = acted("maniac_kill")
        if killed is not None and killed != healed:
            deaths.append((killed, CityCause.MANIAC))
        first: dict[int, StrEnum] = {}
        for seat, cause in deaths:
            first.setdefault(seat, cause)  # one death a player, by the first cause in night order
        return [(seat, cause) for seat, cause in first.items() if seat in game.state.seats.alive]

    # ------------------------------------------------------------- admission

    def best_move_floor(self, game: Context) -> bool:
        return False  # the city game has no best move

    def precheck_seat_event(self, game: Context, event: SeatEvent) -> GameError | None:
        if event.type in ACTION_ROLE:
            role = ACTION_ROLE[event.type]
            actor = game.role_seat(role)
            if actor is None or actor not in game.state.seats.alive:
                return game.error(f"there is no {role} in the game to act", event,
                                  key=RefuseKey.CITY_NO_ACTOR, card=role)
            if event.seat is not None and event.seat not in game.state.seats.alive:
                return game.error(f"seat {event.seat} is not in the game", event, key=RefuseKey.SEAT_OUT,
                                  seat=event.seat)
        if event.type in ("don_check", "sheriff_check"):
            return game.error("the city variant has no don or sheriff checks; use commissar_check",
                              event, key=RefuseKey.CITY_NO_CHECKS)
        return None

    def seat_event_fits(self, game: Context, event: SeatEvent) -> bool:
        phase, state = game.state.seats.phase, game.state.night
        if event.type in ACTION_ROLE:
            return phase is Phase.NIGHT_ACTION and state.windows[state.window] == event.type
        return event.type == "shot" and phase is Phase.HUNT and not state.shot_entered

    def best_move_refusal(self, game: Context, event: BestMove, seat: int) -> GameError | None:
        return None  # never asked: best_move_floor is False

    def seat_event_refusal(self, game: Context, event: SeatEvent) -> GameError | None:
        if event.type in game.state.night.actions:
            role = ACTION_ROLE[event.type]
            return game.error(f"the {role} has already acted tonight", event, key=RefuseKey.CITY_ACTED)
        return None
