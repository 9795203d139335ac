"""A server's exports are built and zipped in a process of their own, at a lower priority,
with the heavy-read pool's bounds: the package is the one the threads made, a caller that
leaves (building or reading) ends the process and its scratch, and a failure answers as
the store's (both stores).

Before, the export's CPU work ran in the server's threads and shared the interpreter's
lock with every quick read (bench/README.md, "Floods").
"""

from __future__ import annotations

import gzip
import io
import json
import os
import time
import zipfile
from functools import partial
from multiprocessing import forkserver
from pathlib import Path
from typing import Any

import anyio
import psutil
import pytest

from sosoapi.api.http import _export_route
from sosoapi.application import Application
from sosoapi.research.corpora.export_process import ExportProcesses
from sosoapi.research.corpora.export_worker import NICENESS
from sosoapi.research.corpora.wacz import build_package
from sosoapi.research.offload import process_context
from sosoapi.store.records import StoreUnavailable
from sosoapi.store.store import Store
from tests.archive.test_export import corpus
from tests.archive.test_export_pool import (
    Client,
    _read_then_leave,
    _send_all,
    _wait_for,
    private_tmp,
)
from tests.support.origin import HTTPSOrigin

__all__ = ["private_tmp"]  # the fixture, used by name
pytestmark = pytest.mark.slow(reason="forks export processes; each test seals a corpus of 3")


def noting(marks: str, *args: Any, scratch: Path, **kwargs: Any) -> Any:
    """The real build, after noting the process it runs in and its niceness."""
    Path(marks, "built-by").write_text(json.dumps([os.getpid(), os.getpriority(0, 0)]))
    return build_package(*args, scratch=scratch, **kwargs)


def held(marks: str, *args: Any, scratch: Path, **kwargs: Any) -> Any:
    """A build that notes its process, then never finishes (its caller must end it)."""
    Path(marks, "built-by").write_text(json.dumps([os.getpid(), os.getpriority(0, 0)]))
    while True:
        time.sleep(0.05)


def failing(marks: str, *args: Any, scratch: Path, **kwargs: Any) -> Any:
    (scratch / "half.warc.gz").write_bytes(b"x" * 1000)  # some scratch, left half-made
    raise StoreUnavailable("database is locked")


async def _builder(marks: Path) -> tuple[int, int]:
    path = marks / "built-by"
    await _wait_for(lambda: path.exists() and bool(path.read_text()))
    pid, nice = json.loads(path.read_text())
    return int(pid), int(nice)


def _empty(folder: Path) -> bool:
    """No export's scratch left (the forkserver's socket folder, made in the temporary
    folder of the test that first forks, is not an export's)."""
    return not [p for p in folder.iterdir() if not p.name.startswith("pymp-")]


def _ended(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _separate(application: Application, database_url: str, build: Any, marks: Path) -> None:
    opener = partial(Store, database_url, migrate=False, pool_size=1)
    application.research.exports = ExportProcesses(opener, partial(build, str(marks)))


@pytest.fixture(scope="module", autouse=True)
def _forkserver() -> None:
    """Started before `private_tmp` moves the temporary folder: its socket lives there,
    and a test's folder makes too long a path for a Unix socket."""
    process_context()
    forkserver.ensure_running()


@pytest.fixture
def marks(tmp_path: Path) -> Path:
    folder = tmp_path / "marks"
    folder.mkdir()
    return folder


async def test_a_served_export_is_built_in_a_lower_priority_process_with_the_same_package(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    database_url: str,
    private_tmp: Path,
    marks: Path,
) -> None:
    ws, token = owner
    snapshot, _ = await corpus(application, token, ws, origin)
    endpoint = _export_route(application.research, "")
    query = f"workspace_id={ws}&corpus_id={snapshot['id']}"

    async def export() -> dict[str, bytes]:
        client = Client(token, query)
        response = await endpoint(client.request)
        assert response.status_code == 200 and response.headers["export-revisions"] == "3"
        body = await _send_all(response, client, lambda: None)
        with zipfile.ZipFile(io.BytesIO(body)) as package:
            assert package.testzip() is None
            return {n: package.read(n) for n in package.namelist()}

    in_threads = await export()
    _separate(application, database_url, noting, marks)
    separate = await export()
    pid, nice = await _builder(marks)
    assert pid != os.getpid() and nice >= os.getpriority(0, 0) + NICENESS
    assert separate.keys() == in_threads.keys()
    for same in ("pages/pages.jsonl", "corpus/bibliography.bib", "corpus/corpus.json"):
        assert separate[same] == in_threads[same], same
    warc = "archive/data.warc.gz"  # the same records; their ids are new each time
    assert len(gzip.decompress(separate[warc])) == len(gzip.decompress(in_threads[warc]))
    await _wait_for(lambda: _ended(pid))
    assert _empty(private_tmp)


async def test_a_caller_that_leaves_ends_the_export_process_building_or_sending(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    database_url: str,
    private_tmp: Path,
    marks: Path,
) -> None:
    ws, token = owner
    snapshot, _ = await corpus(application, token, ws, origin)
    endpoint = _export_route(application.research, "")
    query = f"workspace_id={ws}&corpus_id={snapshot['id']}"
    heavy = application.research.heavy

    _separate(application, database_url, held, marks)
    building = Client(token, query)
    answered: list[int] = []

    async def export() -> None:
        answered.append((await endpoint(building.request)).status_code)

    async with anyio.create_task_group() as tg:
        tg.start_soon(export)
        pid, _ = await _builder(marks)
        building.leave()
    assert answered == [204] and heavy.stopped == 1
    await _wait_for(lambda: _ended(pid))
    assert _empty(private_tmp)

    (marks / "built-by").unlink()
    _separate(application, database_url, noting, marks)
    partial_body, chunks = await _read_then_leave(endpoint, token, query)
    assert len(partial_body) > 0 and chunks < 40
    pid, _ = await _builder(marks)
    await _wait_for(lambda: _ended(pid))
    await _wait_for(lambda: _empty(private_tmp))


async def test_an_export_process_that_fails_answers_as_the_store_and_leaves_no_scratch(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    database_url: str,
    private_tmp: Path,
    marks: Path,
) -> None:
    ws, token = owner
    snapshot, _ = await corpus(application, token, ws, origin)
    endpoint = _export_route(application.research, "")
    _separate(application, database_url, failing, marks)
    client = Client(token, f"workspace_id={ws}&corpus_id={snapshot['id']}")
    response = await endpoint(client.request)
    assert response.status_code == 503, response.body
    assert b"unavailable" in response.body
    assert _empty(private_tmp)
