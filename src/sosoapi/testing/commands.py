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


def _invoke(args: list[str], env: Mapping[str, str]) -> Result:
    with _loggers_kept():
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
