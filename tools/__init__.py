"""Tools for tests and benchmarks that run from a source checkout, not part of the runtime package."""
