"""The live game: one asyncio owner of the table (table.py, wrapping the
journaled game of voicehost.journal; answers.py says its answers once on
disk) with its journal's writer thread and notices (writer.py, notices.py),
its clock (clock.py), its voice (speaking.py, played by playback.py), its
ears (listening.py), the host's terminal (terminal.py, commands.py,
stdin.py), the game's end (ending.py), the trainer (training.py), and the parts a
game is built from (parts.py; `voicehost.session` puts them together with
the page for `run`, `serve` and `train`). Texts come from the `[live]` block of the
phrasebook (texts.py)."""
from voicehost.live.clock import AudioClock, GameClock
from voicehost.live.notices import TableStopped
from voicehost.live.speaking import fixed_phrases
from voicehost.live.table import LiveTable, open_table
from voicehost.live.writer import JournalWriter

__all__ = ["AudioClock", "GameClock", "JournalWriter", "LiveTable", "TableStopped", "fixed_phrases", "open_table"]
