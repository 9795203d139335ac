"""A CPU budget on one Lexbor parse, for a process that may die of it.

Lexbor parses a page in about a millisecond, but a hostile one can hold it for minutes
(extract/html_bounds.py). Modelling the tree builder in Python first bounds every page,
at several times the cost of the parse itself. A parsing worker (research/parse_worker.py)
can instead let Lexbor try first: the kernel's profiling timer (ITIMER_PROF, the process's
own CPU time, whatever the load) ends the process with SIGPROF if one parse passes
`SECONDS`. The pool (research/offload.py) sees that death, and runs the job again in a
fresh worker with the budget suspended, where the model bounds the page before Lexbor sees
it. A process that cannot die of it (a thread: tests, `SOSOAPI_PARSE_WORKERS=0`) never
allows the budget, and always models first.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

# CPU seconds one Lexbor parse may take: the largest page within the body bound (5 MB of
# paragraphs, tests/data/hostile/heavy_prose) parses in 0.03 s; the hostile pages that pass
# this take seconds to minutes.
SECONDS = 0.5
PASSED = signal.SIGPROF  # how a process that passed the budget ended
_allowed = False


def allow() -> None:
    """This process may be killed by a parse past the budget: let Lexbor try first."""
    global _allowed
    signal.signal(PASSED, signal.SIG_DFL)  # the default action ends the process
    _allowed = True


def allowed() -> bool:
    return _allowed


@contextmanager
def suspended() -> Iterator[None]:
    """Model every page first within this block: the second try of a job whose parse
    passed the budget."""
    global _allowed
    before, _allowed = _allowed, False
    try:
        yield
    finally:
        _allowed = before


@contextmanager
def armed() -> Iterator[None]:
    """Run the block under the budget where it is allowed (else unbounded: the caller
    parses only markup the model has bounded)."""
    if not _allowed:
        yield
        return
    signal.setitimer(signal.ITIMER_PROF, SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
