"""A real `sosoapi serve` (both stores) against hostile or careless callers: huge and
endless bodies, deep JSON, tokens without the scope, session hoarding, revoked tokens,
one workspace's burst."""

from __future__ import annotations

import json
import select
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, closing

import httpx
import pytest

from tests.support.memory import MIB, PeakRSS
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import ServeProcess, cli

pytestmark = [
    pytest.mark.slow(reason="real servers of its own, 512 MiB bodies sent at them"),
    pytest.mark.own_server(reason="it measures the server process's own memory under a flood"),
]

RETRIEVE = "/research-api/evidence/retrieve"
PROJECTS = "/research-api/projects/create"
PROBLEM_TYPE = "https://sosoapi.dev/problems/"
CAP = 1 << 20
LEGACY = "2025-06-18"


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: bytes, sent: int) -> None:
        self.status, self.headers, self.body, self.sent = status, headers, body, sent

    def json(self) -> dict:
        return json.loads(self.body)


def _read_answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    data = b""
    sock.settimeout(30)
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed before an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(lines[0].split()[1]), headers, body


def post_body(
    port: int,
    path: str,
    *,
    token: str | None,
    total: int,
    chunked: bool,
    send_body: bool = True,
) -> Answer:
    """POST a `total`-byte body a chunk at a time (declared or chunked), stopping as soon as
    the server answers; with `send_body=False` only the head is sent, then the answer read."""
    sock = socket.create_connection(("127.0.0.1", port))
    head = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Content-Type: application/json"]
    head.append("Accept: application/json, text/event-stream")
    head.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {total}")
    if token:
        head.append(f"Authorization: Bearer {token}")
    sent = 0
    with sock:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        piece = b" " * 65536
        sock.settimeout(5)
        try:
            while send_body and sent < total:
                if select.select([sock], [], [], 0)[0]:
                    break  # the server answered: stop sending
                frame = f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if chunked else piece
                sock.sendall(frame)
                sent += len(piece)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass
        status, headers, body = _read_answer(sock)
    return Answer(status, headers, body, sent)


def assert_problem(answer: Answer, status: int, kind: str) -> dict:
    assert answer.status == status, answer.body[:500]
    assert answer.headers["content-type"].startswith("application/problem+json")
    problem = answer.json()
    assert problem["type"] == PROBLEM_TYPE + kind and problem["status"] == status
    return problem


def check_bodies_are_capped_after_the_token_and_never_grow_memory(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    assert served.proc is not None
    token = initialised["SOSOAPI_TOKEN"]
    huge = 512 * MIB
    # A server loads the MCP SDK at the first request to /mcp (mcp/mount.py): loaded before
    # the measure, which is of what the bodies cost.
    assert httpx.post(f"{served.base}/mcp", timeout=60).status_code == 401
    with PeakRSS(served.proc.pid) as memory:
        for path in (RETRIEVE, "/mcp"):
            for chunked in (False, True):
                # Only the head is sent: a 401 proves the body was never waited for.
                early = post_body(
                    served.port, path, token=None, total=huge, chunked=chunked, send_body=False
                )
                assert early.status == 401, early.body
                assert "resource_metadata=" in early.headers["www-authenticate"]
                over = post_body(served.port, path, token=token, total=huge, chunked=chunked)
                problem = assert_problem(over, 413, "too-large")
                assert "SOSOAPI_MAX_REQUEST_BYTES" in problem["detail"]
                assert over.sent < 64 * MIB, "the server stopped reading near the cap"
            for _ in range(3):  # unauthenticated bodies, sent in full where the server reads
                post_body(served.port, path, token=None, total=32 * MIB, chunked=True)
    assert memory.growth_mib < 8, f"server RSS grew {memory.growth_mib:.1f} MiB"


def check_just_under_the_cap_is_read(served: ServeProcess, initialised: dict[str, str]) -> None:
    padding = " " * (CAP - 300)
    text = json.dumps({"workspace_id": initialised["WORKSPACE_ID"], "title": "t"})
    body = (text[:-1] + padding + "}").encode()
    assert len(body) <= CAP
    response = httpx.post(
        served.base + PROJECTS,
        content=body,
        headers={"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"},
        timeout=30,
    )
    assert response.status_code == 400, response.text  # judged (mutation_id missing), not 413
    assert response.json()["field"] == "mutation_id"


def check_deep_json_is_invalid_input_before_parsing(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    token = initialised["SOSOAPI_TOKEN"]
    deep = b"[" * 100_000 + b"]" * 100_000
    bare = httpx.post(served.base + RETRIEVE, content=deep, timeout=30)
    assert bare.status_code == 401
    response = httpx.post(
        served.base + RETRIEVE,
        content=deep,
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert response.status_code == 400, response.text
    assert response.json()["type"] == PROBLEM_TYPE + "invalid-input"
    nested: object = "x"
    for _ in range(50):
        nested = [nested]
    arguments = {"workspace_id": initialised["WORKSPACE_ID"], "title": nested}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
    call["params"] = {"name": "sosoapi_research_projects_create", "arguments": arguments}
    with McpSession(served, token) as session:
        answer = session.post(call)
        assert answer.status_code == 200
        result = answer.json()["result"]
        assert result["isError"] is True and "nests deeper" in result["content"][0]["text"]
        flood = {**call, "params": None}
        raw = json.dumps(flood).replace("null", "[" * 100_000 + "]" * 100_000)
        answer = session.post_raw(raw.encode())
        assert answer.status_code < 500, answer.text


class McpSession:
    """One legacy (2025-06-18) streamable-HTTP session, driven by hand."""

    def __init__(self, server: ServeProcess, token: str) -> None:
        self.url = server.base + "/mcp"
        self.token = token
        self.session_id: str | None = None
        self.client = httpx.Client(timeout=30)

    def headers(self, token: str | None = None) -> dict[str, str]:
        headers = {
            "Authorization": f"Bearer {token or self.token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": LEGACY,
        }
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        return headers

    def open(self) -> httpx.Response:
        hello = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "hostile-test", "version": "1"},
            },
        }
        headers = self.headers()
        headers.pop("MCP-Protocol-Version")
        opened = self.client.post(self.url, json=hello, headers=headers)
        self.session_id = opened.headers.get("mcp-session-id")
        if opened.status_code == 200:
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert self.post(done).status_code == 202
        return opened

    def post(self, message: dict, token: str | None = None) -> httpx.Response:
        return self.client.post(self.url, json=message, headers=self.headers(token))

    def post_raw(self, content: bytes) -> httpx.Response:
        return self.client.post(self.url, content=content, headers=self.headers())

    def list_tools(self, token: str | None = None) -> httpx.Response:
        return self.post({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}, token)

    def __enter__(self) -> McpSession:
        assert self.open().status_code == 200
        return self

    def close(self) -> None:
        self.client.close()

    def __exit__(self, *exc: object) -> None:
        self.close()


def mint(env: dict[str, str], *args: str) -> dict:
    done = cli(["tokens", "create", "--json", *args], env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def check_mcp_requires_the_research_scope(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    bare = mint(initialised, "--workspace", initialised["WORKSPACE_ID"], "--role", "editor")
    scopeless = mint(initialised, "--user", bare["user_id"], "--no-scope")
    with closing(McpSession(served, scopeless["token"])) as session:
        refused = session.open()
        assert refused.status_code == 403
        challenge = refused.headers["www-authenticate"]
        assert challenge.startswith("Bearer ")
        assert 'error="insufficient_scope"' in challenge
        assert 'scope="agent:research"' in challenge
        resource = f'resource_metadata="{served.base}/.well-known/oauth-protected-resource/mcp"'
        assert resource in challenge
        assert session.session_id is None
    with closing(McpSession(served, bare["token"])) as session:
        assert session.open().status_code == 200


def check_sessions_per_user_evict_the_oldest_idle(
    capped: ServeProcess, initialised: dict[str, str]
) -> None:
    """At most two sessions per user."""
    token = initialised["SOSOAPI_TOKEN"]
    other = mint(initialised, "--workspace", initialised["WORKSPACE_ID"], "--role", "viewer")
    with ExitStack() as sessions:
        first, second, third, others = (
            sessions.enter_context(closing(McpSession(capped, t)))
            for t in (token, token, token, other["token"])
        )
        for session in (first, second):
            session.open()
        assert second.list_tools().status_code == 200  # `first` is now the oldest idle one
        assert third.open().status_code == 200
        assert first.list_tools().status_code == 404  # evicted: a client re-initialises
        assert second.list_tools().status_code == 200
        assert third.list_tools().status_code == 200
        assert others.open().status_code == 200  # another user


def check_a_revoked_tokens_sessions_close_at_its_next_request(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    first = mint(initialised, "--workspace", initialised["WORKSPACE_ID"], "--role", "editor")
    second = mint(initialised, "--user", first["user_id"])
    with closing(McpSession(served, first["token"])) as session:
        assert session.open().status_code == 200
        assert session.list_tools(second["token"]).status_code == 200  # same user and session
        done = cli(["tokens", "revoke", first["id"]], initialised)
        assert done.returncode == 0, done.stderr
        assert session.list_tools().status_code == 401
        assert session.list_tools(second["token"]).status_code == 404  # the session is gone


@pytest.fixture
def held() -> Iterator[threading.Event]:
    """Set to let the origin answer the held reads; set at the end whatever happened."""
    gate = threading.Event()
    yield gate
    gate.set()


@pytest.fixture
def slow_origin(origin: HTTPSOrigin, pages: dict[str, bytes], held: threading.Event) -> HTTPSOrigin:
    """Reads of /slow0.. hold their slots until the test sets `held` (no delay to outlast)."""
    html = next(iter(pages.values()))
    for n in range(3):
        origin.routes[f"/slow{n}"] = Route(html, gate=held)
    return origin


def check_a_workspace_past_its_queue_bound_gets_429_and_retries_later(
    narrow: ServeProcess,
    initialised: dict[str, str],
    slow_origin: HTTPSOrigin,
    held: threading.Event,
) -> None:
    """Two slots, so one each per workspace; one call may wait; the third is refused."""
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}

    def retrieve(n: int, mutation_id: str) -> httpx.Response:
        request = {
            "url": slow_origin.url(f"/slow{n}"),
            "kind": "url_text",
            "workspace_id": initialised["WORKSPACE_ID"],
            "mutation_id": mutation_id,
        }
        return httpx.post(narrow.base + RETRIEVE, json=request, headers=headers, timeout=30)

    keys = [str(uuid.uuid4()) for _ in range(3)]
    running = retrieve(0, keys[0])
    assert running.status_code == 200
    wait_until(lambda: slow_origin.hits["/slow0"] == 1)  # it holds the workspace's one slot
    assert retrieve(1, keys[1]).status_code == 200  # queued: the workspace's bound is 1
    refused = retrieve(2, keys[2])
    problem = assert_problem(
        Answer(refused.status_code, dict(refused.headers), refused.content, 0), 429, "busy"
    )
    assert int(refused.headers["retry-after"]) > 0
    assert "SOSOAPI_MAX_QUEUED_PER_WORKSPACE" in problem["detail"]
    assert retrieve(0, keys[0]).status_code == 200  # a replay is never refused
    assert slow_origin.hits["/slow2"] == 0
    held.set()  # the held read completes, the queued one runs
    wait_until(lambda: retrieve(1, keys[1]).json()["retrieval"]["state"] == "completed")
    later = retrieve(2, keys[2])
    assert later.status_code == 200
    assert later.json()["retrieval"]["mutation_id"] == keys[2]


def wait_until(condition, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.05)


def test_the_default_server_holds_against_hostile_callers(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    check_bodies_are_capped_after_the_token_and_never_grow_memory(served, initialised)
    check_just_under_the_cap_is_read(served, initialised)
    check_deep_json_is_invalid_input_before_parsing(served, initialised)
    check_mcp_requires_the_research_scope(served, initialised)
    check_a_revoked_tokens_sessions_close_at_its_next_request(served, initialised)


def test_a_narrow_server_shares_fairly(
    initialised: dict[str, str], slow_origin: HTTPSOrigin, held: threading.Event
) -> None:
    env = {
        **initialised,
        "SOSOAPI_MCP_SESSIONS_PER_USER": "2",
        "SOSOAPI_RETRIEVAL_SLOTS": "2",
        "SOSOAPI_MAX_QUEUED_PER_WORKSPACE": "1",
        "SOSOAPI_WAIT_BUDGET_SECONDS": "0.2",
        "SOSOAPI_EGRESS_PER_ORIGIN_CONCURRENCY": "8",
    }
    with ServeProcess(env) as server:
        check_sessions_per_user_evict_the_oldest_idle(server, initialised)
        check_a_workspace_past_its_queue_bound_gets_429_and_retries_later(
            server, initialised, slow_origin, held
        )
