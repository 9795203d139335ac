"""Peak resident memory of this process while a block runs (tests' promises, benchmarks)."""

from __future__ import annotations

import threading

import psutil

MIB = 1 << 20


class PeakRSS:
    """Sample this process's RSS every few milliseconds while the block runs."""

    def __init__(self) -> None:
        self._process = psutil.Process()
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
