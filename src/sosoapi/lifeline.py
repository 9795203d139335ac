"""A child process of the server ends when its parent does.

A server killed with SIGKILL runs no clean-up: a child it leaves behind keeps the port,
the database and its memory. On Linux the kernel sends a chosen signal to a child whose
parent ends (`PR_SET_PDEATHSIG`); elsewhere a daemon thread watches the parent's id.
Either way the child set up here ends at most a moment after its parent.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import threading
import time

log = logging.getLogger("sosoapi.lifeline")
PR_SET_PDEATHSIG = 1  # linux/prctl.h
WATCH_INTERVAL_SECONDS = 0.5


def end_with_parent(parent_pid: int | None = None, sig: signal.Signals = signal.SIGKILL) -> None:
    """Have this process receive `sig` when its parent ends: `parent_pid` when the child
    knows it (already ended: now; call this first thing, the parent may die before it
    runs), else its parent at the time of the call."""
    if parent_pid is None:
        parent_pid = os.getppid()
    if not _ask_the_kernel(sig):
        threading.Thread(target=_watch, args=(parent_pid, sig), daemon=True).start()
    if os.getppid() != parent_pid:
        os.kill(os.getpid(), sig)


def _ask_the_kernel(sig: signal.Signals) -> bool:
    """PR_SET_PDEATHSIG; False where it does not exist or failed (then a thread watches)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0:
            return True
        log.warning("prctl(PR_SET_PDEATHSIG) failed errno=%d; watching the parent instead",
                    ctypes.get_errno())  # fmt: skip
    except (OSError, AttributeError):
        log.warning("prctl is not available; watching the parent instead")
    return False


def _watch(parent_pid: int, sig: signal.Signals) -> None:
    while os.getppid() == parent_pid:
        time.sleep(WATCH_INTERVAL_SECONDS)
    os.kill(os.getpid(), sig)
