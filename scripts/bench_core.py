"""Prints the core figures: µs per word through the phrase rules, whole games per second."""
from voicehost.bench.core import run

run()
