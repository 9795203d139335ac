"""A script shell: its text read from its own embedded data (JSON-LD `articleBody`,
`__NEXT_DATA__`, Nuxt state) when present, never by running a script; else no text (the
reader says `metadata_only` when the page has a title or description, else `no_text`).
"""

from __future__ import annotations

from sosoapi.extract.walls.embedded import embedded_text
from sosoapi.extract.walls.signals.frameworks import SHELL_MARKUP
from sosoapi.extract.walls.text import without
from sosoapi.extract.walls.types import Verdict
from sosoapi.extract.walls.view import PageView

SHELL_TEXT_MAX = 300  # "empty or tiny" visible text


def script_shell(view: PageView, text: str) -> Verdict | None:
    """A page whose text is built by scripts: its embedded article, else `no_text`."""
    if len(text) >= SHELL_TEXT_MAX:
        return None
    embedded = embedded_text(view.markup)
    if embedded is not None and len(embedded[1]) > len(text):
        return Verdict(embedded[1], (), f"embedded:{embedded[0]}")
    if not SHELL_MARKUP.search(view.markup):
        return None
    if without(text, view.chrome) and not _asks_for_javascript(text):
        return None  # a small page with text of its own
    return Verdict("", (), "shell")  # the reader says `metadata_only` or `no_text`


def _asks_for_javascript(text: str) -> bool:
    return "javascript" in text.lower() and len(text) < SHELL_TEXT_MAX
