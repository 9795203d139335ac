"""Publisher-declared language tags, normalised to the contract's BCP 47 shape."""

from __future__ import annotations

import re

_TAG = re.compile(r"^[a-zA-Z]{2,8}(?:-[a-zA-Z0-9]{1,8})*$")
MAX_TAG = 35


def normalize_language(raw: str | None) -> str | None:
    """`en_US` -> `en-US`; first entry of a list; None when absent or not a valid tag."""
    if raw is None:
        return None
    first = re.split(r"[,;\s]+", raw.strip(), maxsplit=1)[0] if raw.strip() else ""
    tag = first.replace("_", "-")
    if not tag or len(tag) > MAX_TAG or not _TAG.fullmatch(tag):
        return None
    return tag


def language_matches(asked: str, declared: str) -> bool:
    """Exact match first, else a prefix match on subtag boundaries (`en` ~ `en-US`).

    Two tags that both carry a region never match across regions (`en-GB` vs `en-US`).
    """
    a, d = asked.lower(), declared.lower()
    return a == d or d.startswith(a + "-") or a.startswith(d + "-")
