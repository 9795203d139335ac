"""What the PDF reader hands to the research layer: pages, offsets, metadata, outcome facts."""

from __future__ import annotations

from dataclasses import dataclass, field

from sosoapi.contract.vocabulary import Reason


@dataclass(frozen=True, slots=True)
class PdfPage:
    """One page: `start`/`end` are its code-point offsets in `PdfDocument.text`.

    `furniture` holds the running headers, footers and page numbers found on the page, and
    text turned across the page in a side margin (a stamp), in the page's order; they are kept
    out of the running text (and so out of the offsets).
    `has_text` is False for a page without a text layer: a scan or text drawn as paths
    (OCR would be needed) unless the page is `blank` (nothing drawn on it at all).
    `readable` is False when the page itself could not be parsed.
    """

    number: int
    label: str | None
    start: int
    end: int
    has_text: bool
    blank: bool = False
    readable: bool = True
    furniture: tuple[str, ...] = ()

    @property
    def needs_ocr(self) -> bool:
        return self.readable and not self.has_text and not self.blank


@dataclass(frozen=True, slots=True)
class PdfMetadata:
    """Publisher-declared facts, from XMP first and the Info dictionary for what XMP lacks.

    `language` is the catalog's /Lang as written, never guessed. `date` is ISO 8601.
    """

    title: str | None = None
    authors: tuple[str, ...] = ()
    date: str | None = None
    subject: str | None = None
    language: str | None = None


@dataclass(frozen=True, slots=True)
class PdfDocument:
    """A read PDF. `conditions` are the contract reasons the reader observed:

    `login_required` (a user password is needed: nothing read), `unsupported_content`
    (not a readable PDF, or no page of it could be parsed: nothing read), `no_text` (no
    page has a text layer), `source_partial` (some pages need OCR or could not be parsed),
    `response_too_large` (more pages than the bound: the first ones were read).
    """

    text: str
    pages: tuple[PdfPage, ...]
    page_count: int
    metadata: PdfMetadata = field(default_factory=PdfMetadata)
    conditions: tuple[Reason, ...] = ()

    @property
    def pages_needing_ocr(self) -> tuple[int, ...]:
        return tuple(page.number for page in self.pages if page.needs_ocr)

    @property
    def unreadable_pages(self) -> tuple[int, ...]:
        return tuple(page.number for page in self.pages if not page.readable)
