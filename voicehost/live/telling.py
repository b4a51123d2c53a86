"""What the table says, on its way out: `Teller` plays the announcements on
the speaker and pushes the outputs to the listeners (the page, the
terminal). The answers (live/answers.py) hand it each answer once the inputs
that made it are on disk; nothing goes back up into the table."""
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from voicehost.game.model import Output
from voicehost.live.texts import rendered

if TYPE_CHECKING:
    from voicehost.live.playback import Speaker
    from voicehost.phrasebook import Phrasebook

log = logging.getLogger(__name__)

Listener = Callable[[list[Output]], None]
# Suggestions said in the host's earpiece too (SPEC §7.1: out-of-turn speech)
EARPIECE = frozenset({"out_of_turn"})


class Teller:
    """`book()`: the game's phrasebook, the sentences are rendered from."""

    def __init__(self, speaker: Speaker | None, book: Callable[[], Phrasebook]) -> None:
        self.speaker = speaker
        self.book = book
        self.listeners: list[Listener] = []

    def __call__(self, outputs: list[Output], changed: bool) -> None:
        """Say the announcements (public on the table, private in the earpiece), then show everything."""
        for output in outputs:
            if self.speaker is not None and (output.kind == "say" or output.key in EARPIECE):
                self.speaker.say(rendered(self.book(), output), private=output.private, at=output.t)
        if outputs or changed:
            for listener in list(self.listeners):
                try:
                    listener(outputs)
                except Exception:  # a listener must never stop the game
                    log.exception("output listener failed")


__all__ = ["Listener", "Teller"]
