"""`sosoapi serve` leaves nothing behind: after SIGKILL of its main process every process
of the server (server processes, forkserver, resource tracker, parsing workers) ends
within 10 s and the port is free; SIGTERM with a parse running stops within the grace,
and another instance on the database judges the stopped read by the lease rules."""

from __future__ import annotations

import signal
import socket
import time
import uuid
from pathlib import Path

import httpx
import psutil
import pytest

from tests.support.calls import RETRIEVE_PATH
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import ServeProcess, start_all, stop_all

# process hygiene does not depend on the store: SQLite only
pytestmark = [
    pytest.mark.exclusive,
    pytest.mark.parametrize("process_env", ["sqlite"], indirect=True),
]

# The slowest page within every parse bound: about 1.4 s of a worker's CPU.
HEAVY = Path(__file__).resolve().parents[1] / "data" / "hostile" / "heavy_prose.html.gz"
PAGE = b"<html><head><title>T</title></head><body><p>" + b"Plain words here. " * 40 + b"</p>"
GONE_SECONDS = 10  # the bound for a killed server's processes


@pytest.fixture
def env(initialised: dict[str, str], origin: HTTPSOrigin) -> dict[str, str]:
    """A server's environment with one parsing worker, its workspace and owner token."""
    origin.routes["/plain"] = Route(PAGE)
    origin.routes["/heavy"] = Route(HEAVY.read_bytes(), headers={"Content-Encoding": "gzip"})
    return {**initialised, "SOSOAPI_PARSE_WORKERS": "1"}


def _retrieve(server: ServeProcess, env: dict[str, str], url: str, mutation_id: str) -> dict:
    request = {
        "url": url,
        "kind": "url_text",
        "workspace_id": env["WORKSPACE_ID"],
        "mutation_id": mutation_id,
    }
    headers = {"Authorization": f"Bearer {env['SOSOAPI_TOKEN']}"}
    answer = httpx.post(server.base + RETRIEVE_PATH, json=request, headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text
    return dict(answer.json()["retrieval"])


def _tree(pid: int) -> list[psutil.Process]:
    main = psutil.Process(pid)
    return [main, *main.children(recursive=True)]


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _left_after(processes: list[psutil.Process], seconds: float) -> list[psutil.Process]:
    """The processes still alive once `seconds` have passed or all ended, polled."""
    deadline = time.monotonic() + seconds
    while (alive := [p for p in processes if _alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def _parsing_workers(tree: list[psutil.Process]) -> list[psutil.Process]:
    """The forkserver's children: the parsing workers."""
    return [
        child
        for process in tree
        if any("forkserver" in part for part in process.cmdline())
        for child in process.children()
    ]


@pytest.mark.parametrize("workers", [1, 2])
def test_sigkill_of_serve_leaves_no_process_and_frees_the_port(
    env: dict[str, str], origin: HTTPSOrigin, workers: int
) -> None:
    server = ServeProcess(env, "--workers", str(workers)).start()
    try:
        for _ in range(2 * workers):  # new connections: each server process parses one
            receipt = _retrieve(server, env, origin.url("/plain"), str(uuid.uuid4()))
            assert receipt["result"]["status"] == "ready"
        assert server.proc is not None
        tree = _tree(server.proc.pid)
        assert _parsing_workers(tree), [p.cmdline() for p in tree]
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait(10)
        left = _left_after(tree, GONE_SECONDS)
        assert not left, [(p.pid, p.cmdline()) for p in left]
    finally:
        server.kill()
    _listen(server.port)


def _listen(port: int) -> None:
    """Listen on `port` as a new server would (uvicorn sets SO_REUSEADDR, so connections
    the killed server left in TIME_WAIT do not count): refused while any process of the
    old server still holds its listening socket."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen()


def test_sigterm_with_a_parse_running_stops_within_the_grace(
    env: dict[str, str], origin: HTTPSOrigin
) -> None:
    grace = 0.5  # under the second of CPU the heavy page's parse has left at the signal
    env = {
        **env,
        "SOSOAPI_PARSE_DEADLINE_SECONDS": "600",
        "SOSOAPI_SHUTDOWN_GRACE_SECONDS": str(grace),
        "SOSOAPI_WAIT_BUDGET_SECONDS": "0.5",
        "SOSOAPI_LEASE_SECONDS": "2",
    }
    mutation_id = str(uuid.uuid4())
    server, successor = ServeProcess(env), ServeProcess(env)
    try:
        start_all(server, successor)
        first = _retrieve(server, env, origin.url("/heavy"), mutation_id)
        assert server.proc is not None
        tree = _tree(server.proc.pid)
        deadline = time.monotonic() + 60
        while not (workers := _parsing_workers(_tree(server.proc.pid))):
            assert time.monotonic() < deadline, "no parse started"
            time.sleep(0.05)
        while workers[0].cpu_times().user < 0.3:  # parsing the heavy page, not idle
            assert time.monotonic() < deadline, "the parse did not run"
            time.sleep(0.05)
        tree = _tree(server.proc.pid)
        server.proc.send_signal(signal.SIGTERM)
        left = _left_after(tree, grace + 8)  # the grace, then uvicorn's own stop
        assert not left, [(p.pid, p.cmdline()) for p in left]
        deadline = time.monotonic() + 60  # the stopped read: its lease runs out
        while (replay := _retrieve(successor, env, origin.url("/heavy"), mutation_id))[
            "state"
        ] == "running":
            assert time.monotonic() < deadline, replay
            time.sleep(0.2)
    finally:
        server.kill()
        stop_all(successor)
    assert replay["id"] == first["id"]
    assert replay["state"] == "unconfirmed" and replay["result"] is None
