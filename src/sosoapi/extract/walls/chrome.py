"""A page whose only text is its navigation, header, footer or cookie notice -> no text
(the reader says `no_text` or `metadata_only`)."""

from __future__ import annotations

from sosoapi.extract.walls.text import without
from sosoapi.extract.walls.types import Verdict
from sosoapi.extract.walls.view import PageView

CHROME_TEXT_MAX = 200


def chrome_only(view: PageView, text: str) -> Verdict | None:
    """A page whose only text is its navigation, header, footer or cookie notice."""
    if not text or len(text) >= CHROME_TEXT_MAX:
        return None
    if without(text, view.chrome):
        return None
    return Verdict("", (), "chrome")
