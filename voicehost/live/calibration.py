"""`voicehost calibrate` (SPEC §7.1): the walk that measures each seat's
direction from a microphone array in the middle of the table. The table asks
every seat in turn to say a phrase; the array's audio is cut into utterances
(voice, then a pause), each utterance located (voicehost.live.direction), and
the seats' angles are written to the settings as `[table] seats`. An unclear
direction is asked again; at the keyboard the host may repeat any seat.

The walk reads blocks of the array's microphones (int16, mics x samples, 16 kHz)
from a live device or a recording of the walk (`--audio-file`)."""
from __future__ import annotations

import argparse
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TextIO

import numpy as np

from voicehost.array import ArrayGeometry, gap, mic_map
from voicehost.audio import AudioError
from voicehost.config import Config, default_config_path, load_settings
from voicehost.errors import ConfigError, InputError, VoicehostError
from voicehost.game.variants import variant_for
from voicehost.live.playback import Speaker
from voicehost.live.texts import live_texts
from voicehost.livetexts import LiveTexts
from voicehost.paths import ROOT
from voicehost.rules import RuleOptions

log = logging.getLogger(__name__)

RATE = 16_000
FRAME = 320                 # 20 ms: what the voice detector judges
PAUSE_SECONDS = 0.6         # this much silence ends an utterance
SHORTEST_SECONDS = 0.4      # less voice than this is a cough, not the phrase
LONGEST_SECONDS = 8.0       # an utterance is cut here (someone talks on)
TRIES = 3                   # a seat is asked this many times before it is left unmeasured
CLEAR = 0.5                 # a located utterance's confidence below this: asked again
CLOSE_DEGREES = 15.0        # two seats nearer than this cannot be told apart

Locate = Callable[[np.ndarray], tuple[float, float]]


@dataclass
class Utterance:
    """The array's samples of one stretch of voice; `start`/`end` in stream seconds."""

    start: float
    end: float
    samples: np.ndarray


@dataclass
class Cutter:
    """Cuts the array's blocks into utterances by voice activity on the mics' mix."""

    voice: Callable[[bytes], bool]
    t: float = 0.0
    frames: list[np.ndarray] = field(default_factory=list)
    voiced: int = 0
    quiet: int = 0
    start: float = 0.0

    def feed(self, block: np.ndarray) -> list[Utterance]:
        out = []
        for offset in range(0, block.shape[1] - FRAME + 1, FRAME):
            frame = block[:, offset:offset + FRAME]
            done = self._frame(frame, self.voice(frame.mean(axis=0).astype("<i2").tobytes()))
            if done is not None:
                out.append(done)
            self.t += FRAME / RATE
        return out

    def _frame(self, frame: np.ndarray, speech: bool) -> Utterance | None:
        if not self.frames and not speech:
            return None
        if not self.frames:
            self.start = self.t
        self.frames.append(frame)
        self.voiced += speech
        self.quiet = 0 if speech else self.quiet + 1
        if self.quiet * FRAME / RATE < PAUSE_SECONDS and len(self.frames) * FRAME / RATE < LONGEST_SECONDS:
            return None
        kept = self.frames[:len(self.frames) - self.quiet] if self.quiet else self.frames
        voiced, start = self.voiced, self.start
        self.frames, self.voiced, self.quiet = [], 0, 0
        if voiced * FRAME / RATE < SHORTEST_SECONDS:
            return None
        return Utterance(start, start + len(kept) * FRAME / RATE, np.concatenate(kept, axis=1))


def webrtc_voice() -> Callable[[bytes], bool]:
    try:
        import webrtcvad
    except ImportError:
        raise AudioError("the calibration walk needs webrtcvad-wheels: run scripts/setup "
                               "(or pip install 'voicehost[live]')") from None
    vad = webrtcvad.Vad(2)
    return lambda pcm: bool(vad.is_speech(pcm, RATE))


def utterances(blocks: Iterator[np.ndarray], voice: Callable[[bytes], bool]) -> Iterator[Utterance]:
    cutter = Cutter(voice)
    for block in blocks:
        yield from cutter.feed(block)
    if cutter.frames:   # the recording ends mid-utterance: a pause closes it (twice: the detector holds on a little)
        yield from cutter.feed(np.zeros((cutter.frames[0].shape[0], int(2 * PAUSE_SECONDS * RATE)), np.int16))


class Walk:
    """The walk over the seats: `tell` says a line (printed, and spoken when the
    table has a voice: back once it has been said); `listen()` is what the
    array hears from then on (a microphone opened after the line, so the table's
    own voice is never located; or the recording of a walk, read on);
    `repeat(seat)` asks the host whether to measure a seat again."""

    def __init__(self, texts: LiveTexts, locate: Locate, tell: Callable[[str], None],
                 listen: Callable[[], Iterator[Utterance]], repeat: Callable[[int], bool] = lambda seat: False) -> None:
        self.texts, self.locate, self.tell, self.listen, self.repeat = texts, locate, tell, listen, repeat

    def run(self, seats: list[int]) -> dict[int, float]:
        self.tell(self.texts.text("calibrate_start", count=len(seats)))
        angles: dict[int, float] = {}
        for seat in seats:
            while True:
                angle = self._seat(seat)
                if angle is not None:
                    angles[seat] = angle
                if not self.repeat(seat):
                    break
        for line in close_seats(angles, self.texts):
            self.tell(line)
        return angles

    def _seat(self, seat: int) -> float | None:
        self.tell(self.texts.text("calibrate_seat", seat=seat))
        for attempt in range(TRIES):
            utterance = next(self.listen(), None)   # None: nobody spoke in time, or the recording ended
            if utterance is not None:
                angle, confidence = self.locate(utterance.samples)
                log.info("seat %d: %.1f degrees, confidence %.2f (%.1f-%.1f s)", seat, angle, confidence,
                         utterance.start, utterance.end)
                if confidence >= CLEAR:
                    self.tell(self.texts.text("calibrate_heard", seat=seat, angle=f"{angle:.0f}"))
                    return round(angle % 360, 1)
            if attempt < TRIES - 1:
                self.tell(self.texts.text("calibrate_again", seat=seat))
        self.tell(self.texts.text("calibrate_missed", seat=seat))
        return None


def close_seats(angles: dict[int, float], texts: LiveTexts) -> list[str]:
    """A line for every two neighbouring seats the array cannot tell apart."""
    ordered = sorted(angles, key=lambda s: angles[s])
    pairs = [(ordered[i], ordered[(i + 1) % len(ordered)]) for i in range(len(ordered) if len(ordered) > 2 else 1)]
    pairs = [(a, b) for a, b in pairs if a != b]
    return [texts.text("calibrate_close", first=min(a, b), second=max(a, b), degrees=f"{gap(angles[a], angles[b]):.0f}")
            for a, b in pairs if gap(angles[a], angles[b]) < CLOSE_DEGREES]


TABLE_SECTION = re.compile(r"^\[table\][^\n]*\n(?:(?!\[)[^\n]*\n?)*", re.MULTILINE)


def save_angles(path: Path, angles: dict[int, float], when: str) -> None:
    """`[table] seats` in the settings file, the rest of it kept as it was."""
    seats = ", ".join(f"{seat} = {angle:.1f}" for seat, angle in sorted(angles.items()))
    section = (f"[table]\n# each seat's direction from the array, degrees: measured by `voicehost calibrate` "
               f"on {when}\nseats = {{ {seats} }}\n")
    try:
        text = path.read_text("utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the settings to add the seats' directions: {exc}") from None
    if TABLE_SECTION.search(text):
        text = TABLE_SECTION.sub(lambda m: section + ("\n" if m.group(0).endswith("\n\n") else ""), text, count=1)
    else:
        text = text + ("\n" if text and not text.endswith("\n") else "") + ("\n" if text else "") + section
    try:
        path.write_text(text, "utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write the seats' directions: {exc}") from None


def ask_repeat(stdin: TextIO, out: TextIO, texts: LiveTexts) -> Callable[[int], bool]:
    """At the keyboard: Enter goes on, «п» (or r) measures the seat again."""
    def repeat(seat: int) -> bool:
        out.write(texts.text("calibrate_ask", seat=seat) + " ")
        out.flush()
        line = stdin.readline()
        return line.strip().lower() in ("п", "r", "повтор", "повторить", "повторити")
    return repeat




# ------------------------------------------------------------------ the command

LISTEN_SECONDS = 10.0   # a live seat silent this long: asked again


def _live(geometry: ArrayGeometry, device: str) -> Callable[[], Iterator[Utterance]]:
    """A microphone opened after each line: one utterance, or none within LISTEN_SECONDS."""
    from voicehost.audio import ChannelMicrophone
    from voicehost.live.direction import blocks_of

    mapped = mic_map(geometry)
    voice = webrtc_voice()

    def listen() -> Iterator[Utterance]:
        source = ChannelMicrophone(mapped, device)
        try:
            cutter = Cutter(voice)
            for block in blocks_of(source.frames(), mapped.channels):
                done = cutter.feed(block)
                if done:
                    yield done[0]
                    return
                if cutter.t > LISTEN_SECONDS and not cutter.frames:
                    return
        finally:
            source.close()
    return listen


def _recorded(geometry: ArrayGeometry, path: Path) -> Callable[[], Iterator[Utterance]]:
    """The recording of a walk, read on from seat to seat."""
    from voicehost.audio import WavFileChannels
    from voicehost.live.direction import blocks_of

    mapped = mic_map(geometry)
    heard = utterances(blocks_of(WavFileChannels(path, mapped).frames(), mapped.channels), webrtc_voice())
    return lambda: heard


def calibrate(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    """`voicehost calibrate`: each seat's direction into `[table] seats`."""
    from voicehost.live.direction import locate

    config, rules = load_settings(args.config, args.ruleset, args.overrides)
    geometry = config.audio.array
    if geometry is None:
        raise ConfigError(f"{config.source or 'the settings'}: no [audio] array to calibrate "
                          "(e.g. array = \"respeaker-6\")")
    texts = live_texts(rules.phrasebook)
    path = args.config or default_config_path() or ROOT / "config.toml"
    size = variant_for(rules).max_seat
    wrong = [seat for seat in args.seat if not 1 <= seat <= size]
    if wrong:
        raise InputError(f"--seat {wrong[0]}: the table's seats are 1 to {size}")
    seats = sorted(set(args.seat)) or list(range(1, size + 1))
    recording = args.audio_file is not None
    speaker = None if args.mute or recording else _speaker(config, rules)

    def tell(text: str) -> None:
        out.write(text + "\n")
        out.flush()
        if speaker is not None:
            speaker.say(text)
            speaker.wait(30)

    listen = _recorded(geometry, args.audio_file) if recording else _live(geometry, config.audio.input_device)
    repeat = (lambda seat: False) if recording or not stdin.isatty() else ask_repeat(stdin, out, texts)
    try:
        angles = Walk(texts, lambda block: locate(geometry, block), tell, listen, repeat).run(seats)
    finally:
        if speaker is not None:
            speaker.close()
    if not angles:
        tell(texts.text("calibrate_none"))
        return 1
    save_angles(path, {**config.table.seats, **angles}, date.today().isoformat())
    tell(texts.text("calibrate_saved", count=len(angles), path=path))
    return 0 if len(angles) == len(seats) else 1


def _speaker(config: Config, rules: RuleOptions) -> Speaker | None:
    from voicehost.audio import SpeakerSink
    from voicehost.tts import open_voice

    try:
        sink = SpeakerSink(config.audio.table_device or None)
        voice = open_voice(config.voice_file(rules.language), config.tts.espeak_voice or rules.language)
    except VoicehostError as exc:
        log.info("calibrating without a voice: %s", exc)
        return None
    return Speaker(voice, sink, None, lambda: 0.0, tail=0.0)


__all__ = ["Cutter", "Utterance", "Walk", "ask_repeat", "calibrate", "close_seats", "save_angles", "utterances",
           "webrtc_voice"]
