"""The `sosoapi` command: run the servers, administer, and call the operations from a shell."""

from sosoapi.cli import (  # noqa: F401 - each module registers its verbs
    admin,
    connect,
    evidence_tools,
    operations,
    servers,
)
from sosoapi.cli.common import main

__all__ = ["main"]
