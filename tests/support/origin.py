"""Moved to `sosoapi.testing.origin` (the benchmarks and the demo import it from there);
kept so the tests written against this module go on importing it."""

from sosoapi.testing.origin import Handler, HTTPSOrigin, Route, new_ca

__all__ = ["HTTPSOrigin", "Handler", "Route", "new_ca"]
