"""Variants: what differs between games played on the one engine."""
