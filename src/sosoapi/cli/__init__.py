"""The `sosoapi` command: run the servers, administer, and call the operations from a shell."""

from sosoapi.cli import admin, maintenance, operations, servers  # noqa: F401 - each module registers its verbs
from sosoapi.cli.common import main

__all__ = ["main"]
