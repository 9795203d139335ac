"""Main text through trafilatura, shaped like our own extractor's output."""

from __future__ import annotations

import logging

import trafilatura

logging.getLogger("trafilatura").setLevel(logging.CRITICAL)


def trafilatura_text(markup: str, *, url: str | None = None, fast: bool = False) -> str:
    """trafilatura's main text, one paragraph per blank-line-separated block.

    trafilatura raises or returns None on markup lxml cannot build (for example very deep
    nesting); that is an empty text here, never an error.
    """
    try:
        out = trafilatura.extract(
            markup,
            url=url,
            fast=fast,
            include_comments=False,
            include_tables=True,
            deduplicate=False,
        )
    except (ValueError, TypeError, RecursionError, MemoryError):
        return ""
    if not out:
        return ""
    return "\n\n".join(line.strip() for line in out.splitlines() if line.strip())
