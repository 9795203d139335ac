"""Normalising decoded text: newlines, control characters and blank-line runs."""

from __future__ import annotations

import re

# C0/C1 controls except tab and newline, plus the replacement for NUL-like junk.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_TRAILING_SPACE = re.compile(r"[ \t\u00a0]+\n")
_BLANK_RUN = re.compile(r"\n{3,}")


def normalize_plain_text(text: str) -> str:
    """CRLF/CR to LF, no control characters, no trailing blanks, at most one blank line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROLS.sub("", text)
    text = _TRAILING_SPACE.sub("\n", text + "\n")
    return _BLANK_RUN.sub("\n\n", text).strip()
