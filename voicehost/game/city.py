"""The `city` variant (seed 003, SPEC §3.1): a party game on the same machinery.

8–11 players; mafia, a commissar, and at most one doctor, lover and maniac.
Nights ≥ 2 run mafia kill, doctor heal, lover visit, commissar check, maniac
kill; everything takes effect in the morning, and each dead player's card is
read out. By day the host names the candidates; the top of the vote dies, a
tie is re-voted once, a second tie kills nobody."""
from __future__ import annotations

from collections import Counter
from enum import Enum
from typing import Any

from voicehost.game.events import SeatEvent
from voicehost.game.model import Cause, Phase
from voicehost.game.moderator import Moderator

CITY_NIGHT = (("doctor", "heal"), ("lover", "visit"), ("commissar", "commissar_check"),
              ("maniac", "maniac_kill"))
ACTION_ROLE = {action: role for role, action in CITY_NIGHT}


class CityRole(Enum):
    CITIZEN = "citizen"
    MAFIA = "mafia"
    COMMISSAR = "commissar"
    DOCTOR = "doctor"
    LOVER = "lover"
    MANIAC = "maniac"

    @property
    def side(self) -> str:
        return {"mafia": "mafia", "maniac": "maniac"}.get(self.value, "city")


class CityVariant:
    def check_deal(self, game: Moderator, names: dict[int, str]) -> None:
        count = len(names)
        if not 8 <= count <= 11 or sorted(names) != list(range(1, count + 1)):
            raise game.error(f"the city variant seats 8 to 11 players on seats 1..N; got seats "
                             f"{', '.join(map(str, sorted(names)))}")
        known = {r.value for r in CityRole}
        for seat, name in sorted(names.items()):
            if name not in known:
                raise game.error(f"setup seat {seat}: unknown role {name!r} (known: {', '.join(sorted(known))})")
        counts = Counter(names.values())
        if counts["mafia"] < 1 or counts["commissar"] != 1:
            raise game.error("the city variant needs at least one mafia and exactly one commissar")
        extra = [r for r in ("doctor", "lover", "maniac") if counts[r] > 1]
        if extra:
            raise game.error(f"the city variant has at most one {extra[0]}")

    def best_move_floor(self, game: Moderator) -> bool:
        return False

    def precheck_seat_event(self, game: Moderator, event: SeatEvent) -> str | None:
        if event.type in ACTION_ROLE:
            role = ACTION_ROLE[event.type]
            actor = game._seat_of_role(role)
            if actor is None or actor not in game.alive:
                return f"there is no {role} in the game to act"
            if event.seat is not None and event.seat not in game.alive:
                return f"seat {event.seat} is not in the game"
        if event.type in ("don_check", "sheriff_check"):
            return "the city variant has no don or sheriff checks; use commissar_check"
        return None

    def seat_event_fits(self, game: Moderator, event: SeatEvent) -> bool:
        if event.type in ACTION_ROLE:
            return game.phase is Phase.NIGHT_ACTION and game.windows[game.window] == event.type
        return event.type == "shot" and game.phase is Phase.HUNT and not game.shot_entered

    def best_move_refusal(self, game: Moderator, seat: int) -> str | None:
        return None

    def seat_event_refusal(self, game: Moderator, event: SeatEvent) -> str | None:
        return None


class CityModerator(Moderator):
    VARIANT = CityVariant
    max_seat = 11
    nominations_by_phrase = False
    WIN_SAY = {"city": "city_wins", "mafia": "mafia_wins", "maniac": "maniac_wins"}

    def __init__(self, rules) -> None:
        super().__init__(rules)
        self.windows: list[str] = []
        self.window = -1
        self.actions: dict[str, int | None] = {}

    # ------------------------------------------------------------ the deal

    def _setup(self, names: dict[int, str]) -> None:
        self.roles = {seat: CityRole(name) for seat, name in sorted(names.items())}  # type: ignore[misc]
        self.alive = set(self.roles)
        self.night = 1
        self.windows = [action for role, action in CITY_NIGHT if role in names.values()]
        self._enter(Phase.MAFIA_MEETING)
        self._say("night_falls")
        self._say("mafia_wakes")
        self.timers["step"] = self.now + self.rules.mafia_meet_seconds

    def _steps(self) -> dict[Phase, Any]:
        steps = super()._steps()
        steps[Phase.MAFIA_MEETING] = self._end_acquaintance
        steps[Phase.NIGHT_ACTION] = self._window_done
        return steps

    def _end_acquaintance(self) -> None:
        self._say("mafia_sleeps")
        self._morning()

    def _side(self, seat: int) -> str:
        return self.roles[seat].side  # type: ignore[attr-defined]

    def _role(self, seat: int) -> str:
        return self.roles[seat].value

    def _seat_of_role(self, role: str) -> int | None:
        return next((s for s, r in self.roles.items() if r.value == role), None)

    # ------------------------------------------------------------- the day

    def _start_speeches(self) -> None:
        self.speakers = sorted(self.alive)
        self._next_speech()

    def _start_vote(self) -> None:
        self.cancel_day = None
        self.tied, self.vote_round = None, 0
        self._enter(Phase.CANDIDATES)

    def _candidates(self, seats: list[int]) -> None:
        if not seats:
            self._say("city_no_candidates")
            self.vote_resolved = True
            return self._nightfall()
        self._say("city_candidates", seats=seats)
        if len(seats) == 1:
            return self._voted_out(seats[0])
        self._start_round(seats)

    def _votes(self, event) -> None:
        leaders = self._tally(event)
        if len(leaders) == 1:
            return self._voted_out(leaders[0])
        if self.tied is not None:
            self._say("city_second_tie")
            self.vote_resolved = True
            return self._nightfall()
        self.tied = leaders
        self._say("tie", seats=leaders)
        self._start_round(leaders)

    def _voted_out(self, seat: int) -> None:
        self._say("city_leaves", seat=seat, card=self.book.cards[self._role(seat)])
        self.vote_resolved = True
        self._remove(seat, Cause.VOTE)
        if not self._check_win():
            self._nightfall()

    # ----------------------------------------------------------- the night

    def _nightfall(self) -> None:
        self.night = self.day + 1
        self.shot, self.shot_entered = None, False
        self.actions, self.window = {}, -1
        self._enter(Phase.HUNT)
        self._say("night_falls")
        self._say("city_mafia_wakes")
        if not any(self._side(s) == "mafia" for s in self.alive):
            self._shot(None)  # no mafia left to choose a victim

    def _shot(self, seat: int | None) -> None:
        self.shot, self.shot_entered = seat, True
        self._say("mafia_sleeps")
        self._next_window()

    def _next_window(self) -> None:
        self.window += 1
        if self.window >= len(self.windows):
            return self._morning()
        role = ACTION_ROLE[self.windows[self.window]]
        self._enter(Phase.NIGHT_ACTION)
        self._say(f"{role}_wakes")
        self.timers["step"] = self.now + self.rules.don_seconds

    def _window_done(self) -> None:
        self._say(f"{ACTION_ROLE[self.windows[self.window]]}_sleeps")
        self._next_window()

    def _seat_handlers(self) -> dict[str, Any]:
        handlers = super()._seat_handlers()
        for action in ACTION_ROLE:
            handlers[action] = lambda seat, action=action: self._night_action(action, seat)
        return handlers

    def _night_action(self, action: str, seat: int | None) -> None:
        self.actions[action] = seat
        if action == "commissar_check" and seat is not None:
            found = self._role(seat) if self._role(seat) in ("mafia", "maniac") else "citizen"
            self.checks.append({"night": self.night, "role": "commissar", "seat": seat,
                                "result": self._side(seat)})
            self._say("commissar_answer", private=True, seat=seat, card=self.book.cards[found])
        self._window_done()

    def _dawn(self) -> bool:
        """Every death of the night, each card read out; then the win check."""
        deaths = self._night_deaths()
        for seat, _ in deaths:
            self._say("city_died", seat=seat, card=self.book.cards[self._role(seat)])
        for seat, cause in deaths:
            self._remove(seat, cause)
        if not deaths:
            self._say("city_no_deaths")
        return self._check_win()

    def _night_deaths(self) -> list[tuple[int, Cause]]:
        """The night's actions resolved: the lover's visit cancels the visited
        player's own action (not the mafia's kill); the heal saves from both kills;
        a commissar check on a mafia member or the maniac kills."""
        visited = self.actions.get("visit")

        def acted(action: str) -> int | None:
            actor = self._seat_of_role(ACTION_ROLE[action])
            return None if actor == visited else self.actions.get(action)

        healed = acted("heal")
        deaths: list[tuple[int, Cause]] = []
        if self.shot is not None and self.shot != healed:
            deaths.append((self.shot, Cause.SHOT))
        checked = acted("commissar_check")
        if checked is not None and self._side(checked) in ("mafia", "maniac"):
            deaths.append((checked, Cause.COMMISSAR))
        killed = acted("maniac_kill")
        if killed is not None and killed != healed:
            deaths.append((killed, Cause.MANIAC))
        first: dict[int, Cause] = {}
        for seat, cause in deaths:
            first.setdefault(seat, cause)  # one death a player, by the first cause in night order
        return [(seat, cause) for seat, cause in first.items() if seat in self.alive]

    # --------------------------------------------------------------- ends

    def _left_table(self, seat: int) -> bool:
        return False  # a party game: the player is out, the game goes on

    def _check_win(self) -> bool:
        sides = Counter(self._side(s) for s in self.alive)
        if sides["mafia"] == 0 and sides["maniac"] == 0:
            self._finish("city")
        elif sides["maniac"] and len(self.alive) - 1 <= 1:
            self._finish("maniac")
        elif not sides["maniac"] and sides["mafia"] >= len(self.alive) - sides["mafia"]:
            self._finish("mafia")
        return self.phase is Phase.GAME_OVER

