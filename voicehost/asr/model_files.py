"""A Vosk model on disk: whether a folder is one, its low-latency view,
loading it once, and asking it about a word."""
from __future__ import annotations

import hashlib
import logging
import shutil
from pathlib import Path
from typing import Protocol

from voicehost.errors import VoicehostError

log = logging.getLogger(__name__)


class AsrError(VoicehostError):
    """A model that cannot be loaded, or a recognizer that cannot start."""



def model_problem(model_dir: Path) -> str | None:
    """Why a folder is not a usable Vosk model, or None if it looks like one."""
    if not model_dir.exists():
        return f"no speech model at {model_dir}"
    if not model_dir.is_dir():
        return f"{model_dir} is a file, not a model folder"
    if not (model_dir / "am" / "final.mdl").is_file() and not (model_dir / "final.mdl").is_file():
        return f"{model_dir} is not a Vosk model folder (no am/final.mdl)"
    if not (model_dir / "conf" / "model.conf").is_file():
        return f"{model_dir} is not a complete Vosk model (no conf/model.conf)"
    return None



class SpeechModel(Protocol):
    """A loaded Vosk model as voicehost holds it: shared by the recognizers
    built over it (vosk.KaldiRecognizer takes it whole) and asked whether its
    vocabulary has a word."""

    def vosk_model_find_word(self, word: str) -> int: ...


def model_knows(model: SpeechModel, word: str) -> bool:
    """Whether a loaded Vosk model's vocabulary has `word`."""
    found: int = model.vosk_model_find_word(word)
    return found >= 0


# Kaldi determinizes the partial lattice in chunks; by default a word can wait
# up to 60 frames (1.8 s) before it shows in partial words. frames-per-chunk 6
# (default 24) lets the text partial follow the audio within 60 ms.
LOW_LATENCY = ("--determinize-max-delay=10", "--determinize-min-chunk-size=5", "--frames-per-chunk=6")
ENDPOINT_RULE2 = "--endpoint.rule2.min-trailing-silence"


def low_latency_options(endpoint_seconds: float = 0.25) -> tuple[str, ...]:
    """Options appended to the model's conf (a later option overrides an earlier one)."""
    return LOW_LATENCY + (f"{ENDPOINT_RULE2}={endpoint_seconds:g}",)


VIEW_VERSION = 2  # 2: graph/Gr.fst without its input symbol table (`without_input_symbols`)


def low_latency_view(model_dir: Path, cache: Path, endpoint_seconds: float = 0.25) -> Path:
    """The model as Vosk should load it for live play: a folder of links to the
    model's files with a conf/model.conf that ends with `low_latency_options`,
    and its n-gram grammar FST without the input symbol table Vosk never reads
    (70 MB less memory for the Korean test model). The downloaded model itself
    is never changed."""
    conf = (model_dir / "conf" / "model.conf").read_text("utf-8")
    options = low_latency_options(endpoint_seconds)
    tuned = conf.rstrip("\n") + "\n" + "\n".join(options) + "\n"
    digest = hashlib.sha256(f"{model_dir.resolve()}\n{tuned}\n{VIEW_VERSION}".encode()).hexdigest()[:16]
    view = cache / f"{model_dir.name}-{digest}"
    if not (view / "conf" / "model.conf").is_file():
        try:
            _make_view(model_dir, view, tuned)
        except OSError as exc:
            log.warning("could not tune %s for low latency (%s); using it as it is", model_dir, exc)
            return model_dir
    return view


def _make_view(model_dir: Path, view: Path, tuned: str) -> None:
    """The view's folder; conf/model.conf last, as the sign that it is whole."""
    from voicehost.vocabulary import without_input_symbols

    (view / "conf").mkdir(parents=True, exist_ok=True)
    for entry in model_dir.iterdir():
        if entry.name not in ("conf", "graph") and not (view / entry.name).exists():
            (view / entry.name).symlink_to(entry.resolve())
    graph = model_dir / "graph"
    if graph.is_dir():
        (view / "graph").mkdir(exist_ok=True)
        for entry in graph.iterdir():
            target = view / "graph" / entry.name
            if target.exists() or (entry.name == "Gr.fst" and without_input_symbols(entry, target)):
                continue
            target.symlink_to(entry.resolve())
    for entry in (model_dir / "conf").iterdir():
        if entry.name != "model.conf":
            shutil.copy2(entry, view / "conf" / entry.name)
    (view / "conf" / "model.conf").write_text(tuned, "utf-8")


def load_model(model_dir: Path, *, low_latency_cache: Path | None = None,
               endpoint_seconds: float = 0.25) -> SpeechModel:
    """Load once, share between recognizers (the vocabulary check, the stream)."""
    problem = model_problem(model_dir)
    if problem:
        raise AsrError(f"{problem}: run `voicehost models download` (or set [asr] model in config.toml)")
    if low_latency_cache is not None:
        model_dir = low_latency_view(model_dir, low_latency_cache, endpoint_seconds)
    try:
        import vosk
    except ImportError:
        raise AsrError("the vosk package is not installed: run scripts/setup") from None
    vosk.SetLogLevel(-2)
    try:
        model: SpeechModel = vosk.Model(str(model_dir))   # vosk ships no types
        return model
    except Exception:
        raise AsrError(f"the speech model at {model_dir} is broken (Vosk could not load it): "
                       f"download it again with `voicehost models download`") from None
