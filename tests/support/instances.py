"""Moved to `sosoapi.testing.instances` (bench/instances.py imports it from there); kept
so the tests written against this module go on importing it."""

from sosoapi.testing.instances import SETTLED, Load, client, logged_trouble

__all__ = ["SETTLED", "Load", "client", "logged_trouble"]
