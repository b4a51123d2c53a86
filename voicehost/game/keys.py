"""Every phrasebook [say] key the core announces, with the values it passes.

Stages say `Key` members only (game/effects.py `say`), so a key is spelled
once; the phrasebooks, the prerendering at the table and the tests read this
registry instead of scanning the source. A line that names one player may
also carry `name` (`[names] announce`, game/narration.py)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum


class Key(StrEnum):
    ACCEPTED = "accepted"
    BEST_MOVE = "best_move"
    BEST_PLAYER = "best_player"
    BLACK_WINS = "black_wins"
    CITY_CANDIDATES = "city_candidates"
    CITY_DIED = "city_died"
    CITY_LEAVES = "city_leaves"
    CITY_MAFIA_WAKES = "city_mafia_wakes"
    CITY_NO_CANDIDATES = "city_no_candidates"
    CITY_NO_DEATHS = "city_no_deaths"
    CITY_SECOND_TIE = "city_second_tie"
    CITY_WINS = "city_wins"
    COMMISSAR_ANSWER = "commissar_answer"
    COMMISSAR_SLEEPS = "commissar_sleeps"
    COMMISSAR_WAKES = "commissar_wakes"
    COUNT_AGAIN = "count_again"
    DISQUALIFIED = "disqualified"
    DOCTOR_SLEEPS = "doctor_sleeps"
    DOCTOR_WAKES = "doctor_wakes"
    DON_MEETS = "don_meets"
    DON_NO = "don_no"
    DON_SLEEPS = "don_sleeps"
    DON_WAKES = "don_wakes"
    DON_YES = "don_yes"
    DRAW = "draw"
    EVERYONE_TIED = "everyone_tied"
    FLOOR_LAST_WORD = "floor_last_word"
    FLOOR_OVER = "floor_over"
    FLOOR_SPEECH = "floor_speech"
    FLOOR_TIE = "floor_tie"
    FOUL = "foul"
    HOST_ANSWER = "host_answer"
    HOST_ANSWER_NONE = "host_answer_none"
    HUNT = "hunt"
    KILLED = "killed"
    LEAVES = "leaves"
    LEFT_TABLE = "left_table"
    LIFT_COUNT = "lift_count"
    LIFT_NO = "lift_no"
    LIFT_QUESTION = "lift_question"
    LIFT_YES = "lift_yes"
    LOVER_SLEEPS = "lover_sleeps"
    LOVER_WAKES = "lover_wakes"
    MAFIA_SLEEPS = "mafia_sleeps"
    MAFIA_WAKES = "mafia_wakes"
    MAFIA_WINS = "mafia_wins"
    MANIAC_SLEEPS = "maniac_sleeps"
    MANIAC_WAKES = "maniac_wakes"
    MANIAC_WINS = "maniac_wins"
    MISSED = "missed"
    MORNING = "morning"
    NIGHT_FALLS = "night_falls"
    NO_NOMINEES = "no_nominees"
    NO_REVOTE = "no_revote"
    NO_VOTE_DAY_ONE = "no_vote_day_one"
    NUMBER = "number"
    OUT_OF_TURN = "out_of_turn"   # SPEC §7.1: a foul suggestion to the host, in the earpiece
    PAUSED = "paused"
    PROTEST_ANNULLED = "protest_annulled"
    PROTEST_CHANGED = "protest_changed"
    PROTEST_FAILED = "protest_failed"
    PROTEST_REPLAYED = "protest_replayed"
    QUIET_DRAW = "quiet_draw"
    QUIET_RED_WINS = "quiet_red_wins"
    RED_WINS = "red_wins"
    REMOVED_FOULS = "removed_fouls"
    RESUMED = "resumed"
    REVOTE_NOMINEES = "revote_nominees"
    SEATING = "seating"
    SHERIFF_BLACK = "sheriff_black"
    SHERIFF_MEETS = "sheriff_meets"
    SHERIFF_RED = "sheriff_red"
    SHERIFF_SLEEPS = "sheriff_sleeps"
    SHERIFF_WAKES = "sheriff_wakes"
    SILENCED_SKIPS = "silenced_skips"
    SILENCED_SPEAKS = "silenced_speaks"
    SINGLE_DAY_ONE = "single_day_one"
    SINGLE_NOMINEE = "single_nominee"
    TEN_SECONDS = "ten_seconds"
    THIRD_FOUL = "third_foul"
    TIE = "tie"
    UNFOUL = "unfoul"
    VOTE_CANCELLED = "vote_cancelled"
    VOTE_COUNT = "vote_count"
    VOTE_NOMINEES = "vote_nominees"
    VOTE_QUESTION = "vote_question"
    VOTE_THANKS = "vote_thanks"
    WORST_PLAYER = "worst_player"

    @property
    def values(self) -> frozenset[str]:
        """The values this key is said with (a subset may be given)."""
        return VALUES[self]

    @property
    def open_ended(self) -> bool:
        """Whether a value has no bound (a list of seats, the seating): such a
        line is synthesized when said, never prerendered."""
        return bool(VALUES[self] & OPEN_VALUES)

    @property
    def prerenderable(self) -> bool:
        """Whether the line has a value and every value has few possibilities at
        a table (seats 1..10, a count up to 10, a role's card, the rules' own
        silenced-speech lengths): the table renders each line once and keeps it."""
        return bool(VALUES[self]) and VALUES[self] <= FINITE_VALUES

    @property
    def frequent(self) -> bool:
        """Whether the line is said at nearly every table every day (kept in memory
        from start-up; the other prerenderable lines wait on disk until said)."""
        return self in FREQUENT

    def counts(self, max_seat: int) -> range:
        """The counts this line is said with: a count of votes or players (0..max_seat)
        unless the key has fewer (a foul is the 1st or 2nd; the 3rd has its own line)."""
        return COUNTS.get(self, range(max_seat + 1))


# What each key is said with (a subset may be given: `accepted` has a club's `phrase` or not).
_WITH: dict[tuple[str, ...], tuple[Key, ...]] = {
    (): (
        Key.BLACK_WINS,
        Key.CITY_MAFIA_WAKES,
        Key.CITY_NO_CANDIDATES,
        Key.CITY_NO_DEATHS,
        Key.CITY_SECOND_TIE,
        Key.CITY_WINS,
        Key.COMMISSAR_SLEEPS,
        Key.COMMISSAR_WAKES,
        Key.COUNT_AGAIN,
        Key.DOCTOR_SLEEPS,
        Key.DOCTOR_WAKES,
        Key.DON_MEETS,
        Key.DON_SLEEPS,
        Key.DON_WAKES,
        Key.DRAW,
        Key.EVERYONE_TIED,
        Key.FLOOR_OVER,
        Key.HOST_ANSWER_NONE,
        Key.HUNT,
        Key.LIFT_NO,
        Key.LIFT_QUESTION,
        Key.LOVER_SLEEPS,
        Key.LOVER_WAKES,
        Key.MAFIA_SLEEPS,
        Key.MAFIA_WAKES,
        Key.MAFIA_WINS,
        Key.MANIAC_SLEEPS,
        Key.MANIAC_WAKES,
        Key.MANIAC_WINS,
        Key.MISSED,
        Key.MORNING,
        Key.NIGHT_FALLS,
        Key.NO_NOMINEES,
        Key.NO_REVOTE,
        Key.NO_VOTE_DAY_ONE,
        Key.PAUSED,
        Key.QUIET_DRAW,
        Key.QUIET_RED_WINS,
        Key.RED_WINS,
        Key.RESUMED,
        Key.SHERIFF_MEETS,
        Key.SHERIFF_SLEEPS,
        Key.SHERIFF_WAKES,
        Key.TEN_SECONDS,
        Key.VOTE_CANCELLED,
        Key.VOTE_THANKS,
    ),
    ("card", "seat"): (Key.CITY_DIED, Key.CITY_LEAVES, Key.COMMISSAR_ANSWER),
    ("count",): (Key.LIFT_COUNT, Key.PROTEST_ANNULLED, Key.PROTEST_CHANGED, Key.PROTEST_FAILED, Key.PROTEST_REPLAYED),
    ("count", "seat"): (Key.FOUL, Key.UNFOUL, Key.VOTE_COUNT),
    ("phrase", "seat"): (Key.ACCEPTED,),
    ("players",): (Key.SEATING,),
    ("seat",): (
        Key.BEST_PLAYER,
        Key.DISQUALIFIED,
        Key.DON_NO,
        Key.DON_YES,
        Key.FLOOR_LAST_WORD,
        Key.FLOOR_SPEECH,
        Key.FLOOR_TIE,
        Key.KILLED,
        Key.LEAVES,
        Key.LEFT_TABLE,
        Key.NUMBER,
        Key.OUT_OF_TURN,
        Key.REMOVED_FOULS,
        Key.SHERIFF_BLACK,
        Key.SHERIFF_RED,
        Key.SILENCED_SKIPS,
        Key.SINGLE_DAY_ONE,
        Key.SINGLE_NOMINEE,
        Key.THIRD_FOUL,
        Key.VOTE_QUESTION,
        Key.WORST_PLAYER,
    ),
    ("seat", "seats"): (Key.BEST_MOVE,),
    ("seat", "seconds"): (Key.SILENCED_SPEAKS,),
    ("seats",): (Key.CITY_CANDIDATES, Key.HOST_ANSWER, Key.LIFT_YES, Key.REVOTE_NOMINEES, Key.TIE, Key.VOTE_NOMINEES),
}
# Values with no bound (a list of seats, the seating): lines said with them are open-ended.
OPEN_VALUES = frozenset({"seats", "players"})
# Values with few possibilities at a table (a seat, a count, a role's card, a
# silenced speech's length from the rules). `phrase` (a club's confirmation) is
# the answers' own (live/speaking.py), and `name` is said only with names on.
FINITE_VALUES = frozenset({"seat", "count", "card", "seconds"})
FREQUENT = frozenset({Key.VOTE_QUESTION, Key.LEAVES, Key.KILLED, Key.NUMBER})
COUNTS: Mapping[Key, range] = {Key.FOUL: range(1, 3), Key.UNFOUL: range(4)}

VALUES: Mapping[Key, frozenset[str]] = {key: frozenset(names) for names, keys in _WITH.items() for key in keys}
