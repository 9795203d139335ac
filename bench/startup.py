"""Process start-up: what one `sosoapi` command costs before it does its work.

Every CLI command and every server is a fresh process, and most of a one-shot command's
time is importing. Runs, alternately, this checkout and (with `--against SRC`) another
checkout's `src/` through the same interpreter and virtualenv (PYTHONPATH puts its package
first), so both are measured side by side in one run:

- `sosoapi --help` (a shell's first touch: click and the CLI's words, nothing else),
- `import sosoapi.app` (what `sosoapi serve` loads),
- `sosoapi projects list --json` on an initialised SQLite home (a one-shot operation),
- `sosoapi serve` until /healthz answers (then stopped),
- `sosoapi serve` until /healthz answers, then one MCP `initialize` over /mcp (the first
  MCP client's wait: a server builds /mcp at its first request, mcp/mount.py).

Prints the median wall time and the median CPU (user + system, the process and its
children) of each, and the ratio to `--against`.

    .venv/bin/python bench/startup.py --against /tmp/before/src --n 7
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
OURS = HERE.parent / "src"
SOSOAPI = str(Path(sys.executable).with_name("sosoapi"))


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _help(env: dict[str, str]) -> None:
    subprocess.run([SOSOAPI, "--help"], env=env, check=True, capture_output=True)


def _import_app(env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-c", "import sosoapi.app"], env=env, check=True)


def _projects_list(env: dict[str, str]) -> None:
    subprocess.run(
        [SOSOAPI, "projects", "list", "--json"], env=env, check=True, capture_output=True
    )


@contextmanager
def _served(env: dict[str, str]) -> Iterator[str]:
    """A `sosoapi serve` that answers /healthz, and its base URL; stopped on leaving."""
    port = _free_port()
    server = subprocess.Popen(
        [SOSOAPI, "serve", "--port", str(port)], env=env, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.02)
        else:
            raise RuntimeError("sosoapi serve did not become healthy in 60 s")
        yield base
    finally:
        server.terminate()
        server.wait(30)


def _serve_until_healthy(env: dict[str, str]) -> None:
    with _served(env):
        pass


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench-startup", "version": "1"},
    },
}


def _serve_until_mcp(env: dict[str, str]) -> None:
    with _served(env) as base:
        headers = {
            "Authorization": f"Bearer {env['SOSOAPI_TOKEN']}",
            "Accept": "application/json, text/event-stream",
        }
        answer = httpx.post(f"{base}/mcp", json=INITIALIZE, headers=headers, timeout=60)
        if answer.status_code != 200 or "result" not in answer.json():
            raise RuntimeError(f"MCP initialize answered {answer.status_code}: {answer.text}")


STEPS: dict[str, Callable[[dict[str, str]], None]] = {
    "sosoapi --help": _help,
    "import sosoapi.app": _import_app,
    "sosoapi projects list": _projects_list,
    "sosoapi serve, to healthy": _serve_until_healthy,
    "serve, to a first MCP answer": _serve_until_mcp,
}


def _environment(src: Path, home: Path) -> dict[str, str]:
    env = {**os.environ, "SOSOAPI_HOME": str(home), "SOSOAPI_LOG_LEVEL": "WARNING"}
    env["PYTHONPATH"] = str(src)
    made = subprocess.run([SOSOAPI, "init", "--json"], env=env, check=True, capture_output=True)
    env["SOSOAPI_TOKEN"] = json.loads(made.stdout)["token"]
    return env


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", type=Path, help="another checkout's src/ to compare with")
    parser.add_argument("--n", type=int, default=7, help="runs of each step per checkout")
    args = parser.parse_args()
    sources = {"ours": OURS} | ({"against": args.against.resolve()} if args.against else {})
    scratch = Path(tempfile.mkdtemp(prefix="sosoapi-startup-"))
    try:
        envs = {name: _environment(src, scratch / name) for name, src in sources.items()}
        walls: dict[tuple[str, str], list[float]] = {}
        cpus: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.n):
            for step, run in STEPS.items():
                for name, env in envs.items():  # alternately, so both meet the same load
                    wall, cpu = time.perf_counter(), _cpu()
                    run(env)
                    walls.setdefault((step, name), []).append(time.perf_counter() - wall)
                    cpus.setdefault((step, name), []).append(_cpu() - cpu)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{'step':28} {'checkout':8} {'wall ms':>8} {'CPU ms':>8} {'CPU / against':>14}")
    for step in STEPS:
        for name in sources:
            wall = statistics.median(walls[(step, name)]) * 1000
            cpu = statistics.median(cpus[(step, name)]) * 1000
            base = statistics.median(cpus[(step, "against")]) * 1000 if args.against else 0
            ratio = f"{cpu / base:14.2f}" if base else f"{'':14}"
            print(f"{step:28} {name:8} {wall:8.0f} {cpu:8.0f} {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
