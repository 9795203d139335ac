"""Issue 36 item 2: exports run in the heavy-read pool, scratch one archive's size, and
stop when their HTTP client goes away (the API's export route, both stores).

On 00f031f an export ran in the event loop's default threads, outside the pool: a burst
held every thread, was never refused, kept building after its client left, and spooled
the finished ZIP beside its parts (twice the archive in the temporary folder).
"""

from __future__ import annotations

import io
import tempfile
import threading
import zipfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from starlette.requests import Request
from starlette.responses import Response

from sosoapi.api.http import _export_route
from sosoapi.application import Application
from sosoapi.research.corpora import wacz
from sosoapi.research.evidence.settings import HeavyReadSettings
from sosoapi.research.heavy import HeavyReads, ShouldStop, never
from tests.archive.test_export import corpus
from tests.support.origin import HTTPSOrigin


class Client:
    """A GET of the export route whose client leaves when `leave()` is called; `told`
    turns true once the server has been handed the disconnect."""

    def __init__(self, token: str, query: str) -> None:
        self.gone = anyio.Event()
        self.told = False
        self.sent = False
        scope = {
            "type": "http", "method": "GET", "path": "/research-api/corpora/export",
            "headers": [(b"authorization", f"Bearer {token}".encode())],
            "query_string": query.encode(),
        }  # fmt: skip
        self.request = Request(scope, self.receive)
        self.scope = scope

    def leave(self) -> None:
        self.gone.set()

    async def receive(self) -> dict[str, Any]:
        if not self.sent:
            self.sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.gone.wait()
        self.told = True
        return {"type": "http.disconnect"}


async def _wait_for(condition: Callable[[], bool]) -> None:
    with anyio.fail_after(60):
        while not condition():  # noqa: ASYNC110 (the pool's state: no event to wait on)
            await anyio.sleep(0.01)


def _scratch(folder: Path) -> int:
    """Bytes of every file under the temporary folder."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _empty(folder: Path) -> bool:
    return not list(folder.iterdir())


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


async def _send_all(response: Response, client: Client, on_chunk: Callable[[], None]) -> bytes:
    body = io.BytesIO()

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            body.write(message.get("body", b""))
            on_chunk()

    await response(client.scope, client.receive, send)
    return body.getvalue()


async def _read_then_leave(
    endpoint: Callable[[Request], Awaitable[Response]], token: str, query: str
) -> tuple[bytes, int]:
    """An export's answer read by a client that leaves after the body's first chunk: the
    bytes it got, and how many chunks the answer sent before it stopped."""
    reading = Client(token, query)
    response = await endpoint(reading.request)
    reading.scope["asgi"] = {"spec_version": "2.3"}  # the server reports a disconnect
    chunks = [0]

    def one_chunk() -> None:
        chunks[0] += 1
        if chunks[0] == 2:
            reading.leave()  # gone after the first chunk of the body

    return await _send_all(response, reading, one_chunk), chunks[0]


async def test_exports_wait_in_the_pool_are_refused_past_it_and_scratch_one_archive(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, private_tmp: Path
) -> None:
    ws, token = owner
    snapshot, _ = await corpus(application, token, ws, origin)
    heavy = HeavyReads(HeavyReadSettings(slots=1, per_workspace=1, max_queued_per_workspace=1))
    application.research.heavy = heavy
    endpoint = _export_route(application.research, "")
    query = f"workspace_id={ws}&corpus_id={snapshot['id']}"
    release = threading.Event()

    def holding(should_stop: ShouldStop) -> None:
        assert release.wait(60), "the slot was never released"

    statuses: dict[int, int] = {}

    async def export(n: int, client: Client) -> None:
        statuses[n] = (await endpoint(client.request)).status_code

    leaving = Client(token, query)
    async with anyio.create_task_group() as tg:
        try:
            tg.start_soon(heavy.run_for, ws, never, holding)
            await _wait_for(lambda: heavy.started == 1)
            tg.start_soon(export, 0, leaving)
            await _wait_for(lambda: heavy.slots.waiting(ws) == 1)  # in the pool's queue
            refused = await endpoint(Client(token, query).request)
            assert refused.status_code == 429 and b"busy" in refused.body
            assert refused.headers["retry-after"]
            leaving.leave()  # queued, its client gone: dropped unbuilt
            await _wait_for(lambda: heavy.slots.waiting(ws) == 0 and 0 in statuses)
        finally:
            release.set()
    assert statuses == {0: 204} and heavy.started == 1
    assert _scratch(private_tmp) == 0

    staying = Client(token, query)
    response = await endpoint(staying.request)
    assert response.status_code == 200 and response.headers["export-revisions"] == "3"
    seen = [0]
    package = await _send_all(
        response, staying, lambda: seen.__setitem__(0, max(seen[0], _scratch(private_tmp)))
    )
    with zipfile.ZipFile(io.BytesIO(package)) as opened:
        assert opened.testzip() is None
        names = set(opened.namelist())
        parts = sum(i.file_size for i in opened.infolist() if not i.filename.startswith("data"))
    assert {"archive/data.warc.gz", "datapackage.json", "pages/pages.jsonl"} <= names
    assert 0 < seen[0] <= parts  # the parts as the package holds them, never a second copy
    assert _scratch(private_tmp) == 0 and _empty(private_tmp)


async def test_an_export_whose_client_leaves_stops_building_and_sending(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    private_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ws, token = owner
    snapshot, _ = await corpus(application, token, ws, origin)
    heavy = application.research.heavy
    endpoint = _export_route(application.research, "")
    query = f"workspace_id={ws}&corpus_id={snapshot['id']}"
    opened, entered = threading.Event(), threading.Event()
    cite = wacz.csl_item

    def gated(*args: Any) -> Any:  # the build's step for each revision
        entered.set()
        assert opened.wait(60), "the gate was never opened"
        return cite(*args)

    monkeypatch.setattr(wacz, "csl_item", gated)
    building = Client(token, query)
    answered: list[Response] = []

    async def export() -> None:
        answered.append(await endpoint(building.request))

    async with anyio.create_task_group() as tg:
        try:
            tg.start_soon(export)
            await _wait_for(entered.is_set)  # building, on its first revision
            building.leave()
            await _wait_for(lambda: building.told)  # the cancel is made before it goes on
        finally:
            opened.set()
    assert [r.status_code for r in answered] == [204]
    assert (heavy.started, heavy.stopped) == (1, 1)  # stopped at the next revision
    assert _empty(private_tmp)  # its scratch removed

    monkeypatch.setattr(wacz, "csl_item", cite)
    partial, chunks = await _read_then_leave(endpoint, token, query)
    assert len(partial) > 0 and chunks < 40
    await _wait_for(lambda: _empty(private_tmp))  # the scratch removed
