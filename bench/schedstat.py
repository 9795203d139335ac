"""Where one slow request's time went, thread by thread: `/proc/PID/task/*/schedstat`.

Linux counts, per thread, the nanoseconds it ran on a CPU and the nanoseconds it waited,
runnable, on a run queue. Taken before and after one request, the deltas say whether the
server's event-loop thread (the task whose id is the process's) spent the request
running, waiting for a CPU (the machine's load), or neither (asleep: waiting for I/O, or
for the interpreter's lock that another thread holds), and which other threads ran
meanwhile. The server's child processes (parsing workers, export processes) are counted
too, by name, so work moved out of the server shows up where it went.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field

import psutil

Snapshot = dict[tuple[int, int], tuple[str, int, int]]  # (pid, tid) -> (name, run, wait)


def _tasks(pid: int) -> Snapshot:
    found: Snapshot = {}
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            base = f"/proc/{pid}/task/{tid}"
            with (
                contextlib.suppress(OSError, ValueError),
                open(f"{base}/schedstat") as stat,
                open(f"{base}/comm") as comm,
            ):
                run, wait, _ = stat.read().split()
                found[(pid, int(tid))] = (comm.read().strip(), int(run), int(wait))
    return found


@dataclass
class Sample:
    """One request: its wall time and each thread's CPU and run-queue wait meanwhile (ms)."""

    seconds: float
    at: float  # seconds into the flood when it began
    loop_run: float
    loop_wait: float
    others: list[tuple[str, float, float]]  # (thread or child, run ms, wait ms), busiest first


@dataclass
class Sched:
    """Snapshots of a server and its children around each request; keeps the slowest."""

    pid: int
    keep: int = 8
    slowest: list[Sample] = field(default_factory=list)
    _children: list[int] = field(default_factory=list)
    _nice: dict[int, int] = field(default_factory=dict)
    _listed: float = 0.0
    began: float = field(default_factory=time.monotonic)  # the flood's start

    def snapshot(self) -> Snapshot:
        if time.monotonic() - self._listed > 1.0:  # new workers appear on demand
            with contextlib.suppress(psutil.Error):
                kids = psutil.Process(self.pid).children(recursive=True)
                self._children = [k.pid for k in kids]
                for kid in kids:
                    with contextlib.suppress(psutil.Error):
                        self._nice[kid.pid] = kid.nice()
            self._listed = time.monotonic()
        found = _tasks(self.pid)
        for child in self._children:
            found.update(_tasks(child))
        return found

    def record(self, before: Snapshot, after: Snapshot, seconds: float) -> None:
        """Keep this request if it is among the slowest (it ended just now)."""
        at = time.monotonic() - seconds - self.began
        if len(self.slowest) >= self.keep and seconds <= self.slowest[-1].seconds:
            return
        deltas: dict[tuple[int, int], tuple[str, float, float]] = {}
        for key, (name, run, wait) in after.items():
            _, run0, wait0 = before.get(key, (name, run, wait))
            deltas[key] = (name, (run - run0) / 1e6, (wait - wait0) / 1e6)
        _, loop_run, loop_wait = deltas.pop((self.pid, self.pid), ("", 0.0, 0.0))
        others = sorted(
            (
                (self._label(pid, tid), run, wait)
                for (pid, tid), (_, run, wait) in deltas.items()
                if run + wait >= 1.0
            ),
            key=lambda o: -(o[1] + o[2]),
        )
        self.slowest.append(Sample(seconds, at, loop_run, loop_wait, others[:6]))
        self.slowest.sort(key=lambda s: -s.seconds)
        del self.slowest[self.keep :]

    def _label(self, pid: int, tid: int) -> str:
        """A server thread by its id; a child process by its id and niceness."""
        if pid == self.pid:
            return f"thread {tid}"
        return f"child {pid} (nice {self._nice.get(pid, '?')})"

    def report(self, label: str) -> None:
        print(f"\n{label}: B's slowest requests, per thread CPU (run) and run-queue wait, ms")
        print("| B ms | at s | loop run | loop wait | loop asleep | busiest others (run/wait) |")
        print("|---:|---:|---:|---:|---:|---|")
        for s in self.slowest:
            asleep = s.seconds * 1000 - s.loop_run - s.loop_wait
            others = ", ".join(f"{n} {r:.0f}/{w:.0f}" for n, r, w in s.others)
            print(f"| {s.seconds * 1000:.0f} | {s.at:.1f} | {s.loop_run:.0f} | {s.loop_wait:.0f} | "
                  f"{asleep:.0f} | {others} |")  # fmt: skip
