"""Heavy reads' text work in processes of their own (issue 36): the quote check, the diff
and a search's snippets give the same answers as in the job's thread, with none of that
work done in the server's process; the process runs at a lower priority, is killed at
once when its caller goes away, and a job past its bound is refused `too_large`.

In the server's threads that work held the interpreter's lock for tens of milliseconds
a revision, and another workspace's quick read waited for it (bench/README.md, "Floods").
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import psutil
import pytest

from sosoapi.contract.errors import ErrorCode, ServiceError
from sosoapi.research.evidence import diffs, quotes, search
from sosoapi.research.evidence.settings import HeavyReadSettings
from sosoapi.research.heavy import NICENESS, HeavyReads, ShouldStop, never
from sosoapi.research.offload import Offload
from sosoapi.research.retrieval.settings import ParseBounds
from tests.research.test_heavy_reads_reserve_first import Counting, _arguments, _seed, _tools

pytestmark = pytest.mark.slow(reason="forks heavy-read processes")
SETTINGS = HeavyReadSettings(slots=2, per_workspace=1)


@pytest.fixture
async def processes() -> AsyncIterator[Offload]:
    pool = Offload(SETTINGS.slots, ParseBounds(deadline_seconds=60.0, memory_mb=512))
    pool.start()
    try:
        yield pool
    finally:
        pool.close()


def linger(started: str) -> None:
    """Work that never ends on its own: it says where it runs, then waits to be killed."""
    Path(started).write_text(str(os.getpid()))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        time.sleep(0.01)


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def _until(condition: Callable[[], bool]) -> None:
    with anyio.fail_after(60):
        while not condition():  # noqa: ASYNC110 (another process's state: no event)
            await anyio.sleep(0.01)


@pytest.mark.parametrize(
    ("tool", "module", "work"),
    [("quote", quotes, "find_quote"), ("diff", diffs, "diff_text"),
     ("search", search, "stored_revision")],
)  # fmt: skip
async def test_the_same_answers_with_the_text_work_in_processes(
    processes: Offload, monkeypatch: pytest.MonkeyPatch, tool: str, module: Any, work: str
) -> None:
    """Counted in this process: the work runs here without processes, never with them
    (a process is forked from the forkserver, which this test's patch does not reach)."""
    done = [0]
    real = getattr(module, work)

    def counted(*args: Any, **kwargs: Any) -> Any:
        done[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, work, counted)
    storage, ids, corpus = _seed()
    port = Counting(storage, corpus)
    here = _tools(storage, port, HeavyReads(SETTINGS))[tool]
    separate = _tools(storage, port, HeavyReads(SETTINGS, processes))[tool]
    in_thread = (await here(_arguments(tool, ids, corpus))).output
    assert done[0] > 0
    done[0] = 0
    in_process = (await separate(_arguments(tool, ids, corpus))).output
    assert done[0] == 0, f"{work} ran in the server's process"
    assert in_process == in_thread
    assert in_process.wire() != {}


async def test_the_work_runs_in_a_lower_priority_process(processes: Offload) -> None:
    heavy = HeavyReads(SETTINGS, processes)

    def job(should_stop: ShouldStop) -> tuple[int, int]:
        return heavy.compute(os.getpid), heavy.compute(os.getpriority, os.PRIO_PROCESS, 0)

    pid, nice = await heavy.run_for("ws", never, job)
    assert pid != os.getpid()
    assert nice >= os.getpriority(os.PRIO_PROCESS, 0) + NICENESS


async def test_a_caller_that_leaves_ends_the_process_at_once(
    processes: Offload, tmp_path: Path
) -> None:
    heavy = HeavyReads(SETTINGS, processes)
    started = tmp_path / "started"

    def job(should_stop: ShouldStop) -> None:
        heavy.compute(linger, str(started))
        raise AssertionError("linger returned")

    async with anyio.create_task_group() as tg:
        tg.start_soon(heavy.run_for, "ws", never, job)
        await _until(lambda: started.exists() and bool(started.read_text()))
        pid = int(started.read_text())
        assert _alive(pid)
        tg.cancel_scope.cancel()  # the caller is gone: its task is cancelled
    await _until(lambda: not _alive(pid))
    assert (heavy.started, heavy.stopped) == (1, 1)
    assert await heavy.run_for("ws", never, lambda should_stop: heavy.compute(abs, -3)) == 3


async def test_work_past_the_bound_is_refused_too_large(tmp_path: Path) -> None:
    pool = Offload(1, ParseBounds(deadline_seconds=1.0, memory_mb=512))
    pool.start()
    heavy = HeavyReads(SETTINGS, pool)
    try:
        await heavy.run_for("ws", never, lambda should_stop: heavy.compute(abs, -1))  # warm
        with pytest.raises(ServiceError) as refused:
            job = lambda should_stop: heavy.compute(linger, str(tmp_path / "s"))  # noqa: E731
            await heavy.run_for("ws", never, job)
    finally:
        pool.close()
    assert refused.value.code == ErrorCode.TOO_LARGE
    assert "took longer than 1 s" in refused.value.message
