"""The host's spoken commands at a live table (SPEC §7.2).

Audio reaches `HostVoice.audio`: the host's own channel (`[audio] channels`
has "host"), or, with one microphone and `[host] wake_word` set, the table's
microphone itself. A small grammar recognizer of the command words
(voicehost.asr.commands) gives whole utterances; each becomes a step of the
`HostDesk` (the parser, then the same event the page and typed play make,
judged by the game's admission) and is confirmed: on the host's channel
privately (earpiece, page, terminal), on a shared microphone aloud
("Ведущий: фол игроку 3"), where "отмена" within 10 s takes it back. A
refusal goes to the host's earpiece in the table's language; on a shared
microphone, speech that does not start with the wake word is nobody's
command and is passed over in silence."""
from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from voicehost.asr.model_files import SpeechModel
from voicehost.audio import RATE
from voicehost.config import Config
from voicehost.errors import VoicehostError
from voicehost.game.events import event_to_json
from voicehost.game.host import HostDesk
from voicehost.game.model import Output, OutputKind
from voicehost.jsontypes import JSONObject
from voicehost.live.table import LiveTable
from voicehost.phrases.grammar import normalize
from voicehost.phrases.host import HostGrammar
from voicehost.refusals import RefuseKey

log = logging.getLogger(__name__)


class Commands(Protocol):
    """Whole utterances of the command words (voicehost.asr.commands.CommandRecognizer)."""

    def accept(self, pcm: bytes) -> list[str] | None: ...

    def partial(self) -> list[str]: ...

    def finish(self) -> list[str]: ...


class HostVoice:
    """`aloud`: a shared microphone, where every command is said back on the table."""

    def __init__(self, live: LiveTable, recognizer: Commands, *, wake: bool, wake_word: str = "",
                 grammar: HostGrammar | None = None) -> None:
        self.live = live
        self.recognizer = recognizer
        self.aloud = wake
        self.desk = HostDesk(live.game.rules, live.game.max_seat, wake=wake, wake_word=wake_word, grammar=grammar)
        self.tasks: set[asyncio.Task[None]] = set()
        self._seen: list[str] = []          # the utterance's partial words at the last chunk
        self._taken: list[str] | None = None   # a command taken from them before the utterance ended

    def attach(self) -> None:
        """Listen to what the hearing stage hands the host (voicehost.live.hearing)."""
        self.live.hearing.host_audio = self.audio

    def audio(self, pcm: bytes, t: float) -> None:
        """A chunk of the host's audio starting at game time `t`. A command that
        nothing can extend ("пауза", "фол третьему") is taken once its partial
        words stood for a chunk, without waiting for the utterance's end; a
        tally waits for the end (another candidate may follow)."""
        now = t + len(pcm) / 2 / RATE
        words = self.recognizer.accept(pcm)
        if words is None:
            self._early(self.recognizer.partial(), now)
            return
        self._ended(words, now)

    def finish(self, t: float) -> None:
        self._ended(self.recognizer.finish(), t)

    def _early(self, partial: list[str], now: float) -> None:
        seen, self._seen = self._seen, partial
        if partial and partial == seen and self._taken is None and self.desk.complete(partial, now):
            self._taken = partial
            self.utterance(partial, now)

    def _ended(self, words: list[str], now: float) -> None:
        taken, self._taken, self._seen = self._taken, None, []
        if taken is not None:
            if words != taken:
                log.info("host command taken as %r, its utterance ended as %r", taken, words)
            return
        if words:
            self.utterance(words, now)

    def utterance(self, words: list[str], now: float) -> None:
        """One utterance heard at game time `now`: applied, undone, or awaiting its confirmation."""
        log.info("host said: %s", " ".join(words))
        try:
            step = self.desk.take(words, now)
            if step.undo:
                self._undo(step.heard)
            elif step.awaiting is not None:
                self.live.game.precheck(step.awaiting)
                self._tell("host_confirm", event_to_json(step.awaiting), private=not self.aloud)
            else:
                assert step.event is not None
                self.live.apply(step.event, step.heard)
                self._tell("host_said", event_to_json(step.event), private=not self.aloud)
        except VoicehostError as exc:
            if exc.key is RefuseKey.NO_WAKE_WORD:
                return   # table talk, not a command
            self._refuse(exc)

    def _refuse(self, exc: VoicehostError) -> None:
        """The reason, in the host's earpiece, in the table's language."""
        log.info("host command refused: %s", exc)
        detail = " ".join(self.live.game.book.refusal(exc).split())
        self.live.tell([Output(self.live.game.now, OutputKind.SAY, "host_refused", True, {"detail": detail})])

    def _tell(self, key: str, event: JSONObject, *, private: bool) -> None:
        detail = self.live.texts.input(event)
        self.live.tell([Output(self.live.game.now, OutputKind.SAY, key, private, {"detail": detail})])

    def _undo(self, heard: tuple[str, ...]) -> None:
        """Take the last host input back off the loop's hands (the game is rebuilt in an executor)."""
        task = asyncio.get_running_loop().create_task(self._undo_now(heard), name="host-undo")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _undo_now(self, heard: tuple[str, ...]) -> None:
        try:
            await self.live.undo_async(heard)
        except asyncio.CancelledError:
            raise
        except VoicehostError as exc:
            self._refuse(exc)

    async def settled(self) -> None:
        """Wait for the undos under way (a recording's end, a test)."""
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)




def host_voice(config: Config, live: LiveTable, model: SpeechModel | None) -> HostVoice | None:
    """The host's spoken commands at this table, listening on `model`: on the
    host's channel if `[audio] channels` maps one, else behind `[host] wake_word`
    on the shared microphone; None when neither is set (commands are off)."""
    from voicehost.asr.commands import CommandRecognizer
    from voicehost.phrases.host import load_host_grammar

    wake_word = normalize(config.host.wake_word)
    channel = config.audio.channels.host is not None
    if model is None or (not channel and not wake_word):
        return None
    grammar = load_host_grammar(live.game.rules.language)
    words = grammar.words() | set((wake_word or grammar.wake_word).split())
    voice = HostVoice(live, CommandRecognizer(model, words), wake=not channel, wake_word=wake_word)
    voice.attach()
    log.info("host commands: %s", "on the host's channel" if channel else f"behind the wake word {wake_word!r}")
    return voice


def model_of(recognizer: object) -> SpeechModel | None:
    """The loaded model a table's recognizer decodes with (shared, loaded once)."""
    model: SpeechModel | None = getattr(recognizer, "model", None) or getattr(
        getattr(recognizer, "decider", None), "model", None)
    return model


__all__ = ["Commands", "HostVoice", "host_voice", "model_of"]
