"""The moderator: the whole game as a pure state machine.

Inputs go in with the time they happened (`handle`, `advance`); outputs come
out (what to say, what to suggest to the host); nothing here sleeps, plays
sound or opens a socket. The live loop, the simulator, journal replay and the
web page all drive this one class.

Timers belong to the phase that set them and die with it. A timer fires at
its deadline, stamped with that deadline, however late `advance` is called:
so advancing to t1 and then t2 leaves the same state as advancing to t2, and a
journal of inputs with their times replays to the identical game."""
from __future__ import annotations

from collections import Counter
from typing import Any

from voicehost.errors import GameError
from voicehost.game.events import (
    BestMove,
    Candidates,
    Control,
    Event,
    Heard,
    LiftVotes,
    Names,
    SeatEvent,
    Setup,
    Speech,
    Votes,
    event_type,
)
from voicehost.game.model import (
    ROLE_COUNTS,
    SEATS,
    TRANSITIONS,
    Cause,
    Elimination,
    Floor,
    FloorKind,
    Output,
    Phase,
    Role,
    Team,
)
from voicehost.phrasebook import Phrasebook, load_phrasebook
from voicehost.phrases.grammar import Grammar, load_grammar
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
from voicehost.rules import RuleOptions

FLOOR_PHASES = {FloorKind.SPEECH: Phase.SPEECH, FloorKind.TIE: Phase.TIE_SPEECH,
                FloorKind.LAST_WORD: Phase.LAST_WORD}
FLOOR_INTRO = {FloorKind.SPEECH: "floor_speech", FloorKind.TIE: "floor_tie",
               FloorKind.LAST_WORD: "floor_last_word"}
# Phases between the morning and the day's vote result, where a removal
# cancels that day's vote (2.3.15–2.3.16).
DAY_PHASES = {Phase.SPEECH, Phase.VOTING, Phase.TALLY, Phase.TIE_SPEECH, Phase.LIFT_VOTE,
              Phase.LAST_WORD}
VOTE_PHASES = {Phase.VOTING, Phase.TALLY, Phase.TIE_SPEECH, Phase.LIFT_VOTE}
REMOVAL_SAY = {Cause.FOULS: "removed_fouls", Cause.DISQUALIFIED: "disqualified",
               Cause.LEFT_TABLE: "left_table"}
BEST_MOVE_BONUS = {3: 0.5, 2: 0.25}


class _FloorContext:
    """Answers the listener's questions about a nomination from the game."""

    def __init__(self, game: Moderator, seat: int) -> None:
        self.game, self.seat = game, seat

    def judge(self, target: int) -> str | None:
        if self.seat in self.game.nominators:
            return Reason.SECOND_NOMINATION
        if target not in self.game.alive:
            return Reason.NOT_ALIVE
        if target in self.game.today:
            return Reason.ALREADY_NOMINATED
        return None

    def accept(self, target: int) -> None:
        self.game.nominators.add(self.seat)
        self.game.today.append(target)
        self.game.nominations.append({"day": self.game.day, "by": self.seat, "target": target})


def game_class(rules: RuleOptions) -> type["Moderator"]:
    """The moderator for a ruleset: the sports game, or the city variant."""
    if rules.game == "city":
        from voicehost.game.city import CityModerator

        return CityModerator
    return Moderator


def new_game(rules: RuleOptions) -> "Moderator":
    return game_class(rules)(rules)


class Moderator:
    max_seat = len(SEATS)
    nominations_by_phrase = True
    WIN_SAY = {"red": "red_wins", "black": "black_wins", "draw": "draw"}

    def __init__(
        self,
        rules: RuleOptions,
        grammar: Grammar | None = None,
        phrasebook: Phrasebook | None = None,
    ) -> None:
        self.rules = rules
        self.grammar = grammar or load_grammar(rules.grammar)
        self.book = phrasebook or load_phrasebook(rules.phrasebook)
        self.now = 0.0
        self.phase = Phase.SETUP
        self.roles: dict[int, Role] = {}
        self.alive: set[int] = set()
        self.day = 0
        self.night = 0
        self.opener: int | None = None
        self.timers: dict[str, float] = {}
        self.fired = 0
        self.paused_at: float | None = None
        self.outputs: list[Output] = []
        # Floors
        self.floor: Floor | None = None
        self.listener: SpeechListener | None = None
        self.floor_count = 0
        self.speakers: list[int] = []
        self.floor_queue: list[tuple[int, FloorKind]] = []
        self.then = ""
        # Nominations and votes
        self.nominations: list[dict[str, int]] = []
        self.today: list[int] = []
        self.nominators: set[int] = set()
        self.candidates: list[int] = []
        self.tied: list[int] | None = None
        self.vote_round = 0
        self.vote_index = 0
        self.lift_only = False
        self.vote_resolved = False
        self.cancel_day: int | None = None
        self.votes: list[dict[str, Any]] = []
        # Night
        self.shot: int | None = None
        self.shot_entered = False
        self.hunt_index = 0
        self.checks: list[dict[str, Any]] = []
        # Discipline, ends and scores
        self.fouls: Counter[int] = Counter()
        self.silenced: set[int] = set()
        self.eliminated: list[Elimination] = []
        self.misses = 0
        self.quiet_rounds = 0
        self.eliminated_at_nightfall = 0
        self.first_killed: int | None = None
        self.best_move: dict[str, Any] | None = None
        self.best_player: int | None = None
        self.worst_player: int | None = None
        self.winner: str | None = None
        self.names: dict[int, str] = {}

    # ----------------------------------------------------------------- driving

    def handle(self, event: Event, now: float) -> list[Output]:
        """Advance the clock to `now`, then apply one input; all or nothing."""
        mark = len(self.outputs)
        if isinstance(event, Heard):
            self._advance(now)
            self._hear(event.word)
            return self.outputs[mark:]
        if isinstance(event, Names):  # any time, even before the deal or after the end
            self._advance(now)
            self.names = {s: n for s, n in {**self.names, **event.names}.items() if n}
            return self.outputs[mark:]
        self.precheck(event)
        self._advance(now)
        self._apply(event)
        return self.outputs[mark:]

    def advance(self, now: float) -> list[Output]:
        mark = len(self.outputs)
        self._advance(now)
        return self.outputs[mark:]

    def next_deadline(self) -> float | None:
        if self.paused_at is not None or not self.timers:
            return None
        return min(self.timers.values())

    def waiting_for(self) -> str | None:
        """The input the game cannot go on without, if it is stuck on one."""
        if self.phase is Phase.SETUP:
            return "setup"
        if self.phase is Phase.GAME_OVER:
            return None
        if self.paused_at is not None:
            return "resume"
        if self.phase is Phase.TALLY:
            return "votes"
        if self.phase is Phase.LIFT_VOTE:
            return "lift_votes"
        if self.phase is Phase.CANDIDATES:
            return "candidates"
        if self.phase is Phase.HUNT and not self.timers:
            return "shot"
        return None

    def fits(self, event: Event) -> bool:
        """Whether `event` can be applied where the game stands now."""
        if isinstance(event, Setup):
            return self.phase is Phase.SETUP
        if isinstance(event, Speech):
            return self.floor is not None and self.floor.seat == event.seat and not self.floor.heard
        if isinstance(event, Votes):
            return self.phase is Phase.TALLY
        if isinstance(event, LiftVotes):
            return self.phase is Phase.LIFT_VOTE
        if isinstance(event, BestMove):
            return self._best_move_floor()
        if isinstance(event, Candidates):
            return self.phase is Phase.CANDIDATES
        if isinstance(event, SeatEvent):
            return self._seat_event_fits(event)
        return True

    def _seat_event_fits(self, event: SeatEvent) -> bool:
        anytime = self.phase is not Phase.SETUP
        return {
            "shot": self.phase is Phase.HUNT and not self.shot_entered,
            "don_check": self.phase is Phase.DON_CHECK,
            "sheriff_check": self.phase is Phase.SHERIFF_CHECK,
            "best_player": self.phase is Phase.GAME_OVER,
            "worst_player": self.phase is Phase.GAME_OVER,
            "foul": anytime, "unfoul": anytime, "disqualify": anytime, "leave_table": anytime,
        }.get(event.type, False)

    def where(self) -> str:
        """The game's phase in words, for error messages."""
        if self.phase in (Phase.SETUP, Phase.GAME_OVER):
            return self.phase.value
        stage = f"night {self.night}" if self.phase.is_night else f"day {self.day}"
        detail = self.phase.value
        if self.floor is not None:
            detail = f"{self.floor.kind.value} of seat {self.floor.seat}"
        elif self.phase in (Phase.VOTING, Phase.TALLY, Phase.LIFT_VOTE):
            detail = f"{self.phase.value}, round {self.vote_round}"
        return f"{stage}, {detail}"

    def error(self, message: str, event: Event | None = None) -> GameError:
        return GameError(message, phase=self.where(), event=event_type(event) if event else "")

    # ------------------------------------------------------------------ checks

    def precheck(self, event: Event) -> None:
        """Refuse, before anything moves, an input that can never fit."""
        if isinstance(event, Names):
            return
        if isinstance(event, Setup):
            if self.phase is not Phase.SETUP:
                raise self.error("the game is already set up", event)
            self._check_roles(event.roles)
            return
        if self.phase is Phase.SETUP:
            raise self.error("the game has no setup yet: the first input must be 'setup'", event)
        kind = event_type(event)
        if self.phase is Phase.GAME_OVER and kind not in ("best_player", "worst_player"):
            raise self.error(f"the game is over; '{kind}' cannot follow it", event)
        if isinstance(event, Speech) and event.seat not in self.alive and not (
            self.floor and self.floor.seat == event.seat
        ) and event.seat not in (s for s, _ in self.floor_queue):
            raise self.error(f"seat {event.seat} is out of the game and has no floor", event)
        if isinstance(event, SeatEvent):
            self._precheck_seat_event(event)
        if isinstance(event, BestMove) and (
            self.best_move is not None or (self.day >= 2 and not self._best_move_floor())
        ):
            raise self.error("a best move fits only in the last word of the player killed on night 2",
                             event)

    def _precheck_seat_event(self, event: SeatEvent) -> None:
        seat = event.seat
        if event.type in ("foul", "unfoul", "disqualify", "leave_table", "shot") and seat is not None:
            if seat not in self.alive and not (event.type != "shot" and self._in_own_last_word(seat)):
                raise self.error(f"seat {seat} is not in the game", event)
        if event.type in ("don_check", "sheriff_check"):
            role = Role.DON if event.type == "don_check" else Role.SHERIFF
            if self._seat_of(role) not in self.alive:
                raise self.error(f"the {role.value} is out of the game and checks no one", event)

    def _check_roles(self, names: dict[int, str]) -> None:
        missing = [s for s in SEATS if s not in names]
        if missing:
            raise self.error(f"setup lacks roles for seat(s) {', '.join(map(str, missing))}")
        known = {r.value for r in Role}
        for seat, name in sorted(names.items()):
            if name not in known:
                raise self.error(f"setup seat {seat}: unknown role {name!r} "
                                 f"(known: {', '.join(r.value for r in Role)})")
        counts = Counter(Role(n) for n in names.values())
        if any(counts[role] != n for role, n in ROLE_COUNTS.items()):
            want = ", ".join(f"{n} {r.value}" for r, n in ROLE_COUNTS.items())
            have = ", ".join(f"{counts[r]} {r.value}" for r in ROLE_COUNTS)
            raise self.error(f"setup needs {want}; got {have}")

    # ------------------------------------------------------------- the clock

    def _advance(self, now: float) -> None:
        while self.paused_at is None and self.timers:
            name = min(self.timers, key=self.timers.__getitem__)
            deadline = self.timers[name]
            if deadline > now:
                break
            del self.timers[name]
            self.fired += 1
            self.now = max(self.now, deadline)
            self._fire(name)
        self.now = max(self.now, now)

    def _fire(self, name: str) -> None:
        if name == "floor_warn":
            self._say("ten_seconds")
        elif name == "floor_end":
            self._say("floor_over")
            self._close_floor()
        elif name == "pass" and self.listener is not None:
            self._listener_events(self.listener.expire(self.now))
        elif name == "step":
            self._step()

    def _step(self) -> None:
        self._steps()[self.phase]()

    def _steps(self) -> dict[Phase, Any]:
        """What the phase's timer does when it runs out."""
        return {
            Phase.MAFIA_MEETING: self._meet_don,
            Phase.DON_MEETING: self._meet_sheriff,
            Phase.SHERIFF_MEETING: self._end_first_night,
            Phase.VOTING: self._vote_step,
            Phase.HUNT: self._hunt_step,
            Phase.DON_CHECK: self._don_done,
            Phase.SHERIFF_CHECK: self._sheriff_done,
        }

    def _enter(self, phase: Phase) -> None:
        if phase is not self.phase and phase not in TRANSITIONS[self.phase]:
            raise RuntimeError(f"moderator bug: {self.phase.value} -> {phase.value}")
        self.phase = phase
        self.timers.clear()
        if phase not in FLOOR_PHASES.values():
            self.floor = None
            self.listener = None

    def _say(self, key: str, *, private: bool = False, t: float | None = None,
             text: str | None = None, **values: Any) -> None:
        text = text or self.book.text(key, **values)
        self.outputs.append(Output(self.now if t is None else t, "say", text, key, private, values))

    # ----------------------------------------------------------------- inputs

    def _apply(self, event: Event) -> None:
        if not self.fits(event):
            raise self.error(f"'{event_type(event)}' does not fit {self._needs()}", event)
        if isinstance(event, Setup):
            self._setup(event.roles)
        elif isinstance(event, Speech):
            self._speech(event)
        elif isinstance(event, Votes):
            self._votes(event)
        elif isinstance(event, LiftVotes):
            self._lift_votes(event.count)
        elif isinstance(event, BestMove):
            self._best_move(event)
        elif isinstance(event, Control):
            self._control(event.type)
        elif isinstance(event, Candidates):
            self._candidates(list(event.seats))
        else:
            self._seat_event(event)

    def _candidates(self, seats: list[int]) -> None:
        raise self.error("candidates are named by the host only in the city variant")

    def _seat_event(self, event: SeatEvent) -> None:
        handler = self._seat_handlers()[event.type]
        handler(event.seat)

    def _seat_handlers(self) -> dict[str, Any]:
        return {
            "shot": self._shot,
            "don_check": self._don_check,
            "sheriff_check": self._sheriff_check,
            "foul": self._foul,
            "unfoul": self._unfoul,
            "disqualify": lambda seat: self._removal(seat, Cause.DISQUALIFIED),
            "leave_table": lambda seat: self._removal(seat, Cause.LEFT_TABLE),
            "best_player": lambda seat: self._award(seat, "best_player"),
            "worst_player": lambda seat: self._award(seat, "worst_player"),
        }

    def _needs(self) -> str:
        wanted = self.waiting_for()
        return f"here: the game waits for '{wanted}'" if wanted else "here"

    def _control(self, kind: str) -> None:
        if self.phase is Phase.GAME_OVER:
            raise self.error(f"the game is over; nothing to {kind}")
        if kind == "pause":
            if self.paused_at is not None:
                raise self.error("the game is already paused")
            self.paused_at = self.now
            self._say("paused")
        elif kind == "resume":
            if self.paused_at is None:
                raise self.error("the game is not paused")
            shift = self.now - self.paused_at
            self.timers = {name: t + shift for name, t in self.timers.items()}
            if self.floor is not None:
                self.floor.end += shift
            self.paused_at = None
            self._say("resumed")
        elif self.floor is None:
            raise self.error("there is no floor to close")
        else:
            self._close_floor()

    # ----------------------------------------------------------- first night

    def _setup(self, names: dict[int, str]) -> None:
        self.roles = {seat: Role(name) for seat, name in sorted(names.items())}
        self.alive = set(SEATS)
        self.night = 1
        self._enter(Phase.MAFIA_MEETING)
        self._say("night_falls")
        self._say("mafia_wakes")
        self.timers["step"] = self.now + self.rules.mafia_meet_seconds

    def _meet_don(self) -> None:
        self._enter(Phase.DON_MEETING)
        self._say("mafia_sleeps")
        self._say("don_meets")
        self.timers["step"] = self.now + self.rules.don_seconds

    def _meet_sheriff(self) -> None:
        self._enter(Phase.SHERIFF_MEETING)
        self._say("don_sleeps")
        self._say("sheriff_meets")
        self.timers["step"] = self.now + self.rules.sheriff_seconds

    def _end_first_night(self) -> None:
        self._say("sheriff_sleeps")
        self._morning()

    # ---------------------------------------------------------------- the day

    def _morning(self) -> None:
        self.day += 1
        self.today, self.nominators = [], set()
        self.vote_resolved, self.lift_only = False, False
        self.tied, self.vote_round = None, 0
        self._say("morning")
        if self.night >= 2 and self._dawn():
            return
        self._start_speeches()

    def _dawn(self) -> bool:
        """The night's result, told in the morning; True when the day does not
        simply go on to its speeches (a last word first, or the game's end)."""
        if self.shot is not None and self.shot in self.alive:
            self._killed(self.shot)
            return True
        self._say("missed")
        return self._quiet_red_win()

    def _killed(self, seat: int) -> None:
        self._say("killed", seat=seat)
        self._remove(seat, Cause.SHOT)
        if self._check_win():
            return
        if self.night == 2:
            self.first_killed = seat
        self._queue_floors([seat], FloorKind.LAST_WORD, then="speeches")

    def _quiet_red_win(self) -> bool:
        """4MAFIA 1.7.2: three misses in a row with nobody leaving in between."""
        if self.rules.quiet_rounds != "red_win":
            return False
        self.misses += 1
        if self.misses < 3:
            return False
        self._say("quiet_red_wins")
        self._finish("red")
        return True

    def _start_speeches(self) -> None:
        order = sorted(self.alive)
        after = 0 if self.opener is None else self.opener
        self.opener = next((s for s in order if s > after), order[0])
        start = order.index(self.opener)
        self.speakers = order[start:] + order[:start]
        self._next_speech()

    def _next_speech(self) -> None:
        while self.speakers:
            seat = self.speakers.pop(0)
            if seat not in self.alive:
                continue
            seconds = self._speech_seconds(seat)
            if seconds:
                self._open_floor(seat, FloorKind.SPEECH, seconds)
                return
        self._start_vote()

    def _speech_seconds(self, seat: int) -> float:
        """60 s, or what a silenced player gets (3.4; FIIM 9.6.1)."""
        if seat not in self.silenced:
            return self.rules.speech_seconds
        self.silenced.discard(seat)
        few = len(self.alive)
        if self.rules.silence == "skip":
            if few <= 3:
                return self.rules.speech_seconds
            self._say("silenced_skips", seat=seat)
            return 0.0
        seconds = (self.rules.silenced_speech_seconds_few if few <= 4
                   else self.rules.silenced_speech_seconds)
        self._say("silenced_speaks", seat=seat, seconds=seconds)
        return seconds

    # ---------------------------------------------------------------- floors

    def _open_floor(self, seat: int, kind: FloorKind, seconds: float) -> None:
        self._enter(FLOOR_PHASES[kind])
        self.floor_count += 1
        self.floor = Floor(self.floor_count, seat, kind, self.now, self.now + seconds,
                           nominations=kind is FloorKind.SPEECH and self.nominations_by_phrase)
        self.listener = SpeechListener(
            self.grammar,
            _FloorContext(self, seat),
            nominations=self.floor.nominations,
            pause_limit=self.rules.nomination_pause,
            pass_silence=self.rules.pass_silence,
            required_fillers=self.rules.required_fillers,
        )
        self._say(FLOOR_INTRO[kind], seat=seat)
        warning = self.rules.warning_seconds
        if warning > 0 and seconds > warning:
            self.timers["floor_warn"] = self.floor.end - warning
        self.timers["floor_end"] = self.floor.end

    def _queue_floors(self, seats: list[int], kind: FloorKind, then: str) -> None:
        self.floor_queue = [(seat, kind) for seat in seats]
        self.then = then
        self._next_queued_floor()

    def _next_queued_floor(self) -> None:
        while self.floor_queue:
            seat, kind = self.floor_queue.pop(0)
            if kind is FloorKind.TIE and seat not in self.alive:
                continue
            seconds = (self.rules.tie_speech_seconds if kind is FloorKind.TIE
                       else self.rules.last_word_seconds)
            self._open_floor(seat, kind, seconds)
            return
        then, self.then = self.then, ""
        {
            "speeches": self._start_speeches,
            "night": self._nightfall,
            "revote": lambda: self._start_round(self.tied or []),
            "lift": self._ask_lift,
        }[then]()

    def _close_floor(self) -> None:
        floor = self.floor
        if floor is None:
            return
        self.floor, self.listener = None, None
        self.timers.clear()
        if floor.kind is FloorKind.SPEECH:
            self._next_speech()
        else:
            self._next_queued_floor()

    def _speech(self, event: Speech) -> None:
        """A whole floor's words: each is heard when it starts, until the floor closes."""
        floor = self.floor
        assert floor is not None
        floor.heard = True
        for word in event.words:
            heard = word.shifted(floor.start)
            if self.floor is not floor or heard.start >= floor.end:
                break
            self._advance(heard.start)
            if self.floor is not floor:
                break
            self._hear(heard)

    def _hear(self, word: Word) -> None:
        if self.listener is None or self.paused_at is not None:
            return
        events = self.listener.hear(word)
        self.now = max(self.now, word.end)
        self._listener_events(events)
        if self.listener is None:
            return
        deadline = self.listener.pass_deadline
        if deadline is None:
            self.timers.pop("pass", None)
        else:
            self.timers["pass"] = deadline

    def _listener_events(self, events: list[ListenerEvent]) -> None:
        for event in events:
            if isinstance(event, Nomination):
                self._nomination(event)
            elif isinstance(event, HostQuestion):
                nominees = [s for s in self.today if s in self.alive]
                if nominees:
                    self._say("host_answer", t=event.t, seats=nominees)
                else:
                    self._say("host_answer_none", t=event.t)
            elif isinstance(event, ForbiddenWord):
                seat = self.floor.seat if self.floor else 0
                self.outputs.append(Output(event.t, "suggest", event.word, event.clause, True,
                                           {"seat": seat, "suggest": event.suggest}))
            elif isinstance(event, SpeechEnd):
                self.timers.pop("pass", None)
                self._close_floor()

    def _nomination(self, event: Nomination) -> None:
        if event.accepted:
            if self.rules.confirm_nominations:
                text = self.rules.confirmation.format(seat=event.target) or None
                self._say("accepted", t=event.t, text=text, seat=event.target)
            return
        if self.rules.explain_rejections:
            reason = event.reason or ""
            if reason == Reason.WRONG_FORM and event.culprit is None:
                text = self.book.explanation("extra_words_required",
                                             word=" ".join(self.rules.required_fillers))
            else:
                text = self.book.explanation(
                    reason, word=event.culprit or "", seat=event.target,
                    pause=round(event.pause or 0.0, 1), limit=self.rules.nomination_pause)
            self.outputs.append(Output(event.t, "say", text, reason))

    # ---------------------------------------------------------------- voting

    def _start_vote(self) -> None:
        nominees = [s for s in self.today if s in self.alive]
        if self.cancel_day is not None and self.cancel_day <= self.day:
            self.cancel_day = None
            return self._no_vote("vote_cancelled")
        if not nominees:
            return self._no_vote("no_nominees")
        if self.day == 1 and self.rules.first_day_vote == "none":
            return self._no_vote("no_vote_day_one")
        if self.day == 1 and len(nominees) == 1:
            return self._no_vote("single_day_one", seat=nominees[0])
        if len(nominees) == 1:
            seat = nominees[0]
            self._say("single_nominee", seat=seat)
            if self.rules.later_single_nominee == "vote":
                self.vote_round = 1
                self.votes.append({"day": self.day, "round": 1, "counts": {str(seat): len(self.alive)}})
            return self._voted_out(seat)
        self.lift_only = self.day == 1 and self.rules.first_day_vote == "lift_only"
        self._start_round(nominees)

    def _no_vote(self, key: str, **values: Any) -> None:
        self._say(key, **values)
        self.vote_resolved = True
        self._nightfall()

    def _start_round(self, candidates: list[int]) -> None:
        self._enter(Phase.VOTING)
        self.vote_round += 1
        self.candidates = list(candidates)
        self._say("vote_nominees" if self.tied is None else "revote_nominees", seats=self.candidates)
        self.vote_index = 0
        self._say("vote_question", seat=self.candidates[0])
        self.timers["step"] = self.now + self.rules.vote_seconds

    def _vote_step(self) -> None:
        self._say("vote_thanks")
        self.vote_index += 1
        if self.vote_index < len(self.candidates):
            self._say("vote_question", seat=self.candidates[self.vote_index])
            self.timers["step"] = self.now + self.rules.vote_seconds
        else:
            self._enter(Phase.TALLY)

    def _full_counts(self, given: dict[int, int]) -> dict[int, int]:
        strangers = sorted(set(given) - set(self.candidates))
        if strangers:
            raise self.error(f"seat {strangers[0]} is not a candidate in this vote "
                             f"(candidates: {', '.join(map(str, self.candidates))})", Votes(given))
        voters, last = len(self.alive), self.candidates[-1]
        total = sum(given.values())
        if last in given and total != voters:
            raise self.error(f"the counts add up to {total}, but {voters} players vote", Votes(given))
        if total > voters:
            raise self.error(f"the counts add up to {total}, more than the {voters} alive players",
                             Votes(given))
        counts = {seat: given.get(seat, 0) for seat in self.candidates}
        counts[last] = voters - sum(v for s, v in counts.items() if s != last)
        return counts

    def _tally(self, event: Votes) -> list[int]:
        """Record and announce a tally; returns its leaders in nomination order."""
        counts = self._full_counts(event.counts)
        self.votes.append({"day": self.day, "round": self.vote_round,
                           "counts": {str(s): n for s, n in counts.items()}})
        for seat, count in counts.items():
            self._say("vote_count", seat=seat, count=count)
        top = max(counts.values())
        return [seat for seat in self.candidates if counts[seat] == top]

    def _votes(self, event: Votes) -> None:
        leaders = self._tally(event)
        if self.rules.everyone_tied_means_night and len(leaders) > 1 and set(leaders) == self.alive:
            return self._no_vote("everyone_tied")
        if self.lift_only:
            self.tied = leaders
            return self._queue_floors(leaders, FloorKind.TIE, then="lift")
        if len(leaders) == 1:
            return self._voted_out(leaders[0])
        if self.rules.no_revote_at_alive and len(self.alive) == self.rules.no_revote_at_alive:
            return self._no_vote("no_revote")
        if self.tied is not None and set(leaders) == set(self.tied):
            return self._ask_lift()
        self.tied = leaders
        self._say("tie", seats=leaders)
        self._queue_floors(leaders, FloorKind.TIE, then="revote")

    def _ask_lift(self) -> None:
        self._enter(Phase.LIFT_VOTE)
        self.vote_round += 1
        self._say("lift_question")

    def _lift_votes(self, count: int) -> None:
        voters = len(self.alive)
        if count > voters:
            raise self.error(f"{count} votes to lift, but only {voters} players vote", LiftVotes(count))
        self.votes.append({"day": self.day, "round": self.vote_round, "lift": count})
        self._say("lift_count", count=count)
        if count * 2 <= voters:
            return self._no_vote("lift_no")
        group = list(self.tied or [])
        self._say("lift_yes", seats=group)
        self.vote_resolved = True
        for seat in group:
            self._remove(seat, Cause.LIFT)
        if not self._check_win():
            self._queue_floors(group, FloorKind.LAST_WORD, then="night")

    def _voted_out(self, seat: int) -> None:
        self._say("leaves", seat=seat)
        self.vote_resolved = True
        self._remove(seat, Cause.VOTE)
        if not self._check_win():
            self._queue_floors([seat], FloorKind.LAST_WORD, then="night")

    # --------------------------------------------------------------- the night

    def _nightfall(self) -> None:
        if self._quiet_draw():
            return
        self.night = self.day + 1
        self.eliminated_at_nightfall = len(self.eliminated)
        self.shot, self.shot_entered, self.hunt_index = None, False, 0
        self._enter(Phase.HUNT)
        self._say("night_falls")
        self._say("hunt")
        self.timers["step"] = self.now + self.rules.number_call_seconds

    def _quiet_draw(self) -> bool:
        """FIIM 1.5: three rounds (night k ≥ 2 and day k) in a row with nobody leaving."""
        if self.rules.quiet_rounds != "draw" or self.day < 2:
            return False
        quiet = len(self.eliminated) == self.eliminated_at_nightfall
        self.quiet_rounds = self.quiet_rounds + 1 if quiet else 0
        if self.quiet_rounds < 3:
            return False
        self._say("quiet_draw")
        self._finish("draw")
        return True

    def _hunt_step(self) -> None:
        self.hunt_index += 1
        self._say("number", seat=self.hunt_index)
        if self.hunt_index < len(SEATS):
            self.timers["step"] = self.now + self.rules.number_call_seconds
        elif self.shot_entered:
            self._wake_don()

    def _shot(self, seat: int | None) -> None:
        self.shot, self.shot_entered = seat, True
        if self.hunt_index >= len(SEATS):
            self._wake_don()

    def _wake_don(self) -> None:
        self._say("mafia_sleeps")
        self._enter(Phase.DON_CHECK)
        self._say("don_wakes")
        self.timers["step"] = self.now + self.rules.don_seconds

    def _don_done(self) -> None:
        self._say("don_sleeps")
        self._enter(Phase.SHERIFF_CHECK)
        self._say("sheriff_wakes")
        self.timers["step"] = self.now + self.rules.sheriff_seconds

    def _sheriff_done(self) -> None:
        self._say("sheriff_sleeps")
        self._morning()

    def _check_target(self, checker: Role, seat: int, event: SeatEvent) -> None:
        if seat == self._seat_of(checker):
            raise self.error(f"the {checker.value} cannot check their own seat", event)
        if seat not in self.alive and not self.rules.check_out_seats:
            raise self.error(f"seat {seat} is out of the game and cannot be checked", event)

    def _don_check(self, seat: int) -> None:
        self._check_target(Role.DON, seat, SeatEvent("don_check", seat))
        is_sheriff = self.roles[seat] is Role.SHERIFF
        self.checks.append({"night": self.night, "role": "don", "seat": seat,
                            "result": "sheriff" if is_sheriff else "not_sheriff"})
        self._say("don_yes" if is_sheriff else "don_no", private=True, seat=seat)
        self._don_done()

    def _sheriff_check(self, seat: int) -> None:
        self._check_target(Role.SHERIFF, seat, SeatEvent("sheriff_check", seat))
        black = self.roles[seat].team is Team.BLACK
        self.checks.append({"night": self.night, "role": "sheriff", "seat": seat,
                            "result": "black" if black else "red"})
        self._say("sheriff_black" if black else "sheriff_red", private=True, seat=seat)
        self._sheriff_done()

    # -------------------------------------------------------------- discipline

    def _in_own_last_word(self, seat: int) -> bool:
        return (self.floor is not None and self.floor.kind is FloorKind.LAST_WORD
                and self.floor.seat == seat and seat not in self.alive)

    def _foul(self, seat: int) -> None:
        self.fouls[seat] += 1
        count = self.fouls[seat]
        if count >= 4:
            self._removal(seat, Cause.FOULS)
        elif count == 3:
            self._say("third_foul", seat=seat)
            if seat in self.alive:
                self.silenced.add(seat)
        else:
            self._say("foul", seat=seat, count=count)

    def _unfoul(self, seat: int) -> None:
        """The host takes back a foul given by mistake (a removal stays)."""
        if self.fouls[seat] == 0:
            raise self.error(f"seat {seat} has no foul to take back", SeatEvent("unfoul", seat))
        self.fouls[seat] -= 1
        if self.fouls[seat] < 3:
            self.silenced.discard(seat)
        self._say("unfoul", seat=seat, count=self.fouls[seat])

    def _removal(self, seat: int, cause: Cause) -> None:
        """A removal by the host: 4th foul, disqualification, leaving the table."""
        self._say(REMOVAL_SAY[cause], seat=seat)
        if self._in_own_last_word(seat):
            self._close_floor()
            return
        before_result = self.phase in DAY_PHASES and not self.vote_resolved
        self._remove(seat, cause)
        if cause is Cause.LEFT_TABLE and self._left_table(seat):
            return
        if self._check_win():
            return
        if before_result:
            self.cancel_day = self.day
            if self.phase in VOTE_PHASES:
                return self._start_vote()
        elif self.rules.removal_cancels_vote == "nearest":
            self.cancel_day = self.day + 1
        if self.floor is not None and self.floor.seat == seat:
            self._close_floor()

    def _left_table(self, seat: int) -> bool:
        """3.8.1: leaving without leave loses the game for the player's team."""
        self._finish("black" if self.roles[seat].team is Team.RED else "red")
        return True

    def _remove(self, seat: int, cause: Cause) -> None:
        self.alive.discard(seat)
        self.silenced.discard(seat)
        at_night = self.phase.is_night
        self.eliminated.append(Elimination(seat, cause, day=None if at_night else self.day,
                                           night=self.night if at_night else None))
        self.misses = 0

    # ------------------------------------------------------------ end, scores

    def _check_win(self) -> bool:
        sides = Counter(self._side(seat) for seat in self.alive)
        black, red = sides["black"], sides["red"]
        if black == 0:
            self._finish("red")
        elif black >= red:
            self._finish("black")
        return self.phase is Phase.GAME_OVER

    def _finish(self, winner: str) -> None:
        self.winner = winner
        self.floor_queue, self.speakers, self.then = [], [], ""
        self._enter(Phase.GAME_OVER)
        self._say(self.WIN_SAY[winner])

    def _seat_of(self, role: Role) -> int:
        return next(seat for seat, r in self.roles.items() if r is role)

    def _best_move_floor(self) -> bool:
        return (self.floor is not None and self.floor.kind is FloorKind.LAST_WORD
                and self.floor.seat == self.first_killed and self.best_move is None
                and self.day == 2)

    def _best_move(self, event: BestMove) -> None:
        assert self.floor is not None  # fits() put us in the night-2 victim's last word
        seat = self.floor.seat
        named = list(event.seats)
        if len(named) != 3 or len(set(named)) != 3 or seat in named:
            raise self.error(f"a best move names three other seats, got {named}", event)
        if self.roles[seat] is Role.SHERIFF and not self.rules.sheriff_best_move:
            raise self.error("the sheriff has no best move (4.3.3)", event)
        blacks = sum(1 for s in named if self.roles[s].team is Team.BLACK)
        self.best_move = {"seat": seat, "named": named, "blacks": blacks}
        self._say("best_move", seat=seat, seats=named)

    def _award(self, seat: int, kind: str) -> None:
        if getattr(self, kind) is not None:
            raise self.error(f"the {kind.replace('_', ' ')} is already named")
        setattr(self, kind, seat)
        self._say(kind, seat=seat)

    def _side(self, seat: int) -> str:
        return self.roles[seat].team.value

    def result_text(self) -> str | None:
        """How the game ended, in the phrasebook's words."""
        return self.book.text(self.WIN_SAY[self.winner]) if self.winner else None

    def seats(self) -> list[int]:
        return sorted(self.roles) if self.roles else list(SEATS)

    def points(self) -> dict[int, float]:
        points = {seat: 0.0 for seat in self.seats()}
        for seat in self.roles:
            if self.winner == self._side(seat):
                points[seat] += 1.0
        if self.best_move:
            points[self.best_move["seat"]] += BEST_MOVE_BONUS.get(self.best_move["blacks"], 0.0)
        if self.best_player is not None:
            points[self.best_player] += 0.75
        if self.worst_player is not None:
            points[self.worst_player] -= 1.0
        return points
