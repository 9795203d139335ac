"""One parsing worker process: runs the jobs its pool sends, under a memory cap.

The pool (research/offload.py) owns the deadline and kills a worker that passes it; the
memory cap is the worker's own address-space limit, set before its first job. A parser
in C that cannot allocate raises its own error (Lexbor: "Can't parse HTML"), not
`MemoryError`, so a job that fails after its worker's peak resident memory grew by half
the cap is judged out of memory too; a job that grows it that far retires its worker
after answering: its heap may be in any state, and the pool replaces it.

A worker can be killed, so it lets Lexbor parse a page before any model of it, under a
CPU budget that ends the worker with SIGPROF when passed (extract/lexbor_budget.py); the
pool runs such a job again through `modelled`.
"""

from __future__ import annotations

import os
import pickle
import resource
import socket
import struct
from collections.abc import Callable
from typing import Any

from sosoapi.extract import lexbor_budget
from sosoapi.lifeline import end_with_parent

Job = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]
Answer = tuple[str, Any, bool]  # status, the result or the error, whether the worker retires
OK, FAILED, OUT_OF_MEMORY = "ok", "failed", "out_of_memory"
# One message on the pool's socket: its length, then the pickle. The pool's end reads and
# writes it without blocking, on the event loop (research/offload.py), so a parse costs
# the server no trip to a thread; this end blocks, as a worker does nothing else.
HEADER = struct.Struct("!Q")


def frame(message: Any) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(data)) + data


def unframe(data: bytes | bytearray) -> Any:
    """A message's pickle, read back: both ends are this server's own processes."""
    return pickle.loads(data)  # noqa: S301 (written by the other end of our socketpair)


def serve(sock: socket.socket, memory_bytes: int) -> None:
    """Answer jobs from `sock` until the pool closes it, or this process's parent (the
    forkserver, which ends with the server) ends."""
    end_with_parent()
    cap_memory(memory_bytes)
    lexbor_budget.allow()
    high_water = _peak() + memory_bytes // 2
    while True:
        try:
            fn, args, kwargs = _receive(sock)
            answer = _run(fn, args, kwargs, high_water)
        except (EOFError, OSError):
            return
        except MemoryError:
            answer = (OUT_OF_MEMORY, None, True)
        try:
            sock.sendall(frame(answer))
        except MemoryError:
            answer = (OUT_OF_MEMORY, None, True)
            sock.sendall(frame(answer))
        except OSError:
            return
        except Exception as error:  # an answer that does not pickle: say what it was
            refusal = RuntimeError(f"unpicklable parse answer: {error!r}")
            sock.sendall(frame((FAILED, refusal, False)))
        if answer[2]:
            return


def modelled(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn` with every page bounded by the model before Lexbor sees it: the second try of a
    job whose parse passed its budget and killed its first worker."""
    with lexbor_budget.suspended():
        return fn(*args, **kwargs)


def _receive(sock: socket.socket) -> Any:
    (size,) = HEADER.unpack(_exactly(sock, HEADER.size))
    return unframe(_exactly(sock, size))


def _exactly(sock: socket.socket, size: int) -> bytearray:
    data = bytearray(size)
    view = memoryview(data)
    while view:
        got = sock.recv_into(view)
        if not got:
            raise EOFError("the pool closed the socket")
        view = view[got:]
    return data


def _run(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], high: int
) -> Answer:
    try:
        result = fn(*args, **kwargs)
    except MemoryError:
        return OUT_OF_MEMORY, None, True
    except Exception as error:
        if _peak() >= high:
            return OUT_OF_MEMORY, None, True
        return FAILED, error, False
    return OK, result, _peak() >= high


def cap_memory(extra_bytes: int) -> None:
    """Limit this process's address space to what it holds now plus `extra_bytes`."""
    limit = _status_bytes("VmSize") + extra_bytes
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _peak() -> int:
    """The most memory this process has held, in bytes: a system call, cheap enough to ask
    after every job (reading /proc would double a small job's cost)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _status_bytes(field: str) -> int:
    """A size from Linux's /proc/self/status in bytes (0 where it cannot be read)."""
    try:
        with open(f"/proc/{os.getpid()}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0
