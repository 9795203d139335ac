"""The parsing pool bounds every parse: killed at its deadline or memory cap, replaced,
and never waited for at close; the other workers' parses carry on."""

from __future__ import annotations

import gzip
import logging
import os
import signal
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import anyio
import psutil
import pytest

from sosoapi.contract.vocabulary import Cause
from sosoapi.extract.html_bounds import bound_markup
from sosoapi.research.offload import Offload, ParseOverBound, ParseStopped
from sosoapi.research.retrieval.settings import ParseBounds

SMALL = ParseBounds(deadline_seconds=1.0, memory_mb=128)
HOSTILE = Path(__file__).resolve().parents[1] / "data" / "hostile"


def spin_forever(started: str) -> None:
    """A parse that never ends: it says it started, then loops."""
    Path(started).write_text(str(os.getpid()))
    while True:
        pass


def hold_memory(megabytes: int) -> int:
    return len(bytearray(megabytes << 20))


def fail_plainly() -> None:
    raise ValueError("a parse's own error")


def bound_here(markup: str) -> tuple[int, bool]:
    """The worker's pid, and whether the markup was cut to the bounds."""
    return os.getpid(), bound_markup(markup).nodes_limited


def crash_once_counted(tally: str) -> None:
    """A parse whose worker dies of something other than the Lexbor budget."""
    with open(tally, "a") as file:
        file.write("run\n")
    os.kill(os.getpid(), signal.SIGSEGV)


async def _started(path: Path) -> int:
    """The pid of the worker that began `spin_forever` (polled with a deadline)."""
    with anyio.fail_after(60):
        while not path.exists() or not path.read_text():  # noqa: ASYNC110,ASYNC240 (another process's file)
            await anyio.sleep(0.01)
    return int(path.read_text())  # noqa: ASYNC240


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def _gone(pid: int) -> None:
    with anyio.fail_after(30):
        while _alive(pid):  # noqa: ASYNC110 (another process's state, no event)
            await anyio.sleep(0.01)


@pytest.fixture
def bounds() -> ParseBounds:
    return SMALL


@pytest.fixture
async def pool(bounds: ParseBounds) -> AsyncIterator[Offload]:
    offload = Offload(2, bounds)
    offload.start()
    try:
        yield offload
    finally:
        offload.close()


async def test_a_parse_past_its_deadline_is_killed_and_its_worker_replaced(
    pool: Offload, tmp_path: Path
) -> None:
    # A worker up and idle, which the parse goes to: the 1 s is the parse's, not a start's.
    # Its pid is known before the parse, which need not have begun when the deadline comes.
    worker = await pool.run(os.getpid)
    with pytest.raises(ParseOverBound) as over:
        await pool.run(spin_forever, str(tmp_path / "started"))
    assert over.value.cause == Cause.PARSE_DEADLINE
    await _gone(worker)
    assert await pool.run(os.getpid) != worker


async def test_a_workers_slow_start_does_not_count_against_the_parse_deadline(
    pool: Offload, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that takes longer to start than the 1 s deadline (the forkserver's preload
    on a loaded machine) still parses: the deadline is the parse's, from the hand-over."""
    start = pool._spawn

    async def slow_start() -> object:
        await anyio.sleep(1.5)
        return await start()

    monkeypatch.setattr(pool, "_spawn", slow_start)
    assert await pool.run(os.getpid) != os.getpid()


@pytest.mark.parametrize("bounds", [replace(SMALL, deadline_seconds=60.0)])  # the cap first
async def test_a_parse_past_its_memory_cap_is_killed_and_the_next_runs(pool: Offload) -> None:
    with pytest.raises(ParseOverBound) as over:
        await pool.run(hold_memory, 4 * SMALL.memory_mb)
    assert over.value.cause == Cause.PARSE_MEMORY
    assert await pool.run(hold_memory, SMALL.memory_mb // 4) == (SMALL.memory_mb // 4) << 20


@pytest.mark.parametrize("bounds", [replace(SMALL, deadline_seconds=60.0, memory_mb=1024)])
async def test_a_parse_past_its_lexbor_budget_is_read_again_with_the_model(
    pool: Offload, caplog: pytest.LogCaptureFixture
) -> None:
    """100,000 nested `<div>` hold Lexbor for many seconds: its worker dies of the budget
    (SIGPROF), and a fresh one reads the page with the model first, cut to the bound."""
    deep = gzip.decompress((HOSTILE / "deep_nesting.html.gz").read_bytes()).decode()
    first = await pool.run(os.getpid)  # idle: the job goes to it
    with caplog.at_level(logging.INFO, logger="sosoapi.offload"):
        reader, cut = await pool.run(bound_here, deep)
    assert cut and reader != first and pool.past_budget == 1
    await _gone(first)
    assert "past its Lexbor budget" in caplog.text
    assert await pool.run(bound_here, "<p>Plain.</p>") == (reader, False)  # still serving


@pytest.mark.parametrize("bounds", [replace(SMALL, deadline_seconds=60.0)])
async def test_a_worker_that_dies_of_anything_else_is_not_read_again(
    pool: Offload, tmp_path: Path
) -> None:
    tally = tmp_path / "tally"
    with pytest.raises(ParseOverBound) as over:
        await pool.run(crash_once_counted, str(tally))
    assert over.value.cause == Cause.PARSE_MEMORY
    assert tally.read_text() == "run\n"


async def test_a_parse_that_raises_raises_here_and_keeps_its_worker(pool: Offload) -> None:
    worker = await pool.run(os.getpid)
    with pytest.raises(ValueError, match="a parse's own error"):
        await pool.run(fail_plainly)
    assert await pool.run(os.getpid) == worker


async def test_other_parses_carry_on_while_one_is_stuck(tmp_path: Path) -> None:
    offload = Offload(2, ParseBounds(deadline_seconds=600, memory_mb=128))
    offload.start()
    started = tmp_path / "started"
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_expect_stopped, offload, str(started))
            stuck = await _started(started)
            for _ in range(5):
                assert await offload.run(os.getpid) not in (stuck, os.getpid())
            assert _alive(stuck)  # still parsing
            tg.cancel_scope.cancel()  # the caller stops waiting: the worker is killed
        await _gone(stuck)
    finally:
        offload.close()


async def _expect_stopped(offload: Offload, started: str) -> None:
    await offload.run(spin_forever, started)
    raise AssertionError("spin_forever returned")


async def test_close_kills_a_running_parse_instead_of_waiting(tmp_path: Path) -> None:
    offload = Offload(1, ParseBounds(deadline_seconds=600, memory_mb=128))
    offload.start()
    started = tmp_path / "started"
    with pytest.raises(ExceptionGroup) as raised:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_expect_stopped, offload, str(started))
            stuck = await _started(started)
            offload.close()
            await _gone(stuck)
    # not judged over a bound: the bytes did nothing wrong, the server is stopping
    assert raised.value.subgroup(ParseStopped) is not None
    assert raised.value.subgroup(ParseOverBound) is None


async def test_in_threads_the_deadline_stops_the_waiting() -> None:
    """Threads cannot be killed: the caller gets the verdict, the thread ends on its own."""
    release = threading.Event()
    offload = Offload(0, ParseBounds(deadline_seconds=0.2, memory_mb=128))
    with pytest.raises(ParseOverBound) as over:
        await offload.run(release.wait)
    assert over.value.cause == Cause.PARSE_DEADLINE
    release.set()
    assert await offload.run(time.monotonic) > 0


# Not a bounds test: its 8 MiB jobs and their copies must not near half the 128 MB cap
# (which retires a worker, and the next job's start is a thread trip) nor a 1 s deadline.
@pytest.mark.parametrize("bounds", [replace(SMALL, deadline_seconds=60.0, memory_mb=1024)])
async def test_a_parse_in_a_worker_takes_no_trip_to_a_thread(
    pool: Offload, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job and its answer travel on the event loop (each trip to a thread costs the
    server a wake-up of a thread and of the loop); only a worker's start uses a thread."""
    await pool.run(os.getpid)  # a worker started (in a thread) and idle
    trips: list[object] = []
    run_sync = anyio.to_thread.run_sync

    async def counted(fn: object, *args: object, **kwargs: object) -> object:
        trips.append(fn)
        return await run_sync(fn, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    big = b"x" * (8 << 20)  # past any socket buffer: sent and read back in many pieces
    assert await pool.run(len, big) == len(big)
    assert await pool.run(bytes, big) == big
    assert trips == []
