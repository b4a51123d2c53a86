"""A Vosk model's own words by how often its language model expects them,
read from the model's grammar FST (graph/Gr.fst, an OpenFst "ngram" FST, as
the small models with a dynamic graph ship it).

The grammar recognizer needs them when the model has no `[unk]`: without a
word for "anything else", every sound would come out as the nearest rule
word. The most frequent words of the model's language that are not rule
words are added to the grammar as fillers, and whatever is heard as one of
them is passed on as "[unk]" (voicehost.asr.VoskRecognizer).

The file layout (OpenFst fst.h FstHeader, symbol-table.cc, extensions/ngram/
ngram-fst.h): the header (magic, FST type, arc type, version, flags,
properties, start, states, arcs), the input and output symbol tables when the
flags say so, then the n-gram model: the state, future and final counts, three
LOUDS bitmaps, the context and future labels, and the backoff, final and
future weights. The root state (the empty context) has one future per word,
weighted with the word's unigram cost (-log p): the lower, the more frequent."""
from __future__ import annotations

import logging
import re
import struct
from collections.abc import Iterator
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

FST_MAGIC = 2125659606
SYMBOLS_MAGIC = 2125658996
_SPECIAL = re.compile(r"^(<.*>|\[.*\]|#\d+|!.*)$")  # <eps>, <s>, [unk], [1], #0, !SIL: no words of speech


class VocabularyError(ValueError):
    """A grammar FST this reader does not know (another FST type, a damaged file)."""


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, fmt: str) -> int:
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return int(value)

    def text(self) -> str:
        size = self.take("<i")
        if size < 0 or self.pos + size > len(self.data):
            raise VocabularyError("a string runs past the end of the file")
        value = self.data[self.pos:self.pos + size].decode("utf-8", "replace")
        self.pos += size
        return value

    def skip_text(self) -> None:
        size = self.take("<i")
        self.pos += size

    def symbols(self) -> _Symbols:
        """A symbol table, walked once for where each entry is; its texts are
        read only for the words asked for."""
        if self.take("<i") != SYMBOLS_MAGIC:
            raise VocabularyError("no symbol table where the header says there is one")
        self.skip_text()        # the table's name
        self.take("<q")         # the next free key
        size = self.take("<q")
        data, pos = self.data, self.pos
        length, number = struct.Struct("<i").unpack_from, struct.Struct("<q").unpack_from
        offsets: dict[int, int] = {}
        for _ in range(size):
            size_of = length(data, pos)[0]
            offsets[number(data, pos + 4 + size_of)[0]] = pos
            pos += 12 + size_of
        if pos > len(data):
            raise VocabularyError("the symbol table runs past the end of the file")
        self.pos = pos
        return _Symbols(data, offsets)


class _Symbols:
    """A symbol table's entries (int32 length, UTF-8 text, int64 key) by key."""

    def __init__(self, data: bytes, offsets: dict[int, int]) -> None:
        self.data = data
        self.offsets = offsets

    def get(self, key: int) -> str | None:
        pos = self.offsets.get(key)
        if pos is None:
            return None
        (size,) = struct.unpack_from("<i", self.data, pos)
        return self.data[pos + 4:pos + 4 + size].decode("utf-8", "replace")


def unigram_words(fst: Path) -> Iterator[str]:
    """Every word of an n-gram grammar FST, the most frequent first (read as they are asked for)."""
    try:
        data = fst.read_bytes()
    except OSError as exc:
        raise VocabularyError(f"cannot read {fst}: {exc.strerror or exc}") from None
    try:
        return _unigram_words(data)
    except (struct.error, ValueError, IndexError) as exc:
        raise VocabularyError(f"{fst} is not an n-gram FST this reader knows ({exc})") from None


def _unigram_words(data: bytes) -> Iterator[str]:
    reader = _Reader(data)
    if reader.take("<i") != FST_MAGIC:
        raise VocabularyError("not an OpenFst file")
    kind = reader.text()
    reader.text()  # arc type
    reader.take("<i")  # version
    flags = reader.take("<i")
    reader.pos += 8 + 8  # properties, start
    states = reader.take("<q")
    reader.take("<q")  # arcs
    if kind != "ngram":
        raise VocabularyError(f"an FST of type {kind!r}, not 'ngram'")
    if not flags & 2:
        raise VocabularyError("the FST carries no word symbols")
    if flags & 1:  # the input symbols: the output table is the next one (its magic is no UTF-8)
        reader.pos = data.find(struct.pack("<i", SYMBOLS_MAGIC), reader.pos + 4)
    words = reader.symbols()
    if reader.take("<Q") != states:
        raise VocabularyError("the n-gram model's state count differs from the header's")
    futures = reader.take("<Q")
    finals = reader.take("<Q")
    base = reader.pos - 24
    blocks = [(bits + 63) // 64 for bits in (2 * states + 1, futures + states + 1, states)]
    future_bits = base + 24 + 8 * blocks[0]
    labels = base + 24 + 8 * sum(blocks) + 4 * (states + 1)
    offset = (labels + 4 * futures - base + 3) & ~3
    weights = base + offset + 4 * (states + 1) + 4 * finals
    if weights + 4 * (futures + 1) != len(data):
        raise VocabularyError("the n-gram model's sizes do not add up to the file's")
    # The root's futures run from the future bitmap's first 0 to its second.
    bitmap = np.frombuffer(data, dtype="<u8", count=blocks[1], offset=future_bits)
    bits = np.unpackbits(bitmap.view(np.uint8), bitorder="little")
    zeros = np.flatnonzero(bits[:futures + states + 1] == 0)
    count = int(zeros[1] - zeros[0] - 1)
    first = int(np.count_nonzero(bits[:zeros[0]]))  # the futures of the states before it
    root = np.frombuffer(data, dtype="<i4", count=count, offset=labels + 4 * first)
    costs = np.frombuffer(data, dtype="<f4", count=count, offset=weights + 4 * first)
    ranked = (words.get(int(label)) for label in root[np.argsort(costs, kind="stable")])
    return (word for word in ranked if word is not None)


def frequent_words(model_dir: Path, limit: int, exclude: set[str] | None = None) -> list[str]:
    """Up to `limit` of a model's most frequent words, not in `exclude` and no
    special symbols; [] when the model's graph is not one this reader knows
    (the caller then listens with the open vocabulary)."""
    fst = model_dir / "graph" / "Gr.fst"
    if not fst.is_file():
        log.info("%s has no graph/Gr.fst: no filler vocabulary for a grammar", model_dir)
        return []
    try:
        ranked = unigram_words(fst)
    except VocabularyError as exc:
        log.warning("no filler vocabulary from %s: %s", model_dir, exc)
        return []
    skip = exclude or set()
    out: list[str] = []
    for word in ranked:
        if word not in skip and not _SPECIAL.match(word) and " " not in word:
            out.append(word)
            if len(out) == limit:
                break
    return out
