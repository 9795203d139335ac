"""A read PDF (or a fetch that found none) made into the document tool's contract result.

The conditions met on the way (the fetch's, the byte bound's, the reader's) are ranked by
the seed's one table (`retrieval/ranking.py`), so a PDF settles by the same rules as a
page: `login_required` is `blocked`, a document with no text layer `empty` / `no_text`,
one with some scanned pages `partial` / `source_partial`, more pages than the page bound
`partial` / `response_too_large` (docs/product.md, "Documents").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from sosoapi.contract.document_bounds import (
    AUTHOR_MAX,
    AUTHORS_MAX,
    DATE_MAX,
    LABEL_MAX,
    SUBJECT_MAX,
)
from sosoapi.contract.documents import PDF_MIME, DocumentPage, DocumentProvenance, DocumentResult
from sosoapi.contract.guidance import cause_of
from sosoapi.contract.vocabulary import Cause, Reason, Status
from sosoapi.extract.language import language_matches, normalize_language
from sosoapi.extract.limits import TITLE_MAX, WHOLE_TEXT_DEFAULT, clean_optional, cut_twice
from sosoapi.research.retrieval.finished import Finished, finished
from sosoapi.research.retrieval.ranking import Condition, decide, retry_after, status_of

if TYPE_CHECKING:  # the PDF reader loads in the parsing pool only (retrieval/parsing.py)
    from sosoapi.extract.pdf import PdfDocument, PdfPage

_USABLE = (Status.READY, Status.PARTIAL)
_SCANS = {Reason.NO_TEXT: Cause.NO_TEXT_LAYER, Reason.SOURCE_PARTIAL: Cause.PAGES_WITHOUT_TEXT}


@dataclass
class DocumentDraft:
    """A document result being assembled; `finish()` makes it a contract model (with the
    whole text and the cause beside it)."""

    retrieved_at: datetime | None = None
    source_url: str | None = None
    sha256: str | None = None
    text: str = ""
    whole_text: str | None = None  # the evidence's whole text when `text` was cut from it
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    date: str | None = None
    subject: str | None = None
    language: str | None = None
    pages: list[DocumentPage] = field(default_factory=list)
    page_count: int = 0
    conditions: list[Condition] = field(default_factory=list)
    retry_after_seconds: int | None = None
    cause: str | None = None

    def add(self, reason: Reason, *, usable: bool = False) -> DocumentDraft:
        self.conditions.append(Condition(status_of(reason, usable=usable), reason))
        return self

    def finish(self, settled_at: datetime) -> Finished[DocumentResult]:
        status, reason, warnings = decide(self.conditions)
        keep = status in (*_USABLE, Status.EMPTY)  # what the document says of itself
        described = bool(self.title or self.authors or self.subject)
        content_kind = (
            "document_text" if status in _USABLE else "metadata_only" if keep and described
            else "none"
        )  # fmt: skip
        result = DocumentResult(
            status=status,
            reason=reason,
            warnings=warnings,
            retry_after_seconds=retry_after(status, self.retry_after_seconds),
            text=self.text if status in _USABLE else "",
            title=self.title if keep else None,
            authors=self.authors if keep else [],
            date=self.date if keep else None,
            subject=self.subject if keep else None,
            pages=self.pages if keep else [],
            page_count=self.page_count if keep else 0,
            provenance=DocumentProvenance(
                source_url=self.source_url,
                retrieved_at=self.retrieved_at or settled_at,
                mime_type=PDF_MIME if self.source_url is not None or self.sha256 else None,
                content_kind=content_kind,
                language=self.language,
                language_source="publisher_declared" if self.language else "unknown",
                sha256=self.sha256,
            ),
        )
        whole = self.whole_text if status in _USABLE else None  # only evidence keeps it
        return finished(result, cause_of(reason, self.cause), whole)


def fill_from_pdf(
    draft: DocumentDraft,
    document: PdfDocument,
    *,
    language: str | None = None,
    truncated: bool = False,
    whole_max: int = WHOLE_TEXT_DEFAULT,
) -> DocumentDraft:
    """What `document` adds to the draft. `truncated`: the body was cut at the byte
    bound, so what was read is a prefix (`response_too_large`, as the seed's bodies);
    `language` is the caller's, compared with the catalog's /Lang only."""
    conditions = set(document.conditions)
    if Reason.LOGIN_REQUIRED in conditions:
        draft.cause = Cause.PDF_ENCRYPTED
        return draft.add(Reason.LOGIN_REQUIRED)
    if Reason.UNSUPPORTED_CONTENT in conditions:
        if truncated:  # a prefix PDFium could not open: the bound, not the file, is why
            return draft.add(Reason.RESPONSE_TOO_LARGE)
        draft.source_url = None
        return draft.add(Reason.UNSUPPORTED_CONTENT)
    text, whole, limited = cut_twice(document.text, whole_max)
    draft.text, draft.whole_text = text, whole
    draft.pages = [
        _page(page, len(whole if whole is not None else text)) for page in document.pages
    ]
    draft.page_count = document.page_count
    _describe(draft, document)
    for reason, cause in _SCANS.items():
        if reason in conditions:
            draft.cause = draft.cause or cause
            draft.add(reason)
    if Reason.RESPONSE_TOO_LARGE in conditions or truncated:
        draft.add(Reason.RESPONSE_TOO_LARGE, usable=bool(text))
    if limited:
        draft.add(Reason.TEXT_LIMITED)
    if language and draft.language and not language_matches(language, draft.language):
        draft.add(Reason.LANGUAGE_MISMATCH)
    return draft


def _describe(draft: DocumentDraft, document: PdfDocument) -> None:
    """The document's own metadata, cut to the contract's bounds before it is kept."""
    meta = document.metadata
    draft.title = clean_optional(meta.title, TITLE_MAX)
    authors = (clean_optional(name, AUTHOR_MAX) for name in meta.authors)
    draft.authors = [name for name in authors if name][:AUTHORS_MAX]
    draft.date = (meta.date or "")[:DATE_MAX] or None
    draft.subject = clean_optional(meta.subject, SUBJECT_MAX)
    draft.language = normalize_language(meta.language)


def _page(page: PdfPage, length: int) -> DocumentPage:
    """A page of the contract; offsets past a whole text cut at its bound end there."""
    return DocumentPage(
        number=page.number,
        label=clean_optional(page.label, LABEL_MAX),
        start=min(page.start, length),
        end=min(page.end, length),
        has_text=page.has_text,
    )


def document_result(
    document: PdfDocument,
    *,
    source_url: str | None,
    sha256: str | None,
    retrieved_at: datetime,
    settled_at: datetime,
    language: str | None = None,
    truncated: bool = False,
    whole_max: int = WHOLE_TEXT_DEFAULT,
) -> Finished[DocumentResult]:
    """The pure builder: a read PDF and where its bytes came from, as a contract result
    (with its whole text and cause beside it)."""
    draft = DocumentDraft(retrieved_at=retrieved_at, source_url=source_url, sha256=sha256)
    fill_from_pdf(draft, document, language=language, truncated=truncated, whole_max=whole_max)
    return draft.finish(settled_at)
