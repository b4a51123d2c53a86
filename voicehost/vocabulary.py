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
import mmap
import re
import struct
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

FST_MAGIC = 2125659606
SYMBOLS_MAGIC = 2125658996
_SPECIAL = re.compile(r"^(<.*>|\[.*\]|#\d+|!.*)$")  # <eps>, <s>, [unk], [1], #0, !SIL: no words of speech


Buffer = bytes | mmap.mmap


class VocabularyError(ValueError):
    """A grammar FST this reader does not know (another FST type, a damaged file)."""


class _Reader:
    def __init__(self, data: Buffer) -> None:
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
        value = bytes(self.data[self.pos:self.pos + size]).decode("utf-8", "replace")
        self.pos += size
        return value


def unigram_words(fst: Path, limit: int) -> list[str]:
    """The `limit` most frequent words of an n-gram grammar FST, the most
    frequent first. The file is mapped, not read: only its output symbol
    table and the root state's futures are touched."""
    try:
        with fst.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _unigram_words(data, limit)
    except OSError as exc:
        raise VocabularyError(f"cannot read {fst}: {exc.strerror or exc}") from None
    except (struct.error, ValueError, IndexError) as exc:
        raise VocabularyError(f"{fst} is not an n-gram FST this reader knows ({exc})") from None


def without_input_symbols(fst: Path, target: Path) -> bool:
    """Write `fst` to `target` without its input symbol table, when it is an
    n-gram FST that carries both: Vosk reads a model's words from the output
    table only, and each table of a large vocabulary costs tens of MB once
    loaded (the Korean test model's 503,352 words: 70 MB of the process).
    False (nothing written) for any other file."""
    try:
        with fst.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            reader = _Reader(data)
            if reader.take("<i") != FST_MAGIC or reader.text() != "ngram":
                return False
            reader.text()  # arc type
            reader.take("<i")  # version
            at = reader.pos
            flags = reader.take("<i")
            if flags & 3 != 3:
                return False
            reader.pos += 8 + 8 + 8 + 8  # properties, start, states, arcs
            first = reader.pos
            second = data.find(struct.pack("<i", SYMBOLS_MAGIC), first + 4)
            if second < 0:
                return False
            partial = target.with_name(target.name + ".partial")
            with partial.open("wb") as out:
                out.write(data[:at])
                out.write(struct.pack("<i", flags & ~1))
                out.write(data[at + 4:first])
                for begin in range(second, len(data), 1 << 24):
                    out.write(data[begin:min(len(data), begin + (1 << 24))])
            partial.replace(target)
            return True
    except (OSError, struct.error, ValueError) as exc:
        log.info("kept %s as it is (%s)", fst, exc)
        return False


def _model_start(data: Buffer, start: int, states: int) -> tuple[int, int, int]:
    """Where the n-gram model begins (past the symbol tables), and its future
    and final counts: the first place from `start` holding the header's state
    count whose counts make the model end exactly at the end of the file."""
    needle = struct.pack("<Q", states)
    at = start - 1
    while True:
        at = data.find(needle, at + 1)
        if at < 0:
            raise VocabularyError("no n-gram model after the symbol tables")
        futures, finals = struct.unpack_from("<QQ", data, at + 8)
        if futures > len(data) or finals > len(data):
            continue
        if _model_end(at, states, futures, finals) == len(data):
            return at, futures, finals


def _model_end(base: int, states: int, futures: int, finals: int) -> int:
    blocks = sum((bits + 63) // 64 for bits in (2 * states + 1, futures + states + 1, states))
    labels_end = 24 + 8 * blocks + 4 * (states + 1) + 4 * futures
    return base + ((labels_end + 3) & ~3) + 4 * (states + 1) + 4 * finals + 4 * (futures + 1)


def _unigram_words(data: Buffer, limit: int) -> list[str]:
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
    table = reader.pos
    base, futures, finals = _model_start(data, table, states)
    blocks = [(bits + 63) // 64 for bits in (2 * states + 1, futures + states + 1, states)]
    # The root's futures run from the future bitmap's first 0 to its second.
    count, first = _root_futures(data, base + 24 + 8 * blocks[0], futures + states + 1)
    labels = base + 24 + 8 * sum(blocks) + 4 * (states + 1)
    weights = _model_end(base, states, futures, finals) - 4 * (futures + 1)
    root = np.frombuffer(data, dtype="<i4", count=count, offset=labels + 4 * first)
    costs = np.frombuffer(data, dtype="<f4", count=count, offset=weights + 4 * first)
    wanted = {int(label): rank for rank, label in enumerate(root[np.argsort(costs, kind="stable")][:limit])}
    del root, costs  # views of the mapping: gone before it closes
    found = _symbols(data, table, wanted)
    return [word for _, word in sorted(found)]


def _root_futures(data: Buffer, at: int, bits: int) -> tuple[int, int]:
    """(how many futures the root state has, the index of its first), from
    the future bitmap's first two zeros, read 64 K bits at a time."""
    zeros: list[int] = []
    ones = first = 0
    total = (bits + 63) // 64
    for block in range(0, total, 1024):
        words = np.frombuffer(data, dtype="<u8", count=min(1024, total - block), offset=at + 8 * block)
        unpacked = np.unpackbits(words.view(np.uint8), bitorder="little")
        for index in np.flatnonzero(unpacked == 0)[:2 - len(zeros)]:
            if not zeros:
                first = ones + int(np.count_nonzero(unpacked[:index]))
            zeros.append(64 * block + int(index))
        ones += int(np.count_nonzero(unpacked))
        del words, unpacked
        if len(zeros) == 2:
            return zeros[1] - zeros[0] - 1, first
    raise VocabularyError("the future bitmap has no root state")


def _symbols(data: Buffer, at: int, wanted: dict[int, int]) -> list[tuple[int, str]]:
    """(rank, text) of the symbols whose keys are `wanted` (key -> rank)."""
    reader = _Reader(data)
    reader.pos = at
    if reader.take("<i") != SYMBOLS_MAGIC:
        raise VocabularyError("no symbol table where the header says there is one")
    reader.text()        # the table's name
    reader.take("<q")    # the next free key
    size = reader.take("<q")
    pos = reader.pos
    length, number = struct.Struct("<i").unpack_from, struct.Struct("<q").unpack_from
    out = []
    for _ in range(size):
        size_of = length(data, pos)[0]
        rank = wanted.get(number(data, pos + 4 + size_of)[0])
        if rank is not None:
            out.append((rank, bytes(data[pos + 4:pos + 4 + size_of]).decode("utf-8", "replace")))
        pos += 12 + size_of
    return out


def frequent_words(model_dir: Path, limit: int, exclude: set[str] | None = None) -> list[str]:
    """Up to `limit` of a model's most frequent words, not in `exclude` and no
    special symbols; [] when the model's graph is not one this reader knows
    (the caller then listens with the open vocabulary)."""
    fst = model_dir / "graph" / "Gr.fst"
    if not fst.is_file():
        log.info("%s has no graph/Gr.fst: no filler vocabulary for a grammar", model_dir)
        return []
    skip = exclude or set()
    try:
        ranked = unigram_words(fst, 2 * limit + len(skip) + 100)
    except VocabularyError as exc:
        log.warning("no filler vocabulary from %s: %s", model_dir, exc)
        return []
    out: list[str] = []
    for word in ranked:
        if word not in skip and not _SPECIAL.match(word) and " " not in word:
            out.append(word)
            if len(out) == limit:
                break
    return out
