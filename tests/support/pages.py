"""The repository's real pages (`sosoapi.testing.pages`, which the demo and the
benchmarks share), read from tests/data/pages."""

from __future__ import annotations

from pathlib import Path

from sosoapi.testing.pages import RealPage, pages_dir
from sosoapi.testing.pages import real_pages as _real_pages

PAGES_DIR = pages_dir(Path(__file__).resolve().parents[2])

__all__ = ["PAGES_DIR", "RealPage", "real_pages"]


def real_pages() -> list[RealPage]:
    return _real_pages(PAGES_DIR)
