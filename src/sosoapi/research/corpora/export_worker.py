"""One corpus export in a process of its own (started by `export_process.py`).

The WACZ's parts are built and its ZIP made here, so the archive's CPU work (warcio's
gzip, the CDXJ index, the ZIP's deflate, the JSON) neither holds the server's
interpreter lock nor waits for it. The process lowers its own priority first: on a busy
machine the server's quick reads are scheduled before the archive. The ZIP goes up the
pipe chunk by chunk; a full pipe holds this process until the server reads on (at its
client's pace), so nothing but the parts is spooled.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Protocol

from sosoapi.contract.projects import Snapshot
from sosoapi.lifeline import end_with_parent
from sosoapi.research.corpora.wacz import build_package
from sosoapi.research.corpora.wacz_package import Counts, WaczPackage
from sosoapi.research.ports import CapturesRepo, EvidenceRepo

BUILT, CHUNK, DONE, FAILED = "built", "chunk", "done", "failed"
NICENESS = 10  # below the server's quick reads (nice 0), as `nice -n 10` would run it
Build = Callable[..., WaczPackage]


class ExportReader(Protocol):
    """The two repositories an export reads, on a connection of this process's own."""

    @property
    def evidence(self) -> EvidenceRepo: ...
    @property
    def captures(self) -> CapturesRepo: ...
    def close(self) -> None: ...


def serve(
    conn: Connection,
    open_store: Callable[[], ExportReader],
    snapshot: Snapshot,
    corpus_revision: int,
    scratch: str,
    build: Build = build_package,
) -> None:
    """Build `snapshot`'s parts in `scratch`, say so, then send the ZIP's chunks and the
    summary; a failure is sent as the error. The server removes `scratch`."""
    end_with_parent()
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    try:
        store = open_store()
        try:
            package = build(store.evidence, store.captures, snapshot, corpus_revision,
                            scratch=Path(scratch))  # fmt: skip
        finally:
            store.close()  # the ZIP is made from the parts: no connection held meanwhile
        c = package.counts
        conn.send((BUILT, Counts(c.revisions, c.captures, c.records, c.revisits)))
        for chunk in package.chunks():
            conn.send((CHUNK, chunk))
        conn.send((DONE, package.summary))
    except (BrokenPipeError, ConnectionResetError):
        return  # the server stopped reading: its client left
    except Exception as error:
        _send_failure(conn, error)


def _send_failure(conn: Connection, error: Exception) -> None:
    """The error itself when it pickles (a store fault keeps its answer), else its repr."""
    try:
        conn.send((FAILED, error))
    except OSError:
        return
    except Exception:
        with contextlib.suppress(OSError):
            conn.send((FAILED, RuntimeError(f"the export failed: {error!r}")))
