"""Real pages (from the trafilatura evaluation set) served by test origins and the demo.

The pages are the repository's (tests/data/pages), not the package's: a caller in the
repository names the folder, `pages_dir(root)`.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path


def pages_dir(root: Path) -> Path:
    """The real pages' folder in the repository checked out at `root`."""
    return root / "tests" / "data" / "pages"


@dataclass(frozen=True)
class RealPage:
    name: str
    url: str
    html: bytes
    must_contain: tuple[str, ...]
    must_not_contain: tuple[str, ...]


def real_pages(folder: Path) -> list[RealPage]:
    """Every page of `folder`'s cases.json, unpacked, with what its text must (not) hold."""
    cases = json.loads((folder / "cases.json").read_text(encoding="utf-8"))
    return [
        RealPage(
            name=case["file"].removesuffix(".html.gz"),
            url=case["url"],
            html=gzip.decompress((folder / case["file"]).read_bytes()),
            must_contain=tuple(case["must_contain"]),
            must_not_contain=tuple(case["must_not_contain"]),
        )
        for case in cases
    ]


def article_html(language: str, title: str, paragraphs: list[str]) -> bytes:
    """A small article page: `paragraphs` three times over, in `language`."""
    body = "".join(f"<p>{p}</p>" for p in paragraphs * 3)
    head = f"<html lang='{language}'><head><meta charset='utf-8'><title>{title}</title></head>"
    return f"{head}<body><article>{body}</article></body></html>".encode()
