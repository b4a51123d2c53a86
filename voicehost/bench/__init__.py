"""Benchmarks that print figures (never timed tests), one module per bench:
`voicehost bench core` (core.py), `latency` (latency.py) and `journal`
(journal.py). They sit above everything they measure: a bench may import any
layer of voicehost, and nothing in voicehost imports a bench."""
