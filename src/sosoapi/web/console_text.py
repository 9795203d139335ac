"""How the console lays out third-party text: a diff in context, query words marked.

Both return plain `(kind, text)` pieces, never markup: the template wraps each piece in
its element (`<del>`, `<ins>`, `<mark>`) and autoescaping escapes every text, so no
string from a source is ever marked safe.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from sosoapi.contract.evidence_tools import TextChange

CONTEXT = 160  # unchanged characters kept on each side of a change
DiffKind = Literal["same", "del", "ins", "skip", "page"]
Piece = tuple[DiffKind, str]


def _head(text: str, size: int) -> str:
    """The first `size` characters or so, ending at white space when there is some."""
    if len(text) <= size:
        return text
    cut = max(text.rfind(" ", size // 2, size), text.rfind("\n", size // 2, size))
    return text[: cut + 1 if cut > 0 else size]


def _tail(text: str, size: int) -> str:
    """The last `size` characters or so, starting after white space when there is some."""
    if len(text) <= size:
        return text
    start, stop = len(text) - size, len(text) - size // 2
    cuts = [c for c in (text.find(" ", start, stop), text.find("\n", start, stop)) if c >= 0]
    return text[min(cuts) + 1 if cuts else start :]


def _unchanged(text: str, *, before: bool, after: bool, context: int) -> list[Piece]:
    """An unchanged run, cut down to the context a change needs on the sides it touches."""
    keep_head = _head(text, context) if before else ""
    keep_tail = _tail(text, context) if after else ""
    if len(keep_head) + len(keep_tail) >= len(text) - context // 4:
        return [("same", text)] if text else []
    hidden = len(text) - len(keep_head) - len(keep_tail)
    pieces: list[Piece] = [("same", keep_head)] if keep_head else []
    pieces.append(("skip", f"{hidden:,}"))
    return pieces + ([("same", keep_tail)] if keep_tail else [])


def diff_pieces(
    changes: Sequence[TextChange], new_text: str, context: int = CONTEXT
) -> list[Piece]:
    """The new text with each change in place (deleted text, then inserted text) and the
    unchanged text around it cut to `context` characters a side; none when nothing changed.
    In a PDF, a change on another page of the new revision than the one before it is
    preceded by a `page` piece, that page's number as the diff tool gives it (`to_page`:
    the page links into the new revision, so the old one's page is not used).

    The unchanged runs come from the new text: between two changes both texts agree."""
    if not changes:
        return []
    pieces: list[Piece] = []
    at = 0
    shown_page: int | None = None
    for change in changes:
        same = new_text[at : change.to_start]
        pieces += _unchanged(same, before=at > 0, after=True, context=context)
        page = change.to_page
        if page is not None and page.number != shown_page:
            pieces.append(("page", str(page.number)))
            shown_page = page.number
        if change.from_text:
            pieces.append(("del", change.from_text))
        if change.to_text:
            pieces.append(("ins", change.to_text))
        at = change.to_end
    return pieces + _unchanged(new_text[at:], before=True, after=False, context=context)


def _phrase_pattern(phrase: str) -> str:
    words = r"\s+".join(re.escape(word) for word in phrase.split())
    return rf"(?<!\w){words}(?!\w)"


def marked(text: str, phrases: Sequence[str]) -> list[tuple[str, bool]]:
    """`text` cut into pieces, True where a query word or phrase occurs as written (any
    case). A reading aid only: the store also matches stems and folded accents."""
    if not phrases:
        return [(text, False)]
    ordered = sorted(phrases, key=len, reverse=True)  # the longest phrase wins an overlap
    pattern = re.compile("|".join(_phrase_pattern(p) for p in ordered), re.IGNORECASE)
    pieces: list[tuple[str, bool]] = []
    at = 0
    for match in pattern.finditer(text):
        if match.start() > at:
            pieces.append((text[at : match.start()], False))
        pieces.append((match.group(), True))
        at = match.end()
    if at < len(text):
        pieces.append((text[at:], False))
    return pieces
