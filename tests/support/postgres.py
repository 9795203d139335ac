"""Moved to `sosoapi.testing.postgres` (the benchmarks and the demo import it from there);
kept so the tests written against this module go on importing it."""

from sosoapi.testing.postgres import ConnectionPeak, private_schema, tagged

__all__ = ["ConnectionPeak", "private_schema", "tagged"]
