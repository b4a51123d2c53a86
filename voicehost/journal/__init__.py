"""The journal: every input the moderator receives, with its time, one JSON
object per line (heard words in runs, see lines.py). Replaying it rebuilds
the identical game; the live loop writes it with an fsync per write, and
writes whatever the table answers before it answers, so a crash loses at
most heard words nobody was answered on (writer.py `Journal.hold`).

Each line carries "h", a short check of the previous line's check and its own
content (the header starts the chain), keyed since version 5 with the game's
own key (`<journal>.key`, 0600, keys.py), so an edited, dropped or inserted
line is reported with its number instead of replaying as another game, even
when its checks were recomputed; the header names the game. The file is read
as bytes and split only on b"\\n": only the part after the last newline is what
a crash mid-write leaves (a torn line): it is ignored, and cut off before a
resumed game appends; a complete line that fails its check is damage, refused.
Only inputs are journaled, plus a clock mark where a timer fired: the
moderator's timers are deadlines, so the inputs and those marks replay the
same game. One table at a time holds a journal (an exclusive lock); a write
that fails is cut back off and raises `JournalWriteError`, and the table takes
no more inputs; a journal deleted or moved away is written anew from memory.

The package: lines.py (the line format, the chain and the reader, `Entry`),
keys.py (the key beside a journal), writer.py (`Journal`), table.py (`Table`,
the journaled game: one apply, one undo, one rebuild; replay and resume),
revision.py (an utterance's final words replayed in place of its partials)."""
from __future__ import annotations

from voicehost.journal.lines import HASH_CHARS, VERSION, Entry, Scan, entry_hash, scan_bytes, scan_file
from voicehost.journal.table import (
    Table,
    dealt,
    last_host_input,
    rebuild,
    replay,
    replay_entries,
    replay_scan,
    resume_table,
)
from voicehost.journal.writer import Journal

__all__ = [
    "HASH_CHARS",
    "VERSION",
    "Entry",
    "Journal",
    "Scan",
    "Table",
    "dealt",
    "entry_hash",
    "last_host_input",
    "rebuild",
    "replay",
    "replay_entries",
    "replay_scan",
    "resume_table",
    "scan_bytes",
    "scan_file",
]
