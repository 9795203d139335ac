"""Reading a page's embedded data: JSON only, never a script run.

The article body a page embeds as JSON-LD `articleBody`, Next.js or Nuxt data, each
distinct body resolved once and all of them cut to `_EMBEDDED_CHARS_MAX` characters. The
JSON is read by extract/json_data.py at any depth, an HTML body within the parse bounds of
extract/html_bounds.py, like every other third-party byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from sosoapi.extract.html_bounds import parse_html
from sosoapi.extract.json_data import load_json, load_json_at
from sosoapi.extract.limits import WHOLE_TEXT_DEFAULT
from sosoapi.extract.schema_org import ARTICLE_BODY_TYPES
from sosoapi.extract.text_plain import normalize_plain_text
from sosoapi.extract.walls.signals.frameworks import (
    BODY_KEYS,
    HTML_IN_TEXT,
    LD_JSON,
    SCRIPT_JSON,
    STATE_ASSIGNMENT,
)
from sosoapi.extract.walls.text import collapse

EMBEDDED_MIN = 200  # characters of embedded prose worth reading
_EMBEDDED_MAX = 20  # data blocks read per kind: a page has one or two
_JSON_NODES_MAX = 200_000
# Characters of embedded bodies read per page, all bodies together: twice the text an
# evidence revision keeps by default.
_EMBEDDED_CHARS_MAX = 2 * WHOLE_TEXT_DEFAULT


def embedded_text(markup: str) -> tuple[str, str] | None:
    """(source, text) of the longest article body the page embeds as data, if any."""
    found: dict[str, str] = {}  # each distinct body once, with the first source naming it
    if "ld+json" in markup:
        for _, block in _blocks(markup, LD_JSON):
            data = _loads(block)
            _collect(found, "json_ld", _article_bodies(data))
    if "__NEXT_DATA__" in markup or "__NUXT_DATA__" in markup:
        for opener, block in _blocks(markup, SCRIPT_JSON):
            data = _loads(block)
            source = "next_data" if opener.group(1) == "__NEXT_DATA__" else "nuxt"
            _collect(found, source, _bodies(data, data))
    if "window.__" in markup:
        for index, match in enumerate(STATE_ASSIGNMENT.finditer(markup)):
            if index >= _EMBEDDED_MAX:
                break
            data = _raw_json(markup, match.end())
            source = "nuxt" if match.group(1) == "__NUXT__" else "initial_state"
            _collect(found, source, _bodies(data, data))
    texts = [(source, _as_text(body)) for body, source in _handed_on(found)]
    texts = [(source, text) for source, text in texts if _is_prose(text)]
    return max(texts, key=lambda item: len(item[1])) if texts else None


def _collect(found: dict[str, str], source: str, bodies: Iterator[str]) -> None:
    for body in bodies:
        found.setdefault(body, source)


def _handed_on(found: dict[str, str]) -> Iterator[tuple[str, str]]:
    """(body, source) in the order found, each body read at most once and all of them
    together cut to _EMBEDDED_CHARS_MAX characters: what the page embeds costs at most
    one reading of that many characters, however often the data repeats or refers to it."""
    left = _EMBEDDED_CHARS_MAX
    for body, source in found.items():
        if left <= 0:
            return
        yield body[:left], source
        left -= len(body)


def _loads(text: str) -> Any:
    return load_json(text.strip().removeprefix("<!--").removesuffix("-->"), strict=False)


def _raw_json(markup: str, at: int) -> Any:
    """The JSON value assigned at `at` (`{...}` or `JSON.parse("...")`), None otherwise."""
    if markup.startswith("JSON.parse(", at):
        quoted = load_json_at(markup, at + len("JSON.parse("), strict=False)
        return load_json(quoted, strict=False) if isinstance(quoted, str) else None
    if markup.startswith("{", at):
        return load_json_at(markup, at, strict=False)
    return None  # a function call or any other script: never evaluated


def _walk(data: Any) -> Iterator[Any]:
    """Every dict and list in `data`, breadth first, at most _JSON_NODES_MAX of them."""
    queue, seen = [data], 0
    while queue and seen < _JSON_NODES_MAX:
        node = queue.pop()
        seen += 1
        if isinstance(node, dict):
            yield node
            queue.extend(v for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            yield node
            queue.extend(v for v in node if isinstance(v, dict | list))


def _article_bodies(data: Any) -> Iterator[str]:
    """`articleBody` of every schema.org Article (or subtype) in a JSON-LD value."""
    for node in _walk(data):
        if not isinstance(node, dict):
            continue
        kinds = node.get("@type")
        names = kinds if isinstance(kinds, list) else [kinds]
        if any(isinstance(k, str) and k.lower() in ARTICLE_BODY_TYPES for k in names):
            body = node.get("articleBody")
            if isinstance(body, str):
                yield body


def _bodies(data: Any, root: Any) -> Iterator[str]:
    """Plain-string values under article-body keys. Nuxt 3's payload references (values
    are indices into the payload) are resolved once per index: thousands of references
    to one large string yield it once."""
    table = root if isinstance(root, list) else None
    resolved: set[int] = set()
    for node in _walk(data):
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            if not (isinstance(key, str) and key.lower() in BODY_KEYS):
                continue
            if isinstance(value, int) and table is not None and 0 <= value < len(table):
                if value in resolved:
                    continue
                resolved.add(value)
                value = table[value]
            if isinstance(value, str):
                yield value


def _as_text(body: str) -> str:
    """An embedded body as text: HTML bodies are read by block, plain ones normalised."""
    if not HTML_IN_TEXT.search(body):
        return normalize_plain_text(body)
    tree, _ = parse_html(f"<body>{body}</body>")
    blocks = [
        collapse(node.text(deep=True, separator=" "))
        for node in tree.css("p, h1, h2, h3, h4, h5, h6, li, blockquote, pre")
    ]
    blocks = [b for b in blocks if b]
    if not blocks and tree.body is not None:
        blocks = [collapse(tree.body.text(deep=True, separator=" "))]
    return "\n\n".join(blocks)


def _is_prose(text: str) -> bool:
    """Long enough, and words rather than a token, URL or encoded blob."""
    return len(text) >= EMBEDDED_MIN and text.count(" ") >= len(text) / 20


def _blocks(markup: str, opener: re.Pattern[str]) -> Iterator[tuple[re.Match[str], str]]:
    """(opener, content) of each script element `opener` starts, content up to `</script`."""
    at, count = 0, 0
    while count < _EMBEDDED_MAX:
        found = opener.search(markup, at)
        if found is None:
            return
        close = markup.find("</script", found.end())
        if close < 0:
            return
        yield found, markup[found.end() : close]
        at, count = close, count + 1
