"""Real pages (from the trafilatura evaluation set) served by test origins and the demo."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

PAGES_DIR = Path(__file__).resolve().parent.parent / "data" / "pages"


@dataclass(frozen=True)
class RealPage:
    name: str
    url: str
    html: bytes
    must_contain: tuple[str, ...]
    must_not_contain: tuple[str, ...]


def real_pages() -> list[RealPage]:
    cases = json.loads((PAGES_DIR / "cases.json").read_text(encoding="utf-8"))
    return [
        RealPage(
            name=case["file"].removesuffix(".html.gz"),
            url=case["url"],
            html=gzip.decompress((PAGES_DIR / case["file"]).read_bytes()),
            must_contain=tuple(case["must_contain"]),
            must_not_contain=tuple(case["must_not_contain"]),
        )
        for case in cases
    ]
