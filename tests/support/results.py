"""Moved to `sosoapi.testing.results` (the benchmarks import it from there); kept so the
tests written against this module go on importing it."""

from sosoapi.testing.results import page_result

__all__ = ["page_result"]
