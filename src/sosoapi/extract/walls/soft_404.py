"""Soft 404s served 200 -> `not_found`; a web framework's error page -> `unavailable`;
a "403 Forbidden" page -> `access_denied`.

Each counts only on a short page whose title, heading or first line is only the
message, so a story titled "Not found: ..." stays a story.
"""

from __future__ import annotations

import re

from sosoapi.contract.vocabulary import Reason
from sosoapi.extract.walls.signals.error_pages import (
    EXPRESS_404,
    FORBIDDEN_PHRASES,
    NOT_FOUND_PHRASES,
    SERVER_ERROR_PHRASES,
    WORDPRESS_404,
)
from sosoapi.extract.walls.text import lines_of, says_only
from sosoapi.extract.walls.types import Verdict
from sosoapi.extract.walls.view import PageView

SOFT_404_TEXT_MAX = 1_500
_STATUS_403 = re.compile(r"\b403\b")


def missing_page(view: PageView, text: str) -> Verdict | None:
    """A soft 404 (`not_found`), a framework's error page (`unavailable`) or a refusal
    naming 403 (`access_denied`) served 200."""
    if len(text) >= SOFT_404_TEXT_MAX:
        return None
    lines = lines_of(text)
    candidates = [view.page.title or "", view.raw_title, view.heading, *lines[:1]]
    if says_only(candidates, SERVER_ERROR_PHRASES):
        return Verdict("", (Reason.UNAVAILABLE,), "server_error")
    if says_only(candidates, FORBIDDEN_PHRASES) and _STATUS_403.search(f"{view.raw_title} {text}"):
        return Verdict("", (Reason.ACCESS_DENIED,), "forbidden")
    if (
        says_only(candidates, NOT_FOUND_PHRASES)
        or WORDPRESS_404.search(view.markup)
        or (len(lines) == 1 and EXPRESS_404.match(lines[0]))
    ):
        return Verdict("", (Reason.NOT_FOUND,), "soft_404")
    return None
