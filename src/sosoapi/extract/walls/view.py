"""The page as the judgements read it: what each reads computed once, when first asked.

The consent banner's and the chrome's text are read from the tree by selector, bounded
for hostile nesting (`_texts`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from functools import cached_property
from itertools import islice

from selectolax.lexbor import LexborHTMLParser

from sosoapi.extract.html_boilerplate import LANDMARK_TAGS
from sosoapi.extract.walls.signals.consent_platforms import BANNER_SELECTOR
from sosoapi.extract.walls.text import collapse, element_text
from sosoapi.extract.walls.types import Page

# The page's chrome: HTML's navigation, aside and footer landmarks (html_boilerplate),
# headers and noscript notes, by tag and by ARIA landmark role, and consent banners.
_CHROME_SELECTOR = (
    ", ".join((*LANDMARK_TAGS, "header", "noscript"))
    + ", [role=navigation], [role=banner], [role=contentinfo], "
    + BANNER_SELECTOR
)
_TITLE_ELEMENT = re.compile(r"<title\b[^<>]{0,300}>(.{0,2000}?)</title", re.I | re.S)
_H1_ELEMENT = re.compile(r"<h1\b[^<>]{0,300}>(.{0,2000}?)</h1", re.I | re.S)
_BANNER_MAX = 4_000  # characters: a banner is short; a longer match is the page itself
_BANNERS_MAX = 50_000  # characters of banner text kept for the look-up
_MATCHES_READ = 1_000  # banner or chrome matches read at most (nested ones repeat text)
_TEXT_READ_MAX = 2_000_000  # characters of match text read at most, kept or not


class PageView:
    """The page, with what the judgements read computed once and only when asked."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.markup = page.markup

    @cached_property
    def tree(self) -> LexborHTMLParser:
        """A fresh parse of the bounded page: the extractor edits its own tree as it goes."""
        return self.page.source.parse()

    @cached_property
    def _searched(self) -> bytes:
        """The markup as `has` searches it, in UTF-8 with ASCII letters lowered: an ASCII
        needle is in it exactly where it is in `markup.lower()`, at a quarter of the cost
        (str.lower maps every character of a non-ASCII page). Only two letters outside
        ASCII lower to ASCII ones (U+0130 to `i` and a dot, the Kelvin sign to `k`): a page
        holding them is lowered whole first."""
        markup = self.markup
        if "\u0130" in markup or "\u212a" in markup:
            markup = markup.lower()
        return markup.encode("utf-8", "surrogatepass").lower()

    def has(self, needles: tuple[str, ...]) -> bool:
        """Any of the (lower-case ASCII) literals in the markup: a cheap test before a regex."""
        return any(needle.encode("ascii") in self._searched for needle in needles)

    @cached_property
    def raw_title(self) -> str:
        """The first `<title>` as HTML reads it (raw text: a tag in it is text too)."""
        match = _TITLE_ELEMENT.search(self.markup)
        return collapse(html.unescape(match.group(1))) if match else ""

    @cached_property
    def heading(self) -> str:
        return element_text(self.markup, _H1_ELEMENT)

    @cached_property
    def banner(self) -> str:
        """The text of the page's consent and cookie containers, collapsed."""
        return " ".join(_texts(self.tree, BANNER_SELECTOR, _BANNER_MAX))[:_BANNERS_MAX]

    @cached_property
    def chrome(self) -> str:
        return " ".join(_texts(self.tree, _CHROME_SELECTOR, None))[:_BANNERS_MAX]


def _texts(tree: LexborHTMLParser, selector: str, most: int | None) -> Iterator[str]:
    """Collapsed text of each match of `selector` (each under `most` characters); nested
    matches repeat their text, which is harmless where it is only looked up in.

    Bounded for hostile nesting (every level named `cookie`), where each match reads its
    whole subtree: reading stops once `_BANNERS_MAX` characters are gathered (the callers
    keep no more), after `_MATCHES_READ` matches, or after `_TEXT_READ_MAX` characters read
    in all. On the 1,335 dev pages the most needed were 440 matches and 615,392 characters
    (bench/README.md, "Hostile pages"), so no real page reaches either bound."""
    gathered = read = 0
    for node in islice(tree.css(selector), _MATCHES_READ):
        if gathered >= _BANNERS_MAX or read >= _TEXT_READ_MAX:
            return
        text = collapse(node.text(deep=True, separator=" "))
        read += len(text)
        if text and (most is None or len(text) <= most):
            gathered += len(text) + 1
            yield text
