"""Main text through trafilatura, shaped like our own extractor's output.

trafilatura is the hybrid's fallback on the pages where ours is unsure (about one in ten)
and an optional extra (`pip install 'sosoapi[trafilatura]'`): with lxml, babel and
dateparser it is 64 MiB of a 277 MiB install and a third of a second of every start.
It is imported at its first use; without it the hybrid keeps our own text (README.md and
bench/README.md give what that costs in F1).
"""

from __future__ import annotations

import functools
import importlib.util
import logging
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Lexbor stays unloaded where only `trafilatura_available` is asked
    from sosoapi.extract.html_bounds import BoundedMarkup


@functools.cache
def _trafilatura() -> ModuleType | None:
    """The trafilatura module, imported once, or None when the extra is not installed."""
    try:
        import trafilatura
        import trafilatura.utils
    except ImportError:
        return None
    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
    _look_up_elements_in_c(trafilatura.utils.HTML_PARSER)
    return trafilatura


def _look_up_elements_in_c(parser: Any) -> None:
    """Give the elements of the trees `parser` builds their lxml.html classes from lxml's C
    lookup, not lxml.html's Python one: trafilatura, its readability and jusText make
    an element proxy about 6,000 times a page (a Python call each, 8 % of trafilatura's
    CPU on the dev pages it reads). The classes are the same but for form controls
    (`<form>`, `<input>`, `<select>`, `<textarea>`, `<label>`), plain `HtmlElement`s here,
    whose form methods trafilatura never calls: its text is the same on every dev page
    (bench/README.md, "the worker's parse with identical output")."""
    from lxml import etree, html  # type: ignore[import-untyped]

    parser.set_element_class_lookup(
        etree.ElementDefaultClassLookup(
            element=html.HtmlElement,
            comment=html.HtmlComment,
            pi=html.HtmlProcessingInstruction,
            entity=html.HtmlEntity,
        )
    )


def trafilatura_available() -> bool:
    """Whether the extra is installed (asked without importing it)."""
    return importlib.util.find_spec("trafilatura") is not None


def trafilatura_text(page: BoundedMarkup, *, url: str | None = None, fast: bool = False) -> str:
    """trafilatura's main text, one paragraph per blank-line-separated block, of markup
    within the parse bounds (extract/html_bounds.py: lxml parses it, not Lexbor).

    trafilatura raises or returns None on markup lxml cannot build (for example very deep
    nesting); that is an empty text here, never an error. Without the extra it is empty.
    """
    trafilatura = _trafilatura()
    if trafilatura is None:
        return ""
    try:
        out = trafilatura.extract(
            page.markup,
            url=url,
            fast=fast,
            include_comments=False,
            include_tables=True,
            deduplicate=False,
        )
    except (ValueError, TypeError, RecursionError, MemoryError):
        return ""
    if not out:
        return ""
    return "\n\n".join(line.strip() for line in out.splitlines() if line.strip())
