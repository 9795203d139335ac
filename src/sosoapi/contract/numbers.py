"""Numbers read from text a caller or a remote server wrote: a path, a query string, a
URI template, a header, a URL's port.

`str.isdigit()` accepts `²` (which `int()` then refuses) and `٣` (which `int()` reads as
3), and `int()` of thousands of digits refuses too, after working through them: each of
those was a 500 with a traceback. Every such number is parsed here, so a forged one is
the caller's clear error, never the server's.
"""

from __future__ import annotations

import re

MAX_SAFE_INT = 2**53 - 1  # the contract's bound for every count, revision and offset
_ASCII_DIGITS = re.compile(r"[0-9]+")  # not `\d`, which takes every script's digits


def whole_number(text: str | bytes, *, least: int = 0, most: int = MAX_SAFE_INT) -> int | None:
    """`text` as an int when it is ASCII digits (leading zeros allowed) from `least` to
    `most`; None otherwise. The length is checked before `int()` ever sees the text."""
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    if not _ASCII_DIGITS.fullmatch(text):
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(most)):
        return None
    value = int(digits)
    return value if least <= value <= most else None


def not_a_number(name: str, text: str, *, least: int = 0, most: int = MAX_SAFE_INT) -> str:
    """The refusal's words: the field, what is wrong with the value, what to send."""
    return (
        f"`{name}` {text[:20]!r}{'...' if len(text) > 20 else ''} is not a whole number "
        f"from {least} to {most}; write it in ASCII digits 0-9"
    )
