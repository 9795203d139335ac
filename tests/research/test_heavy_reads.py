"""Heavy reads (diff, quote check, search) shared fairly between workspaces (issue 23).

Workspace A floods one kind of heavy read; each of A's jobs is held at a gate inside its
worker thread (the algorithm's own call), so the order is decided by the scheduler alone,
never by a timing window. B's quick reads and B's own heavy read must finish while every
one of A's calls is still unfinished and nearly all of them still queued. On main, A's
blocked jobs held the shared thread pool, and B's first thread hop (authentication)
waited behind them.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from starlette.requests import Request

from sosoapi.api.http import _route
from sosoapi.application import Application
from sosoapi.auth.admin import Admin
from sosoapi.contract.errors import ErrorCode, ServiceError
from sosoapi.research.evidence import diffs, quotes, search
from sosoapi.research.evidence.settings import HeavyReadSettings
from sosoapi.web.console import COOKIE
from tests.support.contract import assert_valid_output
from tests.support.evidence_tools import html
from tests.support.lifespan import held_open
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import make_settings, owner_token
from tests.web.conftest import console_app, sign_in

P = "sosoapi_research_evidence_"
MARK = "glaciermark"  # in A's texts and queries only: the gate holds A's jobs, never B's
BURST = 45  # more than the shared thread pool's 40 threads


class Gate:
    """Wraps a function so that calls naming MARK wait until the gate opens (on leaving
    the `async with` at the latest: the held threads end even when an assertion fails)."""

    async def __aenter__(self) -> Gate:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.opened.set()

    def __init__(self) -> None:
        self.opened = threading.Event()
        self.entered = 0
        self._lock = threading.Lock()

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def gated(*args: Any, **kwargs: Any) -> Any:
            if any(MARK in str(a) for a in args):
                with self._lock:
                    self.entered += 1
                assert self.opened.wait(120), "the gate was never opened"
            return fn(*args, **kwargs)

        return gated


@pytest.fixture
def heavy_settings() -> HeavyReadSettings:
    return HeavyReadSettings(slots=2, per_workspace=1, max_queued_per_workspace=64)


@pytest.fixture
async def app(
    database_url: str, tmp_path: Path, origin: HTTPSOrigin, heavy_settings: HeavyReadSettings
) -> AsyncIterator[Application]:
    settings = make_settings(database_url, tmp_path, origin.egress_env())
    application = Application(replace(settings, heavy_reads=heavy_settings))
    async with held_open(application.running()):
        yield application
    application.store.close()


def _paragraphs(word: str, changed: bool) -> list[str]:
    """A few hundred characters of prose (the page repeats them thrice); the second
    revision changes every other sentence. Small: A's whole burst is diffed in the test."""
    return [
        f"Sentence {n} of the {word} survey reports {'new' if changed and n % 2 == 0 else 'old'} "
        f"readings of ice thickness along the northern ridge in the late spring."
        for n in range(4)
    ]


class Workspaces:
    def __init__(self, app: Application, origin: HTTPSOrigin) -> None:
        self.app, self.origin = app, origin
        self.a, self.a_token = owner_token(app)
        now = datetime.now(UTC)
        auth = app.store.auth
        self.b = auth.create_workspace("other", now).id
        user = Admin(auth).create_member(self.b, "b", "editor", now)
        self.b_token = Admin(auth).mint(user, now).token

    async def call(self, token: str, ws: str, tool: str, **arguments: Any) -> dict:
        outcome = await self.app.research.call(P + tool, token, {"workspace_id": ws, **arguments})
        data = outcome.output.wire()
        assert_valid_output(P + tool, data)
        return data

    async def two_revisions(self, token: str, ws: str, word: str) -> str:
        path = f"/{word}-{uuid.uuid4().hex[:6]}"
        evidence_id = ""
        for changed in (False, True):
            self.origin.routes[path] = Route(html("en", word, _paragraphs(word, changed)))
            data = await self.call(
                token, ws, "retrieve", url=self.origin.url(path), kind="url_text",
                mutation_id=str(uuid.uuid4()),
            )  # fmt: skip
            evidence_id = data["retrieval"]["evidence"]["evidence_id"]
        return evidence_id


@pytest.fixture
async def spaces(app: Application, origin: HTTPSOrigin) -> Workspaces:
    return Workspaces(app, origin)


FLOODS: dict[str, tuple[Any, str]] = {
    "diff": (diffs, "diff_text"),
    "quote": (quotes, "find_quote"),
    "search": (search, "searchable"),
}


def _flood_arguments(tool: str, evidence_id: str) -> dict[str, Any]:
    if tool == "diff":
        return {"evidence_id": evidence_id, "from_revision": 1, "to_revision": 2}
    if tool == "quote":
        return {"evidence_id": evidence_id, "quote": f"the {MARK} survey reports old readings"}
    return {"query": f"{MARK} ridge"}


async def _wait_for(condition: Callable[[], bool]) -> None:
    with anyio.fail_after(60):
        while not condition():  # noqa: ASYNC110 (the state is the scheduler's, no event)
            await anyio.sleep(0.02)


@pytest.mark.parametrize("tool", list(FLOODS))
async def test_another_workspaces_reads_finish_while_a_burst_is_queued(
    app: Application, spaces: Workspaces, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    a_evidence = await spaces.two_revisions(spaces.a_token, spaces.a, MARK)
    b_evidence = await spaces.two_revisions(spaces.b_token, spaces.b, "harbour")
    gate = Gate()
    module, name = FLOODS[tool]
    monkeypatch.setattr(module, name, gate.wrap(getattr(module, name)))
    finished: list[dict] = []

    async def flood() -> None:
        arguments = _flood_arguments(tool, a_evidence)
        finished.append(await spaces.call(spaces.a_token, spaces.a, tool, **arguments))

    async with anyio.create_task_group() as tg, gate:
        for _ in range(BURST):
            tg.start_soon(flood)
        await _wait_for(lambda: gate.entered >= 1)
        with anyio.fail_after(60):  # on main: never, while the gate holds A's threads
            got = await spaces.call(spaces.b_token, spaces.b, "get", evidence_id=b_evidence)
            found = await spaces.call(spaces.b_token, spaces.b, "search", query="harbour ridge")
            diffed = await spaces.call(
                spaces.b_token, spaces.b, "diff", evidence_id=b_evidence, from_revision=1
            )
        assert finished == [], "B finished while every call of A's burst was unfinished"
        # every other call of the burst queues behind the one running (each reaches the
        # queue in its own time: wait for them, never for a fixed while)
        await _wait_for(lambda: app.research.heavy.slots.waiting(spaces.a) == BURST - 1)
        assert gate.entered == 1
    assert got["evidence"]["id"] == b_evidence
    assert [r["evidence_id"] for r in found["results"]] == [b_evidence]
    assert diffed["stats"]["chars_added"] > 0
    assert len(finished) == BURST  # A's burst was delayed, never refused or dropped
    assert app.research.heavy.slots.waiting(spaces.a) == 0


async def test_a_caller_that_goes_away_stops_its_work(
    app: Application, spaces: Workspaces, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A queued job whose caller is cancelled never runs; a running one stops at its next
    checkpoint (after the gated step, before the next); the slots come back."""
    evidence_id = await spaces.two_revisions(spaces.a_token, spaces.a, MARK)
    gate = Gate()
    monkeypatch.setattr(diffs, "diff_text", gate.wrap(diffs.diff_text))
    heavy = app.research.heavy
    arguments = {"evidence_id": evidence_id, "from_revision": 1, "to_revision": 2}
    scopes = [anyio.CancelScope(), anyio.CancelScope()]
    answers: list[dict] = []

    async def diff(scope: anyio.CancelScope) -> None:
        with scope:
            answers.append(await spaces.call(spaces.a_token, spaces.a, "diff", **arguments))

    async with anyio.create_task_group() as tg, gate:
        tg.start_soon(diff, scopes[0])
        await _wait_for(lambda: gate.entered == 1)
        tg.start_soon(diff, scopes[1])
        await _wait_for(lambda: heavy.slots.waiting(spaces.a) == 1)
        scopes[1].cancel()  # queued: dropped from the queue at once
        await _wait_for(lambda: heavy.slots.waiting(spaces.a) == 0)
        scopes[0].cancel()  # running: stops at its next checkpoint
    assert answers == []
    assert (heavy.started, heavy.stopped) == (1, 1)
    again = await spaces.call(spaces.a_token, spaces.a, "diff", **arguments)  # slots freed
    assert again["stats"]["chars_added"] > 0
    assert (heavy.started, heavy.stopped) == (2, 1)


@pytest.mark.parametrize("heavy_settings", [HeavyReadSettings(slots=2, max_queued_per_workspace=2)])
async def test_past_its_queue_bound_a_workspace_is_told_to_retry_later(
    app: Application, spaces: Workspaces, monkeypatch: pytest.MonkeyPatch
) -> None:
    evidence_id = await spaces.two_revisions(spaces.a_token, spaces.a, MARK)
    b_evidence = await spaces.two_revisions(spaces.b_token, spaces.b, "harbour")
    gate = Gate()
    monkeypatch.setattr(diffs, "diff_text", gate.wrap(diffs.diff_text))
    arguments = {"evidence_id": evidence_id, "from_revision": 1}

    async def diff() -> None:
        await spaces.call(spaces.a_token, spaces.a, "diff", **arguments)

    async with anyio.create_task_group() as tg, gate:
        for _ in range(3):  # one runs, two wait: the bound
            tg.start_soon(diff)
        await _wait_for(lambda: app.research.heavy.slots.waiting(spaces.a) == 2)
        with pytest.raises(ServiceError) as refused:
            await spaces.call(spaces.a_token, spaces.a, "diff", **arguments)
        b = await spaces.call(
            spaces.b_token, spaces.b, "diff", evidence_id=b_evidence, from_revision=1
        )
    error = refused.value
    assert error.code == ErrorCode.BUSY and error.http_status == 429
    assert error.retry_after_seconds and error.retry_after_seconds > 0
    assert "SOSOAPI_HEAVY_READ_MAX_QUEUED_PER_WORKSPACE" in error.message
    assert "Retry after" in error.message and error.field == "workspace_id"
    assert b["stats"]["chars_added"] > 0  # another workspace has its own bound


class Client:
    """An HTTP client whose body arrives whole, then who leaves when `leave()` is called.
    `told` turns true once the server has been handed the disconnect: the route cancels
    its call in that same step, so a test waiting for `told` knows the cancel was made."""

    def __init__(self) -> None:
        self.gone = anyio.Event()
        self.told = False

    def leave(self) -> None:
        self.gone.set()

    def receiver(self, body: bytes) -> Callable[[], Awaitable[dict[str, Any]]]:
        """The ASGI `receive` of this client's request."""
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await self.gone.wait()
            self.told = True
            return {"type": "http.disconnect"}

        return receive

    def request(self, token: str, body: bytes) -> Request:
        scope = {
            "type": "http",
            "method": "POST",
            "path": "/research-api/evidence/diff",
            "headers": [(b"authorization", f"Bearer {token}".encode())],
            "query_string": b"",
        }
        return Request(scope, self.receiver(body))


async def test_an_http_client_that_disconnects_stops_its_read(
    app: Application, spaces: Workspaces, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The API route of the diff tool: a queued call is dropped when its client goes away,
    a running one stops at its next checkpoint, and one whose client stays is answered."""
    evidence_id = await spaces.two_revisions(spaces.a_token, spaces.a, MARK)
    gate = Gate()
    monkeypatch.setattr(diffs, "diff_text", gate.wrap(diffs.diff_text))
    heavy = app.research.heavy
    endpoint = _route(app.research, P + "diff", "")
    body = json.dumps({"workspace_id": spaces.a, "evidence_id": evidence_id, "from_revision": 1})
    clients = [Client() for _ in range(3)]
    statuses: dict[int, int] = {}

    async def post(n: int) -> None:
        response = await endpoint(clients[n].request(spaces.a_token, body.encode()))
        statuses[n] = response.status_code

    async with anyio.create_task_group() as tg, gate:
        tg.start_soon(post, 0)
        await _wait_for(lambda: gate.entered == 1)
        tg.start_soon(post, 1)
        tg.start_soon(post, 2)
        await _wait_for(lambda: heavy.slots.waiting(spaces.a) == 2)
        clients[1].leave()  # queued, its client gone: dropped
        await _wait_for(lambda: heavy.slots.waiting(spaces.a) == 1)
        clients[0].leave()  # running, its client gone: stops at the next checkpoint
        await _wait_for(lambda: clients[0].told)  # the cancel is made before the job goes on
        gate.opened.set()
    await _wait_for(lambda: len(statuses) == 3)
    assert statuses == {0: 204, 1: 204, 2: 200}
    assert (heavy.started, heavy.stopped) == (2, 1)  # the second call's turn never came


async def test_a_console_reader_who_leaves_stops_the_diff_page(
    app: Application, spaces: Workspaces, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The console's diff page: a reader who closes the tab while the diff runs stops it
    at its next checkpoint (its slot is free again), and no page is made for nobody."""
    evidence_id = await spaces.two_revisions(spaces.a_token, spaces.a, MARK)
    gate = Gate()
    monkeypatch.setattr(diffs, "diff_text", gate.wrap(diffs.diff_text))
    console = console_app(app)
    transport = httpx.ASGITransport(app=console)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        await sign_in(http, spaces.a_token)
        cookie = http.cookies[COOKIE]
    reader = Client()
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "scheme": "http",
        "server": ("testserver", 80),
        "root_path": "",
        "path": f"/console/workspaces/{spaces.a}/evidence/{evidence_id}/diff",
        "query_string": b"from=1&to=2",
        "headers": [(b"host", b"testserver"), (b"cookie", f"{COOKIE}={cookie}".encode())],
    }
    heavy = app.research.heavy
    async with anyio.create_task_group() as tg, gate:
        tg.start_soon(console, scope, reader.receiver(b""), send)
        await _wait_for(lambda: gate.entered == 1)
        reader.leave()
        await _wait_for(lambda: reader.told)  # the page's reads are cancelled by now
        gate.opened.set()
    assert (heavy.started, heavy.stopped) == (1, 1)
    assert heavy.slots.waiting(spaces.a) == 0
    starts = [m for m in sent if m["type"] == "http.response.start"]
    assert [m["status"] for m in starts] == [204]
