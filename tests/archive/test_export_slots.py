"""A server's export processes are bounded by a fixed, fair slot budget (issue 36), both
stores: more concurrent exports than slots never run more processes than slots; another
workspace's export still starts while one workspace holds its share; past the
workspace's queue an export is refused `busy` with Retry-After and advice; a queued
export whose client goes away never starts.

Before, an export held a heavy-read slot only while it was built, and its process lived
on while its answer was sent at the client's pace: a caller with 44 concurrent downloads
had 44 processes (each about 45 MiB and one archive of scratch).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator
from datetime import UTC, datetime
from functools import partial
from multiprocessing import forkserver
from pathlib import Path
from typing import Any

import anyio
import psutil
import pytest
from starlette.responses import Response

from sosoapi.api.http import _export_route
from sosoapi.application import Application
from sosoapi.auth.admin import Admin
from sosoapi.research.corpora.export_process import ExportProcesses
from sosoapi.research.corpora.export_slots import ExportSlots
from sosoapi.research.corpora.settings import ExportSettings
from sosoapi.research.corpora.wacz import build_package
from sosoapi.research.corpora.wacz_package import WaczPackage
from sosoapi.research.offload import process_context
from sosoapi.store.store import Store
from tests.archive.test_export import corpus
from tests.archive.test_export_pool import Client, _send_all, _wait_for, private_tmp
from tests.support.origin import HTTPSOrigin

__all__ = ["private_tmp"]  # the fixture, used by name
pytestmark = pytest.mark.slow(reason="forks export processes; seals a corpus in two workspaces")
SLOTS, SHARE = 3, 2


class Lingering:
    """A built package whose ZIP stops after its first chunk until the test says `go`:
    its process stays alive as one whose answer is being sent to a slow client."""

    def __init__(self, package: WaczPackage, go: Path) -> None:
        self.package, self.go = package, go
        self.counts = package.counts

    @property
    def summary(self) -> Any:
        return self.package.summary

    def chunks(self) -> Generator[bytes, None, None]:
        deadline = time.monotonic() + 120
        for n, chunk in enumerate(self.package.chunks()):
            while n == 1 and not self.go.exists() and time.monotonic() < deadline:
                time.sleep(0.02)  # the child polls the test's file, with a deadline
            yield chunk


def lingering(marks: str, *args: Any, scratch: Path, **kwargs: Any) -> Lingering:
    """The real build (in the export's process), noting the process and its workspace."""
    snapshot = args[2]
    Path(marks, str(os.getpid())).write_text(json.dumps(str(snapshot.workspace_id)))
    return Lingering(build_package(*args, scratch=scratch, **kwargs), Path(marks, "go"))


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


class Builds:
    """The export processes the test's build has run in: per workspace, and how many of
    them were alive at once at the most (sampled until `stop`)."""

    def __init__(self, marks: Path) -> None:
        self.marks, self.most, self.sampling = marks, 0, True

    def started(self) -> dict[int, str]:
        return {
            int(p.name): json.loads(p.read_text())
            for p in self.marks.iterdir()
            if p.name.isdigit() and p.read_text()
        }

    def of(self, workspace_id: str) -> int:
        return sum(ws == workspace_id for ws in self.started().values())

    def alive(self) -> int:
        return sum(_alive(pid) for pid in self.started())

    async def sample(self) -> None:
        while self.sampling:
            self.most = max(self.most, self.alive())
            await anyio.sleep(0.01)


@pytest.fixture(scope="module", autouse=True)
def _forkserver() -> None:
    """Started before `private_tmp` moves the temporary folder (its socket lives there)."""
    process_context()
    forkserver.ensure_running()


async def test_export_processes_are_bounded_by_a_fair_slot_budget(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    database_url: str,
    private_tmp: Path,
    tmp_path: Path,
) -> None:
    a, a_token = owner
    now = datetime.now(UTC)
    admin = Admin(application.store.auth)
    b = application.store.auth.create_workspace("other", now).id
    b_token = admin.mint(admin.create_member(b, "b", "viewer", now), now).token
    a_corpus, _ = await corpus(application, a_token, a, origin)
    b_owner = admin.mint(admin.create_member(b, "b-owner", "owner", now), now).token
    b_corpus, _ = await corpus(application, b_owner, b, origin)

    marks = tmp_path / "marks"
    marks.mkdir()
    research = application.research
    opener = partial(Store, database_url, migrate=False, pool_size=1)
    research.exports = ExportProcesses(opener, partial(lingering, str(marks)))
    slots = ExportSlots(ExportSettings(SLOTS, SHARE, max_queued_per_workspace=1))
    research.export_slots = slots
    endpoint = _export_route(research, "")
    builds = Builds(marks)
    clients: dict[str, Client] = {}
    answers: dict[str, Response] = {}

    async def export(name: str, token: str, ws: str, corpus_id: str) -> None:
        clients[name] = Client(token, f"workspace_id={ws}&corpus_id={corpus_id}")
        answers[name] = await endpoint(clients[name].request)

    a_export = partial(export, token=a_token, ws=a, corpus_id=a_corpus["id"])
    b_export = partial(export, token=b_token, ws=b, corpus_id=b_corpus["id"])
    async with anyio.create_task_group() as tg:
        tg.start_soon(builds.sample)
        try:
            for name in ("a1", "a2", "a3"):  # one more than A's share
                tg.start_soon(a_export, name)
            await _wait_for(lambda: builds.of(a) == SHARE and slots.slots.waiting(a) == 1)
            await _wait_for(lambda: len(answers) == SHARE)
            (queued,) = {"a1", "a2", "a3"} - answers.keys()  # whichever came third
            running = sorted(answers)
            await a_export("a4")  # past A's queue of one: refused before anything starts
            await b_export("b1")  # another workspace: starts at once, in the last slot
            assert answers["b1"].status_code == 200 and builds.of(b) == 1
            tg.start_soon(b_export, "b2")  # the server's slots are all held: B waits
            await _wait_for(lambda: slots.slots.waiting(b) == 1)
            assert builds.alive() == SLOTS and slots.open == SLOTS

            clients[queued].leave()  # queued, its client gone: leaves the queue unstarted
            await _wait_for(lambda: queued in answers and slots.slots.waiting(a) == 0)
            (marks / "go").write_text("")
            first = await _send_all(answers[running[0]], clients[running[0]], lambda: None)
            await _wait_for(lambda: "b2" in answers)  # A's freed slot went to B's waiting one
            sent = [*running[1:], "b1", "b2"]
            rest = [await _send_all(answers[n], clients[n], lambda: None) for n in sent]
        finally:
            (marks / "go").write_text("")
            builds.sampling = False

    refused = answers["a4"]
    assert refused.status_code == 429 and refused.headers["retry-after"]
    problem = json.loads(bytes(refused.body))
    assert problem["type"].endswith("busy")
    assert "SOSOAPI_EXPORT_MAX_QUEUED_PER_WORKSPACE" in problem["detail"]
    assert "Retry after" in problem["detail"]
    assert answers[queued].status_code == 204
    assert {n: answers[n].status_code for n in (*running, "b1", "b2")} == dict.fromkeys(
        (*running, "b1", "b2"), 200
    )
    assert all(body.startswith(b"PK") for body in (first, *rest))
    assert (builds.of(a), builds.of(b)) == (2, 2)  # the queued A never started, A4 never did
    assert 0 < builds.most <= SLOTS  # never more export processes than slots
    assert (slots.started, slots.open, slots.peak) == (4, 0, SLOTS)
    await _wait_for(lambda: builds.alive() == 0)
    await _wait_for(
        lambda: not [p for p in private_tmp.iterdir() if not p.name.startswith("pymp-")]
    )
