"""Recognising a login wall served with 200: the page a source shows instead of its content.

A page is a login wall when it asks for a password (a password input) and offers little
else to read, or when a redirect landed on a sign-in path and it asks for a password.
An article that merely has a sign-in box in its header keeps its status.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_PASSWORD_INPUT = re.compile(rb"<input\b[^>]*\btype\s*=\s*[\"']?password\b", re.IGNORECASE)
_SIGN_IN_PATH = re.compile(
    r"/(?:log-?in|sign-?in|auth(?:enticate)?|sso|account/login|accounts/login|session/new)(?:/|$|\?)",
    re.IGNORECASE,
)
MAX_WALL_TEXT = 600  # characters of main text below which a password form is the page


def is_login_wall(body: bytes, main_text: str, final_url: str | None, redirected: bool) -> bool:
    """True when the response is a sign-in page rather than the asked-for content."""
    if not _PASSWORD_INPUT.search(body[:500_000]):
        return False
    if len(main_text) < MAX_WALL_TEXT:
        return True
    path = urlsplit(final_url).path if final_url else ""
    return redirected and bool(_SIGN_IN_PATH.search(path))
