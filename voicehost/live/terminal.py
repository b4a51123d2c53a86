"""Typed play: the host's terminal (or a braille display).

Each typed line is what the current speaker said (`<N>` is N seconds of
silence); lines starting with "/" are the host's inputs. After every line a
short status says where the game stands ("· …"); when the game waits for the
host (a tally, a shot) a prompt ("> …") says so at once. After "Стоп игра"
the terminal asks for the best and the worst player, then writes the
protocol beside the journal."""
from __future__ import annotations

import asyncio
import io
import logging
import re
from pathlib import Path
from typing import TextIO

from voicehost.errors import InputError, VoicehostError
from voicehost.game.events import EventType, SeatEvent, event_to_json
from voicehost.game.host import HostDesk
from voicehost.game.model import Output, Phase
from voicehost.game.protocol import protocol_text
from voicehost.jsontypes import JSONObject
from voicehost.live.commands import (
    NOBODY,
    SEAT_COMMANDS,
    no_such_player,
    number,
    parse_command,
    random_roles,
    seat_past_table,
    shown,
)
from voicehost.live.ending import ProtocolWriteError, protocol_paths, write_protocol
from voicehost.live.evening import Evening, roster_names, seating_event
from voicehost.live.stdin import line_queue, next_line
from voicehost.live.table import LiveTable
from voicehost.live.texts import LiveTexts, rendered
from voicehost.phrasebook import Phrasebook
from voicehost.phrases.words import words_from_text

log = logging.getLogger(__name__)
_SILENCE = re.compile(r"^<([0-9]{1,5}(?:\.[0-9]{1,3})?)>$")
AWARDS = ("best_player", "worst_player")
PROMPTS = {"votes": "tally_prompt", "lift_votes": "lift_prompt", "shot": "shot_prompt",
           "candidates": "candidates_prompt", "resume": "resume_prompt"}


def status(live: LiveTable) -> str:
    game, texts = live.game, live.texts
    parts = []
    playing = game.phase not in (Phase.SETUP, Phase.GAME_OVER)
    if playing:
        parts.append(texts.where("night" if game.phase.is_night else "day",
                                 count=game.night if game.phase.is_night else game.day))
    if game.floor is not None:  # the labels are the phrasebook's [status] and [status_floor]
        left = round(game.state.clock.left(game.floor.end))  # stands still while paused
        floor = game.book.status_floor[game.floor.kind.value].format(seat=game.floor.seat)
        parts.append(floor + ", " + texts.where("left", count=left))
    else:
        parts.append(game.book.status.get(game.phase.value, game.phase.value))
    if game.today and playing and not game.phase.is_night:  # the day's nominees end with the day
        parts.append(texts.where("nominees", seats=game.today))
    if game.paused_at is not None:
        parts.append(texts.where("paused"))
    return "· " + " · ".join(parts)


def format_output(output: Output, book: Phrasebook, texts: LiveTexts) -> str:
    """One output as the terminal prints it: the game time, then the words."""
    minutes, seconds = divmod(int(output.t), 60)
    text = rendered(book, output)
    if output.kind == "suggest":
        what = texts.text("suggest_foul" if output.values.get("suggest") == "foul" else "suggest_disqualify")
        line = texts.text("suggestion", seat=output.values.get("seat"), word=text, what=what) \
            if "word" in output.values else f"? {text} — {what}?"   # out of turn: the seat is in the text
        return f"[{minutes:02d}:{seconds:02d}] {line}"
    mark = texts.text("private_mark") + " " if output.private else ""
    return f"[{minutes:02d}:{seconds:02d}] {mark}{text}"


def describe(event: JSONObject) -> str:
    """An input as the host would type it, to say what an undo took back."""
    kind = str(event.get("type", ""))
    command = {v: k for k, v in SEAT_COMMANDS.items()}.get(kind)
    if command:
        return f"{command} {event.get('seat') if event.get('seat') is not None else '-'}"
    if kind == "votes":
        counts = event.get("counts", {})
        return "/votes " + " ".join(f"{s}={c}" for s, c in (counts if isinstance(counts, dict) else {}).items())
    if kind == "lift_votes":
        return f"/lift {event.get('count')}"
    if kind in ("best_move", "candidates"):
        seats = event.get("seats", [])
        return f"/{'best' if kind == 'best_move' else 'candidates'} " + " ".join(
            map(str, seats if isinstance(seats, list) else []))
    return f"/{kind}"


class Terminal:
    """The host's terminal on a live table. `show_private`: print what only
    the host may know (roles, checks); off when a page serves them."""

    def __init__(self, live: LiveTable, out: TextIO, *, show_private: bool = True, page: bool = False,
                 protocol: Path | None = None, evening: Evening | None = None) -> None:
        self.live = live
        self.evening = evening
        self.out = out
        self.texts = live.texts
        self.show_private = show_private
        self.page = page
        self.protocol = protocol
        self.asking: list[str] = []
        self.asked = live.over  # a game resumed after its end has had its awards
        self.named = {kind for kind in AWARDS if getattr(live.game, kind) is not None}  # awards already given
        self.waiting: str | None = None
        self._holding = self._held = False   # a question held back while an undo is under way
        self.halted = asyncio.Event()  # the journal failed: stop reading at once
        self.desk = HostDesk(live.game.rules, live.game.max_seat)   # lines starting with ">"
        self._undo_heard: tuple[str, ...] = ()
        self._quitting = False   # the host typed /quit: an unfinished game writes no protocol
        self._written = ""   # the protocol as last written: the goodbye writes (and prints) it only if changed
        live.listeners.append(self.on_outputs)
        live.alarms.append(self.alarm)
        live.notices.append(self.notice)

    def notice(self, text: str) -> None:
        self.write("!!! " + text)

    def alarm(self, text: str) -> None:
        self.write("!!! " + text)
        self.halted.set()

    # ------------------------------------------------------------ output

    def write(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def on_outputs(self, outputs: list[Output]) -> None:
        for output in outputs:
            if output.private and not self.show_private:
                continue
            self.out.write(format_output(output, self.live.game.book, self.texts) + "\n")
        self.out.flush()
        self.prompt()

    def prompt(self) -> None:
        """Say at once what the game now waits for from the host."""
        game = self.live.game
        if game.phase is not Phase.GAME_OVER:   # an undo took the end back: it will be asked again
            self.asked, self.asking = False, []
        elif not self.asked:
            self.asked = True
            self.asking = [kind for kind in AWARDS if self._open(kind)]
            self.named = {kind for kind in AWARDS if getattr(game, kind) is not None}
            self._ask()
            return
        elif self._settle():
            return
        waiting = game.waiting_for()
        if waiting != self.waiting:
            self.waiting = waiting
            if waiting in PROMPTS:
                seats = " ".join(f"{seat}=N" for seat in game.candidates)
                self.write(self.texts.text(PROMPTS[waiting], seats=seats))

    def _settle(self) -> bool:
        """Drop the awards named elsewhere (the page) while the terminal asked
        for them, and ask again for one an undo (here or on the page) took
        back; True, with the next question asked, if the question changed."""
        game = self.live.game
        named = {kind for kind in AWARDS if getattr(game, kind) is not None}
        reopened, self.named = self.named - named, named
        head = self.asking[0] if self.asking else None
        self.asking = [kind for kind in AWARDS if (kind in self.asking or kind in reopened) and self._open(kind)]
        if (self.asking[0] if self.asking else None) == head:
            return False
        self._ask()
        return True

    def _open(self, award: str) -> bool:
        """Whether `award` can still be named (the page may have named it)."""
        game = self.live.game
        return game.fits(SeatEvent(EventType(award), 1)) and getattr(game, award) is None

    def _ask(self) -> None:
        if self._holding:
            self._held = True
            return
        if self.asking:
            self.write("> " + self.texts.text("ask_best" if self.asking[0] == "best_player" else "ask_worst"))
        elif self.save() is not None and self.evening is None:   # an evening's own line says what comes next
            self.write(self.texts.text("over_hint"))

    # ------------------------------------------------------------ input

    def handle(self, line: str) -> str | None:
        """Apply one typed line; returns 'quit', 'help', 'state', 'undo' for the REPL."""
        line = line.strip()
        if not line:
            return None
        if line.startswith(">"):   # the host speaking (SPEC §7.2), as the host's microphone would hear it
            return self._host(line[1:])
        if self.asking and not line.startswith("/"):
            self._award(line)
            return None
        if line.startswith("/"):
            command = parse_command(line, self.texts)
            if command == "deal":
                self._deal()
                return None
            if isinstance(command, str):
                return command
            if command["type"] == "seating":
                names, draw = command["names"], command["draw"]
                assert isinstance(names, list) and isinstance(draw, bool)   # as parse_command builds it
                command = seating_event([str(n) for n in names], draw, len(self.live.game.seats()),
                                        self.texts, self.evening.series if self.evening else None)
            elif command["type"] == "names" and self.evening is not None:   # the roster's names in a series
                given = command["names"]
                assert isinstance(given, dict)   # as parse_command builds it
                command = {"type": "names", "names": roster_names({str(k): str(v) for k, v in given.items()},
                                                                  self.evening.series, self.texts)}
            self.live.apply_json(command)
            if command["type"] == "protest":   # the protocol and the series follow the protest
                self.save()
            elif command["type"] == "names":   # only what this line changed
                self._names_done(command["names"])
            return None
        silence = _SILENCE.match(line)
        if silence:
            self.live.skip(float(silence.group(1)))
            return None
        self._speech(line)
        return None

    def _names_done(self, given: object) -> None:
        """`/names 2=Лев` confirmed: the seats it named, as the game now keeps them."""
        kept = self.live.game.state.record.names
        seats = sorted(int(seat) for seat in given) if isinstance(given, dict) else []
        self.write(self.texts.text("names_done", names=", ".join(
            f"{seat} — {kept.get(seat) or self.texts.text('name_none')}" for seat in seats)))

    def _host(self, text: str) -> str | None:
        """A host utterance: the input it makes, applied with its words and
        confirmed here; 'undo' for the REPL (its words kept for the journal)."""
        step = self.desk.take(text.split(), self.live.game_now())
        if step.undo:
            self._undo_heard = step.heard
            return "undo"
        if step.awaiting is not None:
            self.live.game.precheck(step.awaiting)
            self.write(self.texts.text("host_confirm_wanted", what=self.texts.input(event_to_json(step.awaiting))))
            return None
        assert step.event is not None
        self.live.apply(step.event, step.heard)
        self.write(self.texts.text("host_said", what=self.texts.input(event_to_json(step.event))))
        return None

    def _speech(self, line: str) -> None:
        live, game = self.live, self.live.game
        if game.floor is None:
            raise InputError(self.texts.text("nobody_speaks", status=status(live)[2:]))
        start = live.game_now()
        words = [w.shifted(start) for w in words_from_text(line)]
        if not words:
            return
        past = seat_past_table(words, game.grammar, self.texts, len(game.seats()))
        live.hear(words)
        live.clock.skip_to(words[-1].end + live.lag)
        live.tick()
        if past is not None:
            self.write(no_such_player(past, self.texts))

    def _deal(self) -> None:
        if not self.show_private and not self.page:
            raise InputError(self.texts.text("deal_refused"))
        roles = random_roles()
        self.live.apply_json({"type": "setup", "roles": roles})
        if self.show_private:
            named = ", ".join(f"{seat} — {self.texts.role(role)}" for seat, role in roles.items())
            self.write(self.texts.text("deal_private", roles=named))
        else:
            self.write(self.texts.text("deal_on_page"))

    def _award(self, answer: str) -> None:
        if self._settle():   # the page named it meanwhile: this answer was for a question no longer asked
            return
        kind = self.asking[0]
        if answer.lower() in NOBODY:
            self.asking.pop(0)
            self._ask()
            return
        seat = number(answer)
        if seat is None:
            raise InputError(self.texts.text("not_a_seat", word=shown(answer)))
        self.live.apply_json({"type": kind, "seat": seat})   # its announcement moves the questions on
        self._settle()

    def refusal(self, exc: VoicehostError) -> str:
        """One line in the table's language: the phrasebook's refusal when it has
        one for this error (the core's refusal keys, and those of input that
        cannot be read), else the error's own text."""
        if exc.key:
            try:
                return " ".join(self.live.game.book.refusal(exc).split())
            except (KeyError, ValueError, TypeError, VoicehostError):
                log.debug("no refusal text for %r", exc)
        return " ".join(str(exc).split())

    async def undo(self) -> None:
        self._holding = True   # a question the undo brings back comes after the line saying what it undid
        heard, self._undo_heard = self._undo_heard, ()
        try:
            undone = await self.live.undo_async(heard)
        finally:
            self._holding = False
        self.write(self.texts.text("undo_done", what=describe(undone)))
        if self.evening is not None and not self.page and self.live.over:
            self.save()   # a protest taken back after the end leaves the series too (the page's server does this there)
        self._release_question()

    def _release_question(self) -> None:
        """Ask the question held back while a line was applied, said and written down."""
        self._holding = False
        if self._held:
            self._held = False
            self._ask()

    # ------------------------------------------------------------ files

    def _unfinished_protocol_wanted(self) -> bool:
        """A finished game always; an unfinished one only when --protocol asked and the
        input ran out (a recording, a script), never on the host's /quit."""
        return self.live.over or (self.protocol is not None and not self._quitting)

    def save(self, *, file: bool = True) -> tuple[Path, Path] | None:
        """The protocol, JSON and CSV, beside the journal (or where --protocol says);
        `file`: an evening's finished game goes into its series too."""
        target = self.protocol or (protocol_paths(self.live.journal_path)[0] if self.live.journal_path else None)
        # An unfinished game has no protocol of its own (its journal goes on), unless the host asked for
        # one with --protocol: a recording or script that stops mid-game writes it, winner null, as simulate does.
        if target is None or not self._unfinished_protocol_wanted():
            return None
        written = protocol_text(self.live.game)
        try:
            paths = write_protocol(self.live, target)
        except ProtocolWriteError as exc:  # the journal still holds the game: the protocol can be replayed
            self.write("! " + self.texts.text("protocol_failed", path=exc.path, why=exc.why))
            return None
        self._written = written
        self.write(self.texts.text("protocol_at", json=paths[0], csv=paths[1]))
        if self.live.over:
            self._exports(target)
            if self.evening is not None and file:
                self._file()
        return paths

    def _file(self) -> None:
        """An evening's game into its series, and the standings after it."""
        assert self.evening is not None
        try:
            lines = self.evening.file(self.live)
        except VoicehostError as exc:
            self.write("! " + self.refusal(exc))
            return
        except OSError as exc:
            self.write("! " + self.texts.text("protocol_failed", path=self.evening.series.folder,
                                              why=exc.strerror or exc))
            return
        for line in lines:
            self.write(line)

    def _exports(self, protocol: Path) -> None:
        """The rating platforms' records beside the protocol, where the game has them."""
        from voicehost.export import write_exports

        try:
            written = write_exports(self.live.journaled, protocol)
        except VoicehostError as exc:  # the city variant has no rating record
            log.info("no rating-platform records: %s", exc)
            return
        except OSError as exc:
            self.write("! " + self.texts.text("exports_failed", why=exc.strerror or exc))
            return
        self.write(self.texts.text("exports_at", paths=", ".join(map(str, written))))

    def goodbye(self) -> None:
        """Where the journal and the protocol are; no journal if no game was dealt."""
        journal = self.live.journal
        if journal is None or not journal.started:
            self.write(self.texts.text("no_game"))
            return
        if self._unfinished_protocol_wanted() and protocol_text(self.live.game) != self._written:
            self.save(file=False)   # an evening's game was filed when it ended (or protested)
        self.write(self.texts.text("journal_at", path=journal.path))

    # ------------------------------------------------------------ the REPL

    async def run(self, stdin: TextIO, stop: asyncio.Event) -> str | None:
        """Read and apply lines until /quit, the end of input, `stop` (Ctrl-C)
        or a journal failure. Reading never holds up the loop and never
        outlives it: a daemon thread hands the lines over."""
        lines, stop_reading = line_queue(stdin, asyncio.get_running_loop())
        try:
            return await self._repl(lines, stop)
        finally:
            stop_reading()

    async def play(self, lines: asyncio.Queue[str | None], stop: asyncio.Event) -> str | None:
        """The lines of one game from a queue that outlives it (an evening's
        games read one stdin); 'new' when the host starts the next game."""
        return await self._repl(lines, stop)

    async def _repl(self, lines: asyncio.Queue[str | None], stop: asyncio.Event) -> str | None:
        await self.live.synced()  # what the table said before (a game back, paused) comes first
        self.write(self.texts.text("journal_at", path=self.live.journal_path))
        self.write(status(self.live))
        self.prompt()
        while self.live.failure is None:
            line = await next_line(lines, stop, self.halted)
            if line is None:
                break
            self._holding = True   # a question this line brings comes after what the line made the table say
            try:
                verdict = self.handle(line)
                if verdict == "undo":
                    await self.undo()
                await self.live.synced()  # the status line means: taken and on disk
            except VoicehostError as exc:
                self.write("! " + self.refusal(exc))
                verdict = None
            self._release_question()
            if verdict == "new":
                if self.evening is not None and self.live.over:
                    return "new"
                self.write("! " + self.texts.text("evening_not_over"))
                verdict = None
            if verdict == "quit":
                self._quitting = True
                self._pause_to_quit()
                break
            if self.live.failure is not None:
                break
            if verdict == "help":
                self.write(self.texts.text("help"))
            self.write(status(self.live))
        return None


    def _pause_to_quit(self) -> None:
        """A game the host leaves with /quit stands paused in its journal: its
        clocks wait, and a resume knows the game was stopped, not broken off."""
        game = self.live.game
        if self.live.over or game.phase is Phase.SETUP or game.paused_at is not None:
            return
        try:
            self.live.apply_json({"type": "pause"})
        except VoicehostError as exc:   # a phase that takes no pause: the resume pauses it
            log.info("no pause before quitting: %s", exc)


def handle_line(live: LiveTable, line: str) -> str | None:
    """One typed line on a table without a terminal of its own (tests, tools)."""
    return Terminal(live, io.StringIO()).handle(line)
