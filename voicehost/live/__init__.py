"""The live game: one asyncio owner of the table (table.py) with its clock
(clock.py), its voice (speaking.py), its ears (listening.py), the host's
terminal (terminal.py, commands.py), the game's end (ending.py), the trainer
(training.py), and the `run`/`serve`/`train` commands that put them together
(session.py). Texts come from the `[live]` block of the phrasebook (texts.py)."""
from voicehost.live.clock import AudioClock, GameClock
from voicehost.live.speaking import fixed_phrases
from voicehost.live.table import JournalWriter, LiveTable, TableStopped, open_table

__all__ = ["AudioClock", "GameClock", "JournalWriter", "LiveTable", "TableStopped", "fixed_phrases", "open_table"]
