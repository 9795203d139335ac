"""Peak resident memory of a process (this one by default) while a block runs."""

from __future__ import annotations

import threading

import psutil

MIB = 1 << 20


class PeakRSS:
    """Sample the RSS of process `pid` (default: this one) every few ms while the block runs."""

    def __init__(self, pid: int | None = None) -> None:
        self._process = psutil.Process(pid)
        self.start = self._process.memory_info().rss
        self.peak = self.start
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, self._process.memory_info().rss)

    def __enter__(self) -> PeakRSS:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._process.memory_info().rss)

    @property
    def growth_mib(self) -> float:
        return (self.peak - self.start) / MIB
