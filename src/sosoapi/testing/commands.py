"""The `sosoapi` CLI run in this process, answering as `processes.cli` does.

A CLI subprocess costs a second or more of imports (ten under load); a test that is about
what a command does, not about the process, runs it here: click's runner with the same
environment, its exit code, stdout and stderr in a `CompletedProcess`. A command that
fails with a traceback gets it on stderr, as a process would print it.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import threading
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from click.testing import CliRunner, Result
from sqlalchemy import Connection, Engine, event

from sosoapi.cli import main
from sosoapi.testing.processes import SOSOAPI

# What `sosoapi.logs.configure` sets on these loggers, put back after each command.
LOGGERS = ("sosoapi", "mcp")


@contextmanager
def _loggers_kept() -> Iterator[None]:
    """The command points our loggers at its own stderr; the caller's set-up comes back."""
    saved = [
        (logger, logger.handlers[:], logger.level, logger.propagate)
        for logger in map(logging.getLogger, LOGGERS)
    ]
    try:
        yield
    finally:
        for logger, handlers, level, propagate in saved:
            logger.handlers[:] = handlers
            logger.setLevel(level)
            logger.propagate = propagate


@contextmanager
def _engines_disposed() -> Iterator[None]:
    """A process's exit closes its database connections; a command run here would leave its
    engines' pools to the garbage collector (a run of the surface tests held 80 PostgreSQL
    connections open that way, and the shared server refused clients past 100). Every
    engine that connected during the command is disposed after it (an engine disposed
    still works: it opens a fresh pool when next used)."""
    used: list[Engine] = []

    def seen(connection: Connection) -> None:
        used.append(connection.engine)

    event.listen(Engine, "engine_connect", seen)
    try:
        yield
    finally:
        event.remove(Engine, "engine_connect", seen)
        for engine in {id(e): e for e in used}.values():
            engine.dispose()


def _invoke(args: list[str], env: Mapping[str, str]) -> Result:
    with _loggers_kept(), _engines_disposed():
        return CliRunner().invoke(main, args, env=dict(env), prog_name="sosoapi")


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def cli(
    args: list[str], env: Mapping[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run `sosoapi ARGS` here with `env` over this process's environment.

    From inside a running event loop (an async test) the command runs on a thread of its
    own, as the CLI's `anyio.run` needs a thread without a loop.
    """
    if _loop_running():
        done: list[Result] = []
        thread = threading.Thread(target=lambda: done.append(_invoke(args, env)), daemon=True)
        thread.start()
        thread.join(timeout)
        if not done:
            raise subprocess.TimeoutExpired([SOSOAPI, *args], timeout)
        result = done[0]
    else:
        result = _invoke(args, env)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        assert result.exc_info is not None
        stderr += "".join(traceback.format_exception(*result.exc_info))
    return subprocess.CompletedProcess([SOSOAPI, *args], result.exit_code, result.stdout, stderr)
