"""Speech synthesis: a Piper voice when one is configured, espeak-ng as the
built-in fallback. Voices yield clips; playing them is the live table's
speaker's job (voicehost.live.playback). Rendered clips can be kept in a
folder keyed by voice and text (`cached_render`), so the fixed announcements
are synthesized once, not every evening."""
from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import shutil
import subprocess
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from voicehost.audio import Clip
from voicehost.errors import VoicehostError

log = logging.getLogger(__name__)


class VoiceError(VoicehostError):
    """A voice that cannot be loaded or cannot speak."""


class Voice(Protocol):
    name: str

    def synthesize(self, text: str) -> Iterator[Clip]: ...


class PiperVoice:
    """A Piper .onnx voice; yields one clip per sentence as it is synthesized."""

    def __init__(self, model: Path, config: Path | None = None) -> None:
        if not model.is_file():
            raise VoiceError(f"no Piper voice at {model}: run `voicehost models download`")
        config = config or model.with_name(model.name + ".json")
        if not config.is_file():
            raise VoiceError(f"the Piper voice {model.name} has no config ({config.name}) beside it")
        try:
            from piper import PiperVoice as _Piper
        except ImportError:
            raise VoiceError("the piper-tts package is not installed: run scripts/setup") from None
        try:
            self._voice = _load_piper(_Piper, model, config)
        except Exception as exc:
            raise VoiceError(f"the Piper voice {model} is broken ({type(exc).__name__}): "
                             f"download it again with `voicehost models download`") from None
        self.name = model.stem
        self.rate = self._voice.config.sample_rate
        self.model, self.config = model, config

    def synthesize(self, text: str) -> Iterator[Clip]:
        for chunk in self._voice.synthesize(text):
            yield Clip(chunk.audio_int16_bytes, chunk.sample_rate)

    def render_apart(self, texts: list[str], folder: Path) -> bool:
        """Render `texts` into `folder` (as `cached_render` does) in a child
        process, so this one never holds a synthesis: Piper's buffers grow with
        the longest line (12 s of speech took 280 MB) and the heap keeps what
        it took, so a first start that rendered the table's lines here went
        on to the game 800 MB large. False when the child failed (the caller
        renders what is missing itself)."""
        import json
        import sys

        job = json.dumps({"model": str(self.model), "config": str(self.config), "folder": str(folder),
                          "texts": texts}, ensure_ascii=False)
        try:
            done = subprocess.run([sys.executable, "-c", "from voicehost.tts import _render_job; _render_job()"],
                                  input=job, capture_output=True, text=True, encoding="utf-8",
                                  timeout=60 + 10 * len(texts))
        except (OSError, subprocess.TimeoutExpired) as exc:
            log.warning("could not render the announcements apart: %s", exc)
            return False
        if done.returncode != 0:
            log.warning("rendering the announcements apart failed: %s", done.stderr.strip()[-300:])
            return False
        return True


def _render_job() -> None:
    """`PiperVoice.render_apart`'s child: the job as JSON on standard input."""
    import json
    import sys

    job = json.loads(sys.stdin.read())
    voice = PiperVoice(Path(job["model"]), Path(job["config"]))
    for text in job["texts"]:
        cached_render(voice, text, Path(job["folder"]))


def _load_piper(piper_class: Any, model: Path, config: Path) -> Any:
    """The voice with onnxruntime's memory arena off: with it, a long sentence
    grows the process by 230 MB that is never given back; at the table Piper
    mostly plays cached clips, so the arena's speed-up is not worth it."""
    import json

    import onnxruntime
    from piper.config import PiperConfig

    options = onnxruntime.SessionOptions()
    options.enable_cpu_mem_arena = False
    options.intra_op_num_threads = 1
    try:
        session = onnxruntime.InferenceSession(str(model), sess_options=options,
                                               providers=["CPUExecutionProvider"])
        return piper_class(config=PiperConfig.from_dict(json.loads(config.read_text("utf-8"))),
                           session=session)
    except TypeError:  # another piper-tts release: its own loader, arena and all
        return piper_class.load(model, config_path=config)


class EspeakVoice:
    """The built-in fallback: espeak-ng, which speaks Russian and Ukrainian."""

    def __init__(self, language: str = "ru", speed: int = 165) -> None:
        self.binary = shutil.which("espeak-ng")
        if self.binary is None:
            raise VoiceError("espeak-ng is not installed: run scripts/setup (or apt-get install espeak-ng)")
        self.language = language
        self.speed = speed
        self.name = f"espeak-ng:{language}"

    def synthesize(self, text: str) -> Iterator[Clip]:
        try:
            wav = subprocess.run([str(self.binary), "-v", self.language, "-s", str(self.speed), "--stdout", text],
                                 capture_output=True, check=True, timeout=30).stdout
        except (subprocess.SubprocessError, OSError) as exc:
            raise VoiceError(f"espeak-ng failed: {exc}") from None
        with wave.open(io.BytesIO(wav)) as reader:
            yield Clip(reader.readframes(reader.getnframes()), reader.getframerate())


def open_voice(piper_model: Path | None, language: str) -> Voice:
    """The configured Piper voice, else espeak-ng; says why when it falls back."""
    if piper_model is not None:
        try:
            return PiperVoice(piper_model)
        except VoiceError as exc:
            log.info("%s; speaking with espeak-ng instead", exc)   # the log's, not the host's screen
    return EspeakVoice(language)


def render(voice: Voice, text: str) -> Clip:
    clips = list(voice.synthesize(text))
    if not clips:
        return Clip(b"", 16_000)
    rate = clips[0].rate
    return Clip(b"".join(c.pcm for c in clips), rate)


def cache_path(voice: Voice, text: str, folder: Path) -> Path:
    key = hashlib.sha256(f"{voice.name}\n{text}".encode()).hexdigest()[:24]
    return folder / f"{key}.wav"


def read_clip(path: Path) -> Clip | None:
    try:
        with wave.open(str(path), "rb") as reader:
            return Clip(reader.readframes(reader.getnframes()), reader.getframerate())
    except (OSError, wave.Error, EOFError):
        return None


def cached_render(voice: Voice, text: str, folder: Path | None) -> Clip:
    """The clip of `text`, from `folder` when it was rendered before, else
    rendered (and written there, when the disk lets it: the clip is said
    all the same)."""
    if folder is None:
        return render(voice, text)
    path = cache_path(voice, text, folder)
    if path.is_file():
        clip = read_clip(path)
        if clip is not None:
            return clip
        path.unlink(missing_ok=True)
    clip = render(voice, text)
    part = path.with_suffix(".part")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with wave.open(str(part), "wb") as writer:
            writer.setnchannels(1)
            writer.setsampwidth(2)
            writer.setframerate(clip.rate)
            writer.writeframes(clip.pcm)
        part.replace(path)
    except OSError as exc:   # a full or read-only disk, or no folder: rendered again next time
        log.warning("could not keep %r in %s: %s", text, folder, exc.strerror or exc)
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)
    return clip
