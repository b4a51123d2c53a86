"""A microphone per seat (SPEC §7.1): who is speaking, frame by frame.

Every seat's channel goes through a voice-activity detector (WebRTC's, from
the `webrtcvad-wheels` package: no model to load, a few hundred bytes of
state per seat, 0.1 % of one core for ten channels here, where Silero's
ONNX model took 5.8 % and 22 MB). A frame of voice belongs to the channels
that hear it loudest: a channel `BLEED_DB` or more below the loudest is
bleed (the speaker's voice leaking into a neighbour's lavalier), never its
seat's voice. Only the speaker's channel reaches the recognizer, and its
bleed frames (another seat talking, the speaker silent) reach it as silence,
so another player's "выставляю седьмого" never nominates in the speaker's
name. Voice on another seat's channel longer than `[audio] out_of_turn_ms`
while someone holds the floor becomes one `OutOfTurn` for the host."""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from voicehost.audio import AudioError
from voicehost.game.events import OutOfTurn

FRAME_SECONDS = 0.02           # what the detector judges: 20 ms at 16 kHz
FRAME_BYTES = 640
BLEED_DB = 10.0                # this far below the loudest channel: bleed
SILENT_DB = -55.0              # below this (dBFS) a channel hears nothing at all
HANGOVER_SECONDS = 0.3         # a pause this short does not end a seat's speech
VAD_MODE = 2                   # webrtcvad's aggressiveness, 0..3


def level_db(pcm: bytes) -> float:
    """A frame's RMS level in dB of full scale."""
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32)
    if not len(samples):
        return -math.inf
    rms = float(np.sqrt(np.mean(samples * samples)))
    return 20 * math.log10(rms / 32768) if rms > 0 else -math.inf


class Voices(Protocol):
    """What the board and the host are told of the seats' voices, by channel or by direction."""

    heard: set[int]
    told_silent: bool

    @property
    def seats(self) -> Iterable[int]: ...

    @property
    def speaking(self) -> frozenset[int]: ...


@dataclass
class _Run:
    """A seat's current stretch of voice, in stream seconds."""

    start: float
    last: float
    flagged: bool = False


@dataclass
class SeatVoices:
    """Voice activity of the seats' channels; `out_of_turn` in seconds."""

    seats: Iterable[int]
    out_of_turn: float = 0.7
    runs: dict[int, _Run] = field(default_factory=dict)
    heard: set[int] = field(default_factory=set)   # seats whose channel has had voice at all
    told_silent: bool = False   # the silent channels are named to the host once

    def __post_init__(self) -> None:
        try:
            import webrtcvad
        except ImportError:
            raise AudioError("a microphone per seat ([audio] channels) needs webrtcvad-wheels: run scripts/setup "
                             "(or pip install 'voicehost[live]')") from None

        self.seats = tuple(self.seats)
        self._vads = {seat: webrtcvad.Vad(VAD_MODE) for seat in self.seats}

    @property
    def speaking(self) -> frozenset[int]:
        """The seats speaking now (their voice not yet past the hangover)."""
        return frozenset(self.runs)

    def chunk(self, chunks: dict[int, bytes], t: float, speaker: int | None) -> tuple[bytes | None, list[OutOfTurn]]:
        """One chunk of every seat's channel starting at stream time `t`: the
        speaker's audio with its bleed silenced (None when no seat holds the
        floor), and the out-of-turn speech that just passed the limit."""
        length = min((len(c) for c in chunks.values()), default=0)
        kept = bytearray(chunks[speaker][:length]) if speaker in chunks else None
        flagged: list[OutOfTurn] = []
        for offset in range(0, length - FRAME_BYTES + 1, FRAME_BYTES):
            start = t + offset / 2 / 16_000
            voiced = self._frame({seat: c[offset:offset + FRAME_BYTES] for seat, c in chunks.items()})
            if kept is not None and speaker not in voiced and voiced:
                kept[offset:offset + FRAME_BYTES] = bytes(FRAME_BYTES)   # bleed: another seat speaks
            flagged += self._follow(voiced, start, speaker)
        return (bytes(kept) if kept is not None else None), flagged

    def _frame(self, frames: dict[int, bytes]) -> set[int]:
        """The seats whose own voice is in this frame: voice, and not bleed."""
        levels = {seat: level_db(pcm) for seat, pcm in frames.items()}
        loudest = max(levels.values(), default=-math.inf)
        return {seat for seat, pcm in frames.items()
                if levels[seat] > SILENT_DB and levels[seat] >= loudest - BLEED_DB
                and self._vads[seat].is_speech(pcm, 16_000)}

    def _follow(self, voiced: set[int], t: float, speaker: int | None) -> list[OutOfTurn]:
        end = t + FRAME_SECONDS
        for seat in voiced:
            run = self.runs.get(seat)
            if run is None:
                self.runs[seat] = _Run(t, end)
            else:
                run.last = end
            self.heard.add(seat)
        flagged = []
        for seat, run in list(self.runs.items()):
            if seat not in voiced and t - run.last > HANGOVER_SECONDS:
                del self.runs[seat]
            elif speaker is not None and seat != speaker and not run.flagged \
                    and run.last - run.start > self.out_of_turn:
                run.flagged = True   # once per stretch of speech
                flagged.append(OutOfTurn(seat, run.start, run.last))
        return flagged


__all__ = ["SeatVoices", "Voices", "level_db"]
