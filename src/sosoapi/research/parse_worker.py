"""One parsing worker process: runs the jobs its pool sends, under a memory cap.

The pool (research/offload.py) owns the deadline and kills a worker that passes it; the
memory cap is the worker's own address-space limit, set before its first job. A job that
runs out of memory ends the worker (its heap may be in any state): the pool replaces it.
"""

from __future__ import annotations

import logging
import os
import resource
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from sosoapi.lifeline import end_with_parent

log = logging.getLogger("sosoapi.offload")
Job = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]
OK, FAILED, OUT_OF_MEMORY = "ok", "failed", "out_of_memory"


def serve(conn: Connection, memory_bytes: int) -> None:
    """Answer jobs from `conn` until the pool closes it, or this process's parent (the
    forkserver, which ends with the server) ends."""
    end_with_parent()
    cap_memory(memory_bytes)
    while True:
        try:
            fn, args, kwargs = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[str, Any] = (OK, fn(*args, **kwargs))
        except MemoryError:
            conn.send((OUT_OF_MEMORY, None))
            return
        except Exception as error:
            answer = (FAILED, error)
        try:
            conn.send(answer)
        except MemoryError:
            conn.send((OUT_OF_MEMORY, None))
            return
        except Exception as error:  # an answer that does not pickle: say what it was
            conn.send((FAILED, RuntimeError(f"unpicklable parse answer: {error!r}")))


def cap_memory(extra_bytes: int) -> None:
    """Limit this process's address space to what it holds now plus `extra_bytes`."""
    limit = _address_space() + extra_bytes
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _address_space() -> int:
    """This process's virtual size in bytes (Linux /proc; 0 where it cannot be read)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
