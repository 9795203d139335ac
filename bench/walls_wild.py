"""Walls on pages captured from the live web by others: the verdict per class, per half.

The wild dev set (`wild-dev/` in the data folder: its README says where every page comes
from) holds challenge, sign-in, paywall, soft-404 and script-shell pages, and real
articles that look like them. Each page goes through the reader as egress hands it over:
its recorded status and headers, a 2xx body whole, a 403/405/429/503 body cut to the
error page egress keeps (`ERROR_BODY_MAX`), any other status without a body. A page
settles right when its (status, reason) is one its class allows (`expect` in the
manifest). Usage:

    .venv/bin/python bench/walls_wild.py [--half tune|judge]

Rules are tuned on the `tune` half only; `judge` is the held-out check. Every page that
settles wrong is listed with what it settled as and what the wall step called it. The data
folder is $SOSOAPI_BENCH_DATA (default ../shared/data from the project root), as for
bench/extraction.py; the false walls on the three extraction dev sets are its `--walls`.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import logging
import os
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

from sosoapi.egress.statuses import (  # noqa: E402
    CHALLENGE_STATUSES,
    ERROR_BODY_MAX,
    reason_for_status,
)
from sosoapi.egress.types import FetchOutcome, ResponseHeaders  # noqa: E402
from sosoapi.extract.html import extract_text_document  # noqa: E402
from sosoapi.research.offload import Offload  # noqa: E402
from sosoapi.research.retrieval.reading import read_source  # noqa: E402

CLASSES = ("challenge", "consent", "sign_in", "paywall", "soft_404", "shell", "article")
NOW = datetime(2024, 5, 1, tzinfo=UTC)
THREADS = Offload()  # parsing in threads: the pages are judged, not timed


@dataclass(frozen=True, slots=True)
class WildPage:
    name: str
    path: str  # where the page is served: its original path where the source recorded it
    kind: str  # the page's class
    half: str
    status: int
    headers: dict[str, str]
    expect: tuple[tuple[str, str | None], ...]
    body: bytes


def load_pages(folder: Path) -> list[WildPage]:
    rows = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return [
        WildPage(
            name=row["name"],
            path=row["path"],
            kind=row["class"],
            half=row["half"],
            status=row["status"],
            headers=row["headers"],
            expect=tuple((status, reason) for status, reason in row["expect"]),
            body=gzip.decompress((folder / row["file"]).read_bytes()),
        )
        for row in rows
    ]


def outcome_of(page: WildPage, url: str) -> FetchOutcome:
    """What egress hands the reader for this recorded answer."""
    sent = ResponseHeaders.of(page.headers.items()).by_name
    headers = ResponseHeaders({**sent, "content-type": "text/html"})
    common: dict[str, Any] = {
        "final_url": url,
        "status_code": page.status,
        "retrieved_at": NOW,
        "headers": headers,
    }
    if 200 <= page.status < 300:
        return FetchOutcome(None, body=page.body, **common)
    reason, retry = reason_for_status(page.status, page.headers.get("Retry-After"))
    body = page.body[:ERROR_BODY_MAX] if page.status in CHALLENGE_STATUSES else b""
    return FetchOutcome(reason, body=body, retry_after_seconds=retry, **common)


def settle(page: WildPage) -> tuple[str, str | None, str]:
    """(status, reason, judgement) of a url_text retrieval of the page."""
    url = f"https://wild.test{page.path}"

    async def fetch(asked: str, *, accept: tuple[str, ...]) -> FetchOutcome:
        return outcome_of(page, url)

    result = asyncio.run(read_source(fetch, "url_text", url, None, lambda: NOW, pool=THREADS))
    document = extract_text_document(
        page.body,
        media_type="text/html",
        charset=None,
        content_language=None,
        url=url,
        status=page.status,
        headers={name.lower(): value for name, value in page.headers.items()},
    )
    reason = str(result.reason) if result.reason else None
    return str(result.status), reason, document.judgement if document else "none"


def report(pages: list[WildPage], half: str) -> None:
    chosen = [page for page in pages if page.half == half]
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    misses: list[str] = []
    for page in chosen:
        status, reason, judgement = settle(page)
        total[page.kind] += 1
        if (status, reason) in page.expect:
            right[page.kind] += 1
        else:
            misses.append(f"  {page.kind:<10} {page.name}: {status}/{reason} ({judgement})")
    print(f"{half} half: {len(chosen)} pages")
    print(f"{'class':<11}{'pages':>6}{'right':>7}")
    for kind in CLASSES:
        print(f"{kind:<11}{total[kind]:>6}{right[kind]:>7}")
    print(f"settled wrong: {len(misses)}")
    print("\n".join(misses))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("tune", "judge"), help="print one half only")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)
    data = Path(os.environ.get("SOSOAPI_BENCH_DATA", ROOT.parent / "shared" / "data"))
    pages = load_pages(data / "wild-dev")
    for half in [args.half] if args.half else ["tune", "judge"]:
        report(pages, half)


if __name__ == "__main__":
    main()
