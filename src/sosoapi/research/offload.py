"""Where CPU-bound parsing runs: bounded worker processes, or threads.

HTML and caption parsing hold the GIL, so threads keep the event loop responsive but use
one core. With `parse_workers` > 0 the parsing functions (module-level, their arguments
and results plain data) run in this module's own pool of worker processes, and the event
loop keeps only the I/O. Every parse there is bounded: a wall-clock deadline, after which
the pool kills the worker, and a memory cap the worker sets on itself
(research/parse_worker.py). A parse over either bound raises `ParseOverBound`, and the
worker is replaced; the other workers' parses carry on. Workers come from a forkserver
that has imported the extractors once, so a replacement costs a fork, not an import.
A worker lets Lexbor parse a page before any model of it, under a CPU budget whose end
kills the worker (extract/lexbor_budget.py); such a job runs once more, in a fresh worker
with the model first, within the same deadline.

Threads (`parse_workers` 0: tests, and an operator's explicit choice) keep the deadline
only: the read stops waiting and settles, but a thread cannot be killed, so the parse
runs on to its end and its memory is not capped.
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
import signal
import socket
from collections.abc import Callable
from multiprocessing import forkserver
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

import anyio

from sosoapi.contract.vocabulary import Cause
from sosoapi.extract import lexbor_budget
from sosoapi.research import parse_worker
from sosoapi.research.retrieval.settings import ParseBounds

T = TypeVar("T")
log = logging.getLogger("sosoapi.offload")
# What the forkserver imports once for every worker it forks: the parsers (trafilatura, an
# optional extra imported at its first use, too: the preload skips a module not installed),
# and a corpus export's writers with the store it opens (named only: research never imports
# the store).
PRELOAD = [
    "sosoapi.research.retrieval.reading",
    "sosoapi.research.documents.reading",
    "sosoapi.extract.page",  # the parsers they import at their first parse (parsing.py)
    "sosoapi.extract.captions",
    "sosoapi.extract.tracks",
    "sosoapi.extract.pdf",
    "trafilatura",
    "sosoapi.research.corpora.export_worker",
    "sosoapi.store.store",
]
ANSWERED = (parse_worker.OK, parse_worker.FAILED)


def process_context() -> Any:
    """The forkserver context every worker process comes from, its preload set: a worker
    costs a fork, not an import."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


class ParseOverBound(Exception):
    """A parse passed its deadline or its memory cap, or crashed its worker: the bytes
    cannot be read as offered, and reading them again would end the same way."""

    def __init__(self, cause: Cause, detail: str) -> None:
        super().__init__(detail)
        self.cause = cause


class ParseStopped(RuntimeError):
    """The pool closed (the server is stopping) while a parse ran: nothing was judged."""


class _Worker:
    """One worker process and the parent's end of its socket (non-blocking)."""

    def __init__(self, process: BaseProcess, sock: socket.socket) -> None:
        self.process, self.sock = process, sock
        sock.setblocking(False)

    async def exchange(self, job: parse_worker.Job) -> parse_worker.Answer:
        """Send one job and wait for its answer, on the event loop: the socket is only
        read or written when it is ready, so no thread carries the wait (a trip to one
        cost the server a wake-up of a thread and of the loop per parse); cancelled (the
        deadline, the caller gone), the worker is killed by the caller.

        A worker that ends without answering answers as out of memory (the kernel's or a
        parser's crash)."""
        try:
            await self._send(parse_worker.frame(job))
            header = await self._receive(parse_worker.HEADER.size)
            (size,) = parse_worker.HEADER.unpack(header)
            status, value, retiring = parse_worker.unframe(await self._receive(size))
        except (EOFError, OSError):
            return parse_worker.OUT_OF_MEMORY, None, True
        return status, value, retiring

    async def _send(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[self.sock.send(view) :]
            except BlockingIOError:
                await anyio.wait_writable(self.sock)

    async def _receive(self, size: int) -> bytearray:
        data = bytearray(size)
        view = memoryview(data)
        while view:
            try:
                got = self.sock.recv_into(view)
            except BlockingIOError:
                await anyio.wait_readable(self.sock)
                continue
            if not got:
                raise EOFError("the parse worker ended without answering")
            view = view[got:]
        return data

    async def ended_by(self, sig: signal.Signals) -> bool:
        """Whether the process, which closed its socket, ended by `sig` (once it has)."""
        await anyio.wait_readable(self.process.sentinel)
        return self.process.exitcode == -sig

    def kill(self) -> None:
        """End the process; a wait for its answer ends with its end of the socket."""
        if self.process.is_alive():
            self.process.kill()

    def discard(self) -> None:
        """Kill it and close our end (no exchange is waiting on it)."""
        self.kill()
        self.sock.close()


class Offload:
    """Runs a parsing function off the event loop: in the pool, or in a thread without one."""

    def __init__(self, workers: int = 0, bounds: ParseBounds | None = None) -> None:
        self.workers = workers
        self.bounds = bounds or ParseBounds()
        self._context: Any = None
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._slots: anyio.Semaphore | None = None
        self.parsing = 0  # parses running in workers now (an operator's and a test's view)
        self.past_budget = 0  # jobs read again with the model after the Lexbor budget (idem)

    def start(self) -> None:
        """Parse in worker processes from now on. Their forkserver starts at the first
        parse or export, not here: its preload (PRELOAD) costs about half a second of CPU,
        which a server that never parses (one that only answers reads, many a test's)
        need not pay. What that trades: a fresh server's first parse waits for the
        preload (0.8 s against 50 ms once it is done, at a load of 7 on two cores:
        bench/README.md, "Process start-up"), before its deadline starts. `warm` starts
        it now, for a command about to parse."""
        if self.workers <= 0 or self._context is not None:
            return
        self._context = process_context()
        log.info(
            "parsing pool started workers=%d deadline_s=%s memory_mb=%d",
            self.workers,
            self.bounds.deadline_seconds,
            self.bounds.memory_mb,
        )

    def warm(self) -> None:
        """Start the forkserver now (when the pool is on), so its preload overlaps what
        comes before the first parse: a one-shot `sosoapi retrieve`'s fetch."""
        if self._context is not None:
            forkserver.ensure_running()

    def close(self) -> None:
        """Kill every worker, idle or parsing: a running parse is not waited for (its read
        was stopped already, and its receipt is resumed by the rules of a stopped read)."""
        self._context = None
        for worker in self._all:
            worker.kill()  # a parsing worker's socket is closed by its run, once it ends
        for worker in self._idle:
            worker.discard()
        self._all.clear()
        self._idle.clear()

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self._context is None:
            return await self._in_thread(functools.partial(fn, *args, **kwargs))
        if self._slots is None:
            self._slots = anyio.Semaphore(self.workers)
        status: str | None = None
        value: Any = None
        async with self._slots:
            self.parsing += 1
            try:
                status, value = await self._parse((fn, args, kwargs))
            finally:
                self.parsing -= 1
        if status not in ANSWERED and self._context is None:
            raise ParseStopped("the parsing pool closed during the parse")
        if status not in ANSWERED:
            raise self._over_bound(fn, status)
        if status == parse_worker.FAILED:
            raise value
        return value  # type: ignore[no-any-return]

    async def _parse(self, job: parse_worker.Job) -> tuple[str | None, Any]:
        """A job's answer (status None: past the deadline); a job whose Lexbor parse passed
        its budget runs once more with the model first (`parse_worker.modelled`).

        The deadline starts when a worker has the job: a worker's start (the forkserver's
        preload, at the first) is the server's cost, not the page's, and on a loaded
        machine it could otherwise eat a short deadline before the parse began. The
        retry's worker starts within the same deadline."""
        worker = await self._worker()
        with anyio.move_on_after(self.bounds.deadline_seconds):
            status, value, passed = await self._exchange(worker, job)
            if passed and self._context is not None:  # not while the pool closes
                self.past_budget += 1
                fn, args, kwargs = job
                log.info("parse past its Lexbor budget: read again with the model fn=%s "
                         "budget_s=%s", getattr(fn, "__name__", repr(fn)),
                         lexbor_budget.SECONDS)  # fmt: skip
                retry = (parse_worker.modelled, (fn, *args), kwargs)
                status, value, _ = await self._exchange(await self._worker(), retry)
            return status, value
        return None, None

    async def _worker(self) -> _Worker:
        """An idle worker, or a new one."""
        return self._idle.pop() if self._idle else await self._spawn()

    async def _exchange(self, worker: _Worker, job: parse_worker.Job) -> tuple[str, Any, bool]:
        """`worker`'s answer to `job`, and whether it died of the Lexbor budget."""
        retiring = True
        try:
            status, value, retiring = await worker.exchange(job)
            passed = status == parse_worker.OUT_OF_MEMORY and (
                await worker.ended_by(lexbor_budget.PASSED)
            )
        finally:
            self._done_with(worker, reusable=not retiring)
        return status, value, passed

    async def _spawn(self) -> _Worker:
        """Start a worker (its first start waits for the forkserver's preload). The start
        is shielded: a worker started for a caller that left is kept, never lost."""
        ours, theirs = socket.socketpair()
        memory = self.bounds.memory_mb << 20
        process = self._context.Process(
            target=parse_worker.serve,
            args=(theirs, memory),
            name="sosoapi-parse",
            daemon=True,
        )
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(process.start)
        theirs.close()
        worker = _Worker(process, ours)
        self._all.add(worker)
        if self._context is None:  # closed while it started
            worker.kill()
        return worker

    def _done_with(self, worker: _Worker, reusable: bool) -> None:
        """A worker that answered and stays waits for the next job; any other is killed
        (replaced on demand): over a bound, crashed, retiring after a parse that came near
        its cap, or its caller stopped waiting mid-parse."""
        if reusable and self._context is not None:
            self._idle.append(worker)
            return
        worker.discard()
        self._all.discard(worker)

    def _over_bound(self, fn: Callable[..., Any], status: str | None) -> ParseOverBound:
        name = getattr(fn, "__name__", repr(fn))
        if status is None:
            log.warning("parse killed: past its deadline fn=%s deadline_s=%s",
                        name, self.bounds.deadline_seconds)  # fmt: skip
            return ParseOverBound(Cause.PARSE_DEADLINE, f"{name} passed the parse deadline")
        log.warning("parse killed: out of memory or crashed fn=%s memory_mb=%d",
                    name, self.bounds.memory_mb)  # fmt: skip
        return ParseOverBound(Cause.PARSE_MEMORY, f"{name} passed the parse memory cap")

    async def _in_thread(self, call: Callable[[], T]) -> T:
        """A parse in a thread, waited for up to the deadline (the thread runs on)."""
        with anyio.move_on_after(self.bounds.deadline_seconds):
            return await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
        name = getattr(getattr(call, "func", call), "__name__", "parse")
        log.warning("parse abandoned: past its deadline fn=%s (a thread runs on)", name)
        raise ParseOverBound(Cause.PARSE_DEADLINE, f"{name} passed the parse deadline")
