"""Moved to `sosoapi.testing.memory` (the benchmarks and the demo import it from there);
kept so the tests written against this module go on importing it."""

from sosoapi.testing.memory import MIB, PeakRSS

__all__ = ["MIB", "PeakRSS"]
