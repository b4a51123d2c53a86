"""Phrase data and the speech listener."""
