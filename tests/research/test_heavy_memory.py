"""Issue 36 item 9: the heavy-read pool gives freed memory back when it goes idle.

glibc keeps the arenas a job's texts were freed into; after floods of quote checks and
exports on 00f031f the server held 1.8-2.5 GB it no longer used. Here `malloc_trim` is
recorded instead of called: the last job to end trims, once, and a job ending while
another still runs does not. The memory it returns is measured in bench/floods.py.
"""

from __future__ import annotations

import threading

import anyio
import pytest

from sosoapi.research import heavy
from sosoapi.research.evidence.settings import HeavyReadSettings
from sosoapi.research.heavy import HeavyReads, ShouldStop, never


async def test_the_last_heavy_job_to_end_gives_memory_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trims: list[int] = []
    monkeypatch.setattr(heavy, "_TRIM", trims.append)
    pool = HeavyReads(HeavyReadSettings(slots=2, per_workspace=1))
    release, begun = threading.Event(), threading.Event()

    def long_job(should_stop: ShouldStop) -> str:
        begun.set()
        assert release.wait(60), "never released"
        return "long"

    def short_job(should_stop: ShouldStop) -> str:
        return "short"

    answers: list[str] = []

    async def run(workspace_id: str, job: object) -> None:
        answers.append(await pool.run_for(workspace_id, never, job))  # type: ignore[arg-type]

    async with anyio.create_task_group() as tg:
        try:
            tg.start_soon(run, "a", long_job)
            # the long job runs in its thread (the pool counts it `started` a step before)
            with anyio.fail_after(30):
                await anyio.to_thread.run_sync(begun.wait)
            await run("b", short_job)
            assert answers == ["short"] and trims == []  # the long job still holds memory
        finally:
            release.set()
    assert answers == ["short", "long"] and trims == [0]
    await run("b", short_job)
    assert trims == [0, 0]  # idle again: given back again
