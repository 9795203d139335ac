"""Peak resident memory of this process while a block runs (tests' promises, benchmarks)."""

from __future__ import annotations

import threading

import psutil

MIB = 1 << 20


class PeakRSS:
    """Sample a process's RSS every few milliseconds while the block runs: this process by
    default, or `pid` with (`tree=True`) all its descendants summed."""

    def __init__(self, pid: int | None = None, *, tree: bool = False) -> None:
        self._process = psutil.Process(pid)
        self._tree = tree
        self.start = self.rss()
        self.peak = self.start
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def rss(self) -> int:
        processes = [self._process]
        if self._tree:
            processes += self._process.children(recursive=True)
        total = 0
        for process in processes:
            try:
                total += process.memory_info().rss
            except psutil.Error:  # a child that just exited
                continue
        return total

    def _sample(self) -> None:
        while not self._stop.wait(0.002 if not self._tree else 0.05):
            self.peak = max(self.peak, self.rss())

    def __enter__(self) -> PeakRSS:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.rss())

    @property
    def growth_mib(self) -> float:
        return (self.peak - self.start) / MIB
