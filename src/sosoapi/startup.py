"""A process's start-up without the cyclic garbage collector.

`sosoapi serve` and `sosoapi mcp` import about a thousand modules (FastAPI and its
models, SQLAlchemy, the research service and the extractors, the MCP SDK) before they
answer. What those imports build lives as long as the process, yet the collector walked
it again every few hundred allocations: about 15% of the CPU of the imports
(bench/README.md, "Process start-up"). The garbage a start makes is collected once
after it: `Application.running` collects and freezes the start-up heap.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off inside (imports, building the app), back as it was after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
