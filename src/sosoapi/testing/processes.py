"""`sosoapi` as a real process: `sosoapi serve` on a free loopback port, and the CLI."""

from __future__ import annotations

import functools
import os
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import httpx

SOSOAPI = str(Path(sys.executable).with_name("sosoapi"))
STARTUP_SECONDS = 120  # imports alone took 16 s on a loaded 2-core machine
READY_POLL_SECONDS = 0.02


@functools.cache
def shared_verify() -> ssl.SSLContext:
    """httpx's own default verify context (its CA bundle, full checks), built once per process.

    An `httpx` client, or `httpx.get`/`post`, given no context loads the CA bundle itself
    (about 20 ms of CPU), even to speak plain HTTP to a loopback server, where the context
    is never used; the tests' clients pass this one as `verify=` instead."""
    return httpx.create_ssl_context()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cli(
    args: list[str], env: Mapping[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SOSOAPI, *args], env={**os.environ, **env}, capture_output=True, text=True, timeout=timeout
    )


class ServeProcess:
    """`sosoapi serve` on a free loopback port, killed on exit."""

    def __init__(
        self,
        env: Mapping[str, str],
        *args: str,
        command: tuple[str, ...] = (SOSOAPI,),
        ready_seconds: float = STARTUP_SECONDS,
        preexec: Callable[[], None] | None = None,
        log: Path | None = None,
    ) -> None:
        self.command = command
        self.port = free_port()
        self.ready_seconds = ready_seconds
        self.env = {**os.environ, **env}
        self.args = args
        self.preexec = preexec
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self.stderr_text = ""

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _log_file(self) -> int:
        """A descriptor the child inherits; ours is closed at once (the child keeps its own)."""
        assert self.log is not None
        return os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)

    def start(self) -> ServeProcess:
        return self.launch().wait_ready()

    def launch(self) -> ServeProcess:
        """Start the process without waiting for it: several servers launched one after
        the other import and migrate at the same time (`start_all`)."""
        log_fd = self._log_file() if self.log else None
        try:
            self.proc = subprocess.Popen(
                [*self.command, "serve", "--port", str(self.port), *self.args],
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=log_fd if log_fd is not None else subprocess.PIPE,
                preexec_fn=self.preexec,
            )
        finally:
            if log_fd is not None:
                os.close(log_fd)
        return self

    def wait_ready(self) -> ServeProcess:
        """Poll /healthz until it answers 200; raise if the process exits or the time is up.

        One client for the whole wait: `httpx.get` builds a client, and its TLS context,
        per call (about 20 ms of CPU), which made the polls of a start cost more than a
        tenth of the start itself; with one, a poll costs a refused connect, so it polls
        every 20 ms and the test goes on as soon as the server answers."""
        assert self.proc is not None, "launch() first"
        deadline = time.monotonic() + self.ready_seconds
        with httpx.Client(timeout=1, verify=shared_verify()) as client:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    told = self.log.read_text() if self.log else self.proc.stderr.read().decode()  # type: ignore[union-attr]
                    raise RuntimeError(f"sosoapi serve exited: {told}")
                try:
                    if client.get(f"{self.base}/healthz").status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
                time.sleep(READY_POLL_SECONDS)
        raise RuntimeError(f"sosoapi serve did not become healthy in {self.ready_seconds} s")

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._close_pipes()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
        self.wait_stopped()

    def wait_stopped(self) -> None:
        """Wait for a terminated process to end (killed after 20 s), then close its pipes."""
        if self.proc and self.proc.poll() is None:
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._close_pipes()

    def _close_pipes(self) -> None:
        """Keep what the ended process wrote to its stderr pipe (`stderr_text`), then close it."""
        if self.proc and self.proc.stderr and not self.proc.stderr.closed:
            self.stderr_text = self.proc.stderr.read().decode()
            self.proc.stderr.close()

    def __enter__(self) -> ServeProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_all(*servers: ServeProcess) -> tuple[ServeProcess, ...]:
    """Start `servers` side by side (a server's start is mostly its imports, waited for):
    all are launched, then each is waited for; on a failure every one is killed."""
    try:
        for server in servers:
            server.launch()
        for server in servers:
            server.wait_ready()
    except BaseException:
        for server in servers:
            server.kill()
        raise
    return servers


def stop_all(*servers: ServeProcess) -> None:
    """Stop `servers` side by side: each is sent SIGTERM, then each is waited for."""
    for server in servers:
        if server.proc and server.proc.poll() is None:
            server.proc.terminate()
    for server in servers:
        server.wait_stopped()
