"""The `sosoapi` command: run the servers, administer, and call the operations from a shell."""

from sosoapi.startup import collector_paused

with collector_paused():  # the verbs' imports: SQLAlchemy, the store, the contract
    from sosoapi.cli import (  # noqa: F401 - each module registers its verbs
        admin,
        connect,
        corpora,
        evidence,
        maintenance,
        projects,
        retrieve,
        servers,
    )
    from sosoapi.cli.common import main

__all__ = ["main"]
