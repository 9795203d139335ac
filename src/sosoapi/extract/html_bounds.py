"""A linear pre-scan that bounds HTML before any parser sees it.

HTML5 tree construction is quadratic in nesting depth (scope checks walk the stack of
open elements) and in the number of distinct attributes on one tag (duplicate checks).
Measured with Lexbor: 100,000 nested `<div>` take 16 s and one tag with 200,000 distinct
attributes 150 s. This scan, linear in the input, cuts the markup before the tag that
would pass the node or depth bound, and strips the attributes of a tag that has too many,
so every parser downstream sees bounded input.

Most pages are far inside the bounds, so a vectorised check runs first: one regex pass that
tokenises exactly as the scan does (a tag runs to the first `>`, a comment to `-->`, raw text
to its end tag), the depth computed with `accumulate` in C. Only a page that may pass a bound
takes the scan, which then says where to cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate
from operator import sub

MAX_NODES = 60_000
MAX_DEPTH = 1_000
MAX_ATTRIBUTES = 64

_TAG_START = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:_-]*)|<!--")
_ATTRIBUTE = re.compile(r"""[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"?|'[^']*'?|[^\s>]*))?""")
# Raw-text elements: their content is not markup, the parser looks only for the end tag.
_RAW_TEXT = frozenset({"script", "style", "textarea", "title", "xmp", "iframe", "noembed"})
_RAW_TEXT_END = {name: re.compile(f"</{name}", re.IGNORECASE) for name in _RAW_TEXT}
# Elements that never hold children, or whose end tag the parser implies; they add no depth.
_FLAT = frozenset(
    {
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr", "p", "li", "dt", "dd", "option", "optgroup", "tr", "td",
        "th", "thead", "tbody", "tfoot", "rt", "rp", "colgroup", "caption", "frame", "keygen",
        "basefont", "bgsound",
    }
)  # fmt: skip


_RAW_TEXT_NAMES = "|".join(sorted(_RAW_TEXT))
# One token per tag, comment or raw-text element, as the scan reads them. The last group
# holds a tag's attribute text only when it is long enough to hold too many attributes.
_LONG_ATTRIBUTES = rf"(?:([^>]{{{2 * MAX_ATTRIBUTES + 1},}})|[^>]*)>"
_TOKEN = re.compile(
    r"<!--(?:.*?-->|.*)"
    rf"|<({_RAW_TEXT_NAMES})(?![A-Za-z0-9:_-]){_LONG_ATTRIBUTES}(?:[^<]+|<(?!/\1))*"
    rf"|<(/?)([A-Za-z][A-Za-z0-9:_-]*){_LONG_ATTRIBUTES}",
    re.IGNORECASE | re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class BoundedMarkup:
    """The markup to parse and whether the node or depth bound cut it."""

    markup: str
    nodes_limited: bool


def bound_markup(markup: str) -> BoundedMarkup:
    """Cut `markup` at the node or depth bound and strip oversized attribute lists."""
    if _within_bounds(markup):
        return BoundedMarkup(markup, False)
    return scan_bounds(markup)


def _within_bounds(markup: str) -> bool:
    """True when the scan would leave `markup` as it is; False when it might not.

    Conservative: every `<` counts towards the node bound and self-closing tags add depth.
    """
    if markup.count("<") > MAX_NODES:
        return False
    tokens = _TOKEN.findall(markup)
    for _, raw_attrs, closing, _, attrs in tokens:
        long_attrs = raw_attrs or (attrs if not closing else "")
        if long_attrs and _too_many_attributes(long_attrs):
            return False
    # Comments (no name) and flat tags add no depth.
    steps = [
        1 if raw else 0 if not name or name.lower() in _FLAT else -1 if closing else 1
        for raw, _, closing, name, _ in tokens
    ]
    if not steps:
        return True
    # Depth never drops below zero: the depth after a token is the running sum minus the
    # lowest running sum (or zero) before it.
    sums = list(accumulate(steps))
    floors = accumulate(sums, min, initial=0)
    next(floors)
    return bool(max(map(sub, sums, floors)) <= MAX_DEPTH)


def scan_bounds(markup: str) -> BoundedMarkup:
    """The exact scan: cut before the tag past a bound, strip oversized attribute lists."""
    pieces: list[str] = []
    kept = 0
    pos = 0
    nodes = 0
    depth = 0
    length = len(markup)
    while pos < length:
        match = _TAG_START.search(markup, pos)
        if match is None:
            break
        start = match.start()
        if match.group(0) == "<!--":
            end = markup.find("-->", match.end())
            pos = length if end < 0 else end + 3
            continue
        closing, name = match.group(1) == "/", match.group(2).lower()
        gt = markup.find(">", match.end())
        if gt < 0:
            break
        pos = gt + 1
        if closing:
            if name not in _FLAT and depth > 0:
                depth -= 1
            continue
        nodes += 1
        if name not in _FLAT and markup[gt - 1] != "/":
            depth += 1
        if nodes > MAX_NODES or depth > MAX_DEPTH:
            pieces.append(markup[kept:start])
            return BoundedMarkup("".join(pieces), True)
        body = markup[match.end() : gt]
        if len(body) > 2 * MAX_ATTRIBUTES and _too_many_attributes(body):
            pieces.append(markup[kept:start])
            pieces.append(f"<{name}>")
            kept = pos
        if name in _RAW_TEXT:
            closing = _RAW_TEXT_END[name].search(markup, pos)
            pos = length if closing is None else closing.start()
    pieces.append(markup[kept:])
    return BoundedMarkup("".join(pieces), False)


def _too_many_attributes(body: str) -> bool:
    found = enumerate(_ATTRIBUTE.finditer(body), start=1)
    return any(count > MAX_ATTRIBUTES for count, _ in found)
