"""The live table's texts, read from the phrasebook's `[live]` block by
voicehost.livetexts (below the game, so a series' standings, rendered in the
table's language, read them too); the names stay here for the live modules."""
from voicehost.livetexts import LiveTexts, live_texts, rendered

__all__ = ["LiveTexts", "live_texts", "rendered"]
