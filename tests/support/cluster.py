"""Moved to `sosoapi.testing.cluster` (bench/instances.py imports it from there); kept so
the tests written against this module go on importing it."""

from sosoapi.testing.cluster import ThrowawayCluster

__all__ = ["ThrowawayCluster"]
