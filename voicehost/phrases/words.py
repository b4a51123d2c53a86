"""Recognized words with timestamps, and the input formats that carry them."""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from voicehost.errors import InputError
from voicehost.jsontypes import JSONObject
from voicehost.refusals import RefuseKey


@dataclass(frozen=True, slots=True)
class Word:
    word: str
    start: float
    end: float
    conf: float = 1.0
    seat: int | None = None   # whose channel heard it (SPEC §7.1); None: the one shared microphone
    # The direction it came from, in degrees, with a microphone array (SPEC §7.1):
    # with no seat it is a direction that names none, never the speaker's word.
    angle: float | None = None

    @property
    def unplaced(self) -> bool:
        """Heard by an array from a direction that names no seat."""
        return self.seat is None and self.angle is not None

    def shifted(self, offset: float) -> Word:
        return Word(self.word, self.start + offset, self.end + offset, self.conf, self.seat, self.angle)

    def to_json(self) -> JSONObject:
        out: JSONObject = {"word": self.word, "start": self.start, "end": self.end}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.angle is not None:
            out["angle"] = self.angle
        return out


def _number(value: object, where: str, text: str, name: str, unit: str = "seconds") -> float:
    if isinstance(value, (int, float)) and type(value) in (int, float):
        try:
            seconds = float(value)
        except OverflowError:   # a whole number too large for any time
            seconds = math.inf
        if math.isfinite(seconds):
            return seconds
    shown = json.dumps(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    raise InputError(f"{where} '{text}': {name} must be a number of {unit}, got {shown}")


def parse_word(item: object, where: str = "word") -> Word:
    if not isinstance(item, dict):
        raise InputError(f"{where} must be an object with word, start and end")
    text = item.get("word")
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{where} has no 'word' text")
    start = _number(item.get("start"), where, text, "start")
    end = _number(item.get("end"), where, text, "end")
    if start < 0 or end < start:
        raise InputError(f"{where} '{text}': needs 0 <= start <= end, got {start}..{end}")
    conf = item.get("conf", 1.0)
    conf = _number(conf, where, text, "conf") if conf is not None else 1.0
    seat = item.get("seat")
    if seat is not None and (type(seat) is not int or not 1 <= seat <= 99):
        raise InputError(f"{where} '{text}': seat must be a seat number, got {json.dumps(seat)[:40]}")
    angle = item.get("angle")
    if angle is not None:
        angle = _number(angle, where, text, "angle", "degrees")
        if not 0 <= angle <= 360:
            raise InputError(f"{where} '{text}': angle must be in degrees from 0 to 360, got {angle}")
    return Word(text.strip(), start, end, conf, seat, angle)


def parse_words(items: object, where: str = "words") -> list[Word]:
    if not isinstance(items, list):
        raise InputError(f"'{where}' must be a list of words")
    words = [parse_word(item, f"{where}[{i}]") for i, item in enumerate(items)]
    return sorted(words, key=lambda w: (w.start, w.end))


def words_from_json(data: object) -> list[Word]:
    """Words from `{"words": [...]}`, a Vosk result object, or a list of results."""
    if isinstance(data, dict) and "words" in data:
        return parse_words(data["words"])
    results = data if isinstance(data, list) else [data]
    words: list[Word] = []
    for i, result in enumerate(results):
        if not isinstance(result, dict) or not ({"result", "text", "partial"} & result.keys()):
            raise InputError(
                f"input item {i} is neither {{\"words\": [...]}} nor a Vosk result object"
            )
        if "result" in result:
            words += parse_words(result["result"], f"result[{i}]")
    return sorted(words, key=lambda w: (w.start, w.end))


_SILENCE = re.compile(r"^<([0-9]{1,6}(?:\.[0-9]{1,6})?)>$", re.ASCII)
_SILENCE_LIKE = re.compile(r"^<.*>$", re.ASCII | re.DOTALL)  # meant as a silence, but not one
WORD_SECONDS = 0.3
WORD_GAP = 0.1


def words_from_text(text: str) -> list[Word]:
    """Plain words, 0.3 s each and 0.1 s apart; `<N>` makes that gap N seconds."""
    words: list[Word] = []
    gap: float | None = None
    clock = 0.0
    for token in text.split():
        silence = _SILENCE.match(token)
        if silence is None and _SILENCE_LIKE.match(token):
            shown = f"{token[:20]}{'...' if len(token) > 20 else ''}"
            raise InputError(f"silence {shown} must be <N> seconds, N from 0 up to 999999",
                             key=RefuseKey.BAD_SILENCE, values={"input": shown})
        if silence:
            gap = float(silence.group(1)) if gap is None else gap + float(silence.group(1))
            continue
        if words:
            clock = words[-1].end + (WORD_GAP if gap is None else gap)
        elif gap is not None:
            clock = gap
        words.append(Word(token, round(clock, 6), round(clock + WORD_SECONDS, 6)))
        gap = None
    if not words and text.strip():
        raise InputError("--text has no words", key=RefuseKey.NO_WORDS)
    return words
