"""Main text, title, description and declared language of an HTML, XHTML or text response."""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from selectolax.lexbor import LexborHTMLParser

from sosoapi.contract.vocabulary import Reason
from sosoapi.extract.charset import decode_bytes
from sosoapi.extract.citation import read_citation
from sosoapi.extract.furniture_lines import drop_furniture_lines
from sosoapi.extract.html_bounds import BoundedMarkup, bound_markup
from sosoapi.extract.html_main import extract_main
from sosoapi.extract.html_meta import meta_contents, read_metadata
from sosoapi.extract.html_repair import close_runaway_title
from sosoapi.extract.html_trafilatura import trafilatura_text
from sosoapi.extract.language import normalize_language
from sosoapi.extract.limits import WHOLE_TEXT_DEFAULT, cut_twice
from sosoapi.extract.media import HTML_TYPES
from sosoapi.extract.text_plain import normalize_plain_text
from sosoapi.extract.types import TextDocument
from sosoapi.extract.walls import WALL_REASONS, Page, judge

_MARKUP_START = re.compile(
    r"\A\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*"
    r"<(?:!doctype\s+html|html|head|body|title|meta|link|script|style|div|p|table|h[1-6]|a|br|!--)"
    r"[\s/>]",
    re.IGNORECASE | re.DOTALL,
)
_SNIFF_BYTES = 1024
# "lexbor" is our own extractor alone; "hybrid" is ours, with trafilatura run only on pages
# where ours is unsure of its container (about a tenth of extraction-dev); "trafilatura"
# runs trafilatura on every page. "hybrid" meets both targets of issue 4 (F1 at least
# trafilatura's, CPU at most half): bench/README.md has the measured figures.
MainTextExtractor = Literal["hybrid", "lexbor", "trafilatura"]
DEFAULT_EXTRACTOR: MainTextExtractor = "hybrid"
# The hybrid's fallback runs on pages of at most this many `<` (tags, closing tags and
# comments): trafilatura costs about four times our CPU per node, 2.1 s on a page at the
# node bound (bench/hostile.py), and the largest dev page has 19,629.
_FALLBACK_MAX_TAGS = 60_000


@dataclass(frozen=True, slots=True)
class Decoded:
    """A body decoded once, and whether it is read as HTML (declared, or sniffed)."""

    text: str
    is_html: bool


def decode_body(body: bytes, media_type: str | None, charset: str | None) -> Decoded | None:
    """The body as text (None when it does not decode). `media_type` None means sniff:
    markup is read as HTML, anything else as plain text."""
    is_html = media_type in HTML_TYPES if media_type is not None else _looks_like_markup(body)
    text = decode_bytes(body, charset, html=is_html)
    return None if text is None else Decoded(text, is_html)


def extract_text_document(
    body: bytes, *, media_type: str | None, charset: str | None, **options: Any
) -> TextDocument | None:
    """Extract a TextDocument, or None when the bytes do not decode as text: `decode_body`,
    then `document_of` with its keyword `options`."""
    decoded = decode_body(body, media_type, charset)
    return None if decoded is None else document_of(decoded, **options)


def document_of(
    decoded: Decoded,
    *,
    content_language: str | None,
    url: str | None = None,
    extractor: MainTextExtractor = DEFAULT_EXTRACTOR,
    status: int | None = 200,
    headers: Mapping[str, str] | None = None,
    redirected_to: str | None = None,
    asked: str | None = None,
    walls: bool = True,
    whole_max: int = WHOLE_TEXT_DEFAULT,
    cite: bool = False,
) -> TextDocument:
    """The TextDocument of a decoded body.

    `extractor` picks the main-text algorithm; metadata, bounds and limits are shared.
    An HTML page is judged once (`walls.judge`, with the response's `status` and
    `headers`, `redirected_to`, where a redirect landed, and `asked`, the URL asked for)
    for what it is not: a challenge, a consent wall, a sign-in page, a soft 404, an item
    sent to its site's home page, a script shell or chrome;
    `walls=False` skips that (only the bench's before/after count does).
    The text is cut twice: to the contract's bound for the receipt, and to `whole_max`
    for the evidence revision (`TextDocument.whole`). `cite` reads the citation fields
    from the same tree, before the extractor edits it (`TextDocument.citation`).
    """
    if not decoded.is_html:
        return _plain_document(decoded.text, content_language, whole_max)
    page = Page(
        source=bound_markup(close_runaway_title(decoded.text)),
        status=status,
        headers=headers or {},
        redirected_to=redirected_to,
        url=url,
        asked=asked,
    )
    return _html_document(
        page,
        content_language=content_language,
        url=url,
        extractor=extractor,
        walls=walls,
        whole_max=whole_max,
        cite=cite,
    )


def _plain_document(text: str, content_language: str | None, whole_max: int) -> TextDocument:
    cut, whole, limited = cut_twice(normalize_plain_text(text), whole_max)
    return TextDocument(
        text=cut,
        title=None,
        description=None,
        language=normalize_language(content_language),
        conditions=(Reason.TEXT_LIMITED,) if limited else (),
        whole=whole,
    )


def _html_document(
    page: Page,
    *,
    content_language: str | None,
    url: str | None,
    extractor: MainTextExtractor,
    walls: bool,
    whole_max: int,
    cite: bool,
) -> TextDocument:
    bounded = page.source
    tree = bounded.parse()
    contents = meta_contents(tree)
    meta = read_metadata(tree, contents, content_language=content_language, url=url)
    citation = read_citation(tree, url, contents) if cite else {}  # before main_text edits it

    def main_text() -> str:
        return _main_text(tree, bounded, url, extractor)

    if walls:
        verdict = judge(replace(page, title=meta.title), main_text)
        found, judged, judgement = verdict.text, verdict.conditions, verdict.kind
    else:
        found, judged, judgement = main_text(), (), "page"
    text, whole, limited = cut_twice(found, whole_max)
    conditions = judged + tuple(
        name
        for name, hit in (
            (Reason.TEXT_LIMITED, limited),
            (Reason.NODES_LIMITED, bounded.nodes_limited),
        )
        if hit
    )
    return TextDocument(
        text=text,
        title=meta.title,
        description=meta.description,
        language=meta.language,
        conditions=conditions,
        judgement=judgement,
        whole=whole,
        citation={} if any(r in WALL_REASONS for r in judged) else citation,
    )


def _main_text(
    tree: LexborHTMLParser, page: BoundedMarkup, url: str | None, extractor: MainTextExtractor
) -> str:
    """The main text by the chosen algorithm (runs after metadata: ours edits the tree)."""
    if extractor == "trafilatura":
        return trafilatura_text(page, url=url)
    ours = extract_main(tree)
    if extractor == "lexbor" or ours.confident or page.markup.count("<") > _FALLBACK_MAX_TAGS:
        return drop_furniture_lines(ours.text)
    return drop_furniture_lines(trafilatura_text(page, url=url) or ours.text)


def _looks_like_markup(body: bytes) -> bool:
    """WHATWG-style sniff: the first bytes open with a tag, comment or doctype."""
    head = body[: _SNIFF_BYTES * 4]
    for bom, name in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if head.startswith(bom):
            sample = head[len(bom) :].decode(name, errors="ignore")
            break
    else:
        sample = head.decode("latin-1")
    return _MARKUP_START.match(sample[:_SNIFF_BYTES]) is not None
