"""voicehost: an offline, voice-driven moderator for sports mafia."""

__version__ = "0.1.0"
