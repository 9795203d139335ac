"""A server's corpus exports, each in a process of its own (`export_worker.py`).

In the server's threads an export's CPU work (gzip, the CDXJ index, the ZIP's deflate)
shared the interpreter's lock with the event loop: during 44 exports another workspace's
10 ms `evidence_get` took up to 1.5 s (bench/README.md, "Floods"). Here the server keeps
only the I/O: a child of the parsing pool's forkserver (research/offload.py: a fork, not
an import) builds the parts and makes the ZIP at a lower priority, and the server hands
its chunks on.

The bounds stay the heavy-read pool's: `ExportProcesses.build` is the pool's job, so the
workspace's slot is held, in its turn, until the parts are built; one scratch folder per
export, made and removed here; a caller that leaves (a queued or building export's
`should_stop`, a reader that stops reading and closes the package) ends the child at
once, which leaves nothing anyone reads.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Generator
from pathlib import Path
from typing import IO, Any

from sosoapi.contract.projects import Snapshot
from sosoapi.research.corpora import export_worker
from sosoapi.research.corpora.export_worker import BUILT, DONE, FAILED, Build, ExportReader
from sosoapi.research.corpora.wacz import build_package
from sosoapi.research.corpora.wacz_package import Counts, ExportSummary
from sosoapi.research.heavy import ShouldStop, checkpoint
from sosoapi.research.offload import process_context

POLL_SECONDS = 0.1  # how soon a building export sees its caller has gone


class ExportLost(RuntimeError):
    """The export's process ended without an answer (killed, or out of memory)."""


class ProcessPackage:
    """A WACZ made by a child process: its counts once built, then its ZIP's chunks as they
    are asked for (blocking: read them off the event loop)."""

    def __init__(self, process: Any, conn: Any, scratch: Path) -> None:
        self._process, self._conn, self.scratch = process, conn, scratch
        self.counts = Counts()
        self._summary: ExportSummary | None = None
        self._started = False

    def start(self) -> None:
        self._process.start()
        self._started = True

    def wait_built(self, should_stop: ShouldStop) -> None:
        """Until the parts are built, the caller's going away checked every poll."""
        while not self._conn.poll(POLL_SECONDS):
            checkpoint(should_stop)
        kind, counts = self._receive()
        if kind != BUILT:
            raise ExportLost(f"the export process answered {kind!r} before its parts")
        self.counts = counts

    @property
    def summary(self) -> ExportSummary:
        if self._summary is not None:
            return self._summary
        c = self.counts
        return ExportSummary(c.revisions, c.captures, c.records, c.revisits, 0)

    def chunks(self) -> Generator[bytes, None, None]:
        while True:
            kind, value = self._receive()
            if kind == DONE:
                self._summary = value
                return
            yield value

    def write_to(self, out: IO[bytes]) -> None:
        for chunk in self.chunks():
            out.write(chunk)

    def _receive(self) -> tuple[str, Any]:
        try:
            kind, value = self._conn.recv()
        except (EOFError, OSError):
            raise ExportLost("the export process ended without finishing") from None
        if kind == FAILED:
            raise value
        return kind, value

    def close(self) -> None:
        """End the process if it still runs (its reader left), then remove the scratch."""
        if self._started:
            if self._process.is_alive():
                self._process.kill()
            self._process.join()
        self._conn.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


class ExportProcesses:
    """Starts a server's exports in processes; each reads the store through `open_store`
    (a picklable callable: the composition root's)."""

    def __init__(
        self, open_store: Callable[[], ExportReader], build: Build = build_package
    ) -> None:
        self.open_store = open_store
        self._build = build  # the child's build step (a test's may pause it)

    def build(
        self, snapshot: Snapshot, corpus_revision: int, should_stop: ShouldStop
    ) -> ProcessPackage:
        """A heavy-read job: start the export's process, return once its parts are built.
        Nothing is left behind (process, scratch) if it fails or its caller goes away."""
        context = process_context()
        scratch = Path(tempfile.mkdtemp(prefix="sosoapi-export-"))
        ours, theirs = context.Pipe(duplex=False)
        args = (theirs, self.open_store, snapshot, corpus_revision, str(scratch), self._build)
        process = context.Process(
            target=export_worker.serve, args=args, name="sosoapi-export", daemon=True
        )
        package = ProcessPackage(process, ours, scratch)
        try:
            package.start()
            theirs.close()
            package.wait_built(should_stop)
        except BaseException:
            theirs.close()
            package.close()
            raise
        return package
