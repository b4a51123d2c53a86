"""Seats and roles, the moderator, protocol and scoring."""
