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
    `has_text` is False for a page without a text layer (a scan, text drawn as paths): OCR
    would be needed. `readable` is False when the page itself could not be parsed.
    """

    number: int
    label: str | None
    start: int
    end: int
    has_text: bool
    readable: bool = True
    furniture: tuple[str, ...] = ()


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
    (not a readable PDF: nothing read), `no_text` (no page has a text layer),
    `source_partial` (some pages lack a text layer or could not be parsed),
    `response_too_large` (more pages than the bound: the first ones were read).
    """

    text: str
    pages: tuple[PdfPage, ...]
    page_count: int
    metadata: PdfMetadata = field(default_factory=PdfMetadata)
    conditions: tuple[Reason, ...] = ()

    @property
    def pages_without_text(self) -> tuple[int, ...]:
        return tuple(p.number for p in self.pages if not (p.has_text and p.readable))
