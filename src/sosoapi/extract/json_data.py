"""JSON a page embeds, read as data at any depth: never an error, never a deep recursion.

Python's `json` recurses once per nesting level and raises `RecursionError` past the
interpreter's limit (a JSON-LD block nested 5,000 deep did). A block nested deeper than
`MAX_DEPTH` is read with every value below that depth replaced by null: the data a page
means for a reader sits near the top (schema.org JSON-LD nests a few levels), and the
walk of what was read is bounded too.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64
# Strings (so brackets inside them are not counted) and brackets, as the scan reads them.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')


def load_json(text: str, *, strict: bool = True) -> Any:
    """The JSON value of `text`, None when it is not JSON; values nested deeper than
    MAX_DEPTH are null."""
    try:
        return json.loads(text, strict=strict)
    except RecursionError:
        pass
    except ValueError:
        return None
    try:
        return json.loads(_pruned(text, MAX_DEPTH), strict=strict)
    except (ValueError, RecursionError):
        return None


def load_json_at(text: str, at: int, *, strict: bool = True) -> Any:
    """The JSON value that starts at `at` in `text` (what follows it is not read), None
    when none does; values nested deeper than MAX_DEPTH are null."""
    try:
        return json.JSONDecoder(strict=strict).raw_decode(text, at)[0]
    except RecursionError:
        pass
    except ValueError:
        return None
    return load_json(text[at : _value_end(text, at)], strict=strict)


def _value_end(text: str, at: int) -> int:
    """Where the array or object opening at `at` closes (the end of `text` if it does not)."""
    depth = 0
    for token in _TOKEN.finditer(text, at):
        mark = token.group()
        if mark in ("[", "{"):
            depth += 1
        elif mark in ("]", "}"):
            depth -= 1
            if depth <= 0:
                return token.end()
    return len(text)


def _pruned(text: str, depth_max: int) -> str:
    """`text` with each array or object that opens below `depth_max` levels replaced by
    null: one pass over its strings and brackets."""
    pieces: list[str] = []
    depth, kept = 0, 0
    for token in _TOKEN.finditer(text):
        mark = token.group()
        if mark in ("[", "{"):
            depth += 1
            if depth == depth_max + 1:
                pieces.append(text[kept : token.start()])
                pieces.append("null")
        elif mark in ("]", "}"):
            if depth == depth_max + 1:
                kept = token.end()
            depth = max(depth - 1, 0)
    if depth <= depth_max:
        pieces.append(text[kept:])
    return "".join(pieces)
