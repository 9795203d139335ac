"""What every tool input must be before the contract schema judges it.

JSON Schema admits values no store can hold and shapes no parser should recurse into, so
the door refuses them first, naming the field: nesting deeper than `MAX_DEPTH` (no contract
needs more than four levels), a NUL character (PostgreSQL text cannot hold it), a lone
surrogate (not encodable as UTF-8). Integral numbers such as `1.0` become `1`, so a count
can index a list and a replay's fingerprint sees the same value.
"""

from __future__ import annotations

import math
import operator
import re
from itertools import accumulate, count
from typing import Any

from sosoapi.contract.errors import invalid_input

MAX_DEPTH = 32
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
# Openers count 2, closers 0: the running sum minus the position is the depth there.
_WEIGHTS = bytes.maketrans(b"[]{}", b"\x02\x00\x02\x00")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def raw_depth_exceeded(raw: bytes, limit: int = MAX_DEPTH) -> bool:
    """True when the JSON text `raw` nests deeper than `limit`, found without parsing it.

    Strings are cut out first (brackets inside them do not nest); the rest is reduced to
    its brackets and scanned by C-level iterators, so a megabyte costs milliseconds.
    """
    brackets = _STRING.sub(b"", raw).translate(_WEIGHTS, _NOT_BRACKETS)
    if not brackets:
        return False
    return bool(max(map(operator.sub, accumulate(brackets), count(1))) > limit)


def too_deep() -> Exception:
    return invalid_input(
        f"The input nests deeper than {MAX_DEPTH} levels; no tool takes such a shape. "
        "Send the flat object the tool's inputSchema describes.",
        "(arguments)",
    )


def normalise(arguments: Any) -> Any:
    """A copy of `arguments` with integral floats as ints; refuse deep, NUL and
    lone-surrogate input. Walks with an explicit stack (never recursion), so any depth is
    judged safely.
    """
    root: list[Any] = [arguments]
    stack: list[tuple[Any, Any, str, int]] = [(root, 0, "", 0)]
    while stack:
        parent, key, path, depth = stack.pop()
        value = parent[key]
        if isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                raise too_deep()
            value = parent[key] = dict(value) if isinstance(value, dict) else list(value)
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for name, _ in items:
                label = f"{path}.{name}" if path else str(name)
                if isinstance(name, str):
                    _check_text(name, label)
                stack.append((value, name, label, depth + 1))
        elif isinstance(value, str):
            _check_text(value, path)
        elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
            parent[key] = int(value)
    return root[0]


def _check_text(text: str, field: str) -> None:
    found = _UNSTORABLE.search(text)
    if found is None:
        return
    name = field or "(arguments)"
    if found.group() == "\x00":
        raise invalid_input(
            f"`{name}` contains a NUL character (U+0000), which cannot be stored; remove it.",
            name,
        )
    raise invalid_input(
        f"`{name}` contains a lone surrogate (U+{ord(found.group()):04X}), which is not "
        "valid Unicode text; send well-formed UTF-8.",
        name,
    )
