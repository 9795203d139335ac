"""Reading one PDF: through the egress gate into a private file, then parsed in the pool.

The body is never held in memory: the gate writes it, as it arrives and under the
document byte bound, to a file only this user can read (0600 in a 0700 directory),
hashing it on the way; the file is deleted once read. PDFium reads it in the bounded parse
pool (research/offload.py), one document per worker process at a time (pypdfium2 is not
thread-safe: with threads instead of processes, one lock lets one parse run at once).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import BinaryIO

import anyio

from sosoapi.clock import utcnow
from sosoapi.contract.documents import PDF_MIME, PDF_TYPES
from sosoapi.contract.vocabulary import Reason
from sosoapi.egress.types import Spool
from sosoapi.extract.limits import WHOLE_TEXT_DEFAULT
from sosoapi.progress import report
from sosoapi.research.documents.result import DocumentDraft, fill_from_pdf
from sosoapi.research.evidence.passages import CutPassages, cut_passages
from sosoapi.research.offload import Offload, ParseOverBound
from sosoapi.research.retrieval.captures import Captured, spooled_captures
from sosoapi.research.retrieval.reading import Fetch, fetch_failed, fetch_judged
from sosoapi.store.records import CaptureWrite

# A PDF is often served as bytes of no declared type: then its header says what it is.
PDF_ACCEPT = (PDF_MIME, "application/octet-stream", "application/x-pdf")
_MAGIC = b"%PDF-"
_HEAD = 1024  # where a PDF's header may start (ISO 32000-2, 7.5.2: within the first 1 KiB)
_PDFIUM = threading.Lock()


@dataclass
class HashingFile:
    """A sink for the gate: writes to a private file, hashes, keeps the first bytes."""

    handle: BinaryIO
    sha256: hashlib._Hash = field(default_factory=hashlib.sha256)
    head: bytearray = field(default_factory=bytearray)

    def write(self, data: bytes, /) -> int:
        self.sha256.update(data)
        if len(self.head) < _HEAD:
            self.head += data[: _HEAD - len(self.head)]
        return self.handle.write(data)

    @property
    def is_pdf(self) -> bool:
        return _MAGIC in self.head


@contextmanager
def private_file() -> Iterator[tuple[Path, HashingFile]]:
    """A new file only this user can read, deleted with its directory on exit."""
    with tempfile.TemporaryDirectory(prefix="sosoapi-document-") as directory:
        path = Path(directory) / "document.pdf"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with os.fdopen(os.open(path, flags, 0o600), "wb") as handle:
            yield path, HashingFile(handle)


def parse_document(
    draft: DocumentDraft,
    path: str,
    *,
    max_pages: int,
    language: str | None,
    truncated: bool,
    whole_max: int,
) -> tuple[DocumentDraft, CutPassages | None]:
    """The parse's one trip to the pool: the PDF read, its draft filled, and the search
    passages of its whole text cut there (none when it has no text). The PDF reader is
    imported here, in the pool, not by a server (retrieval/parsing.py)."""
    from sosoapi.extract.pdf import read_pdf

    with _PDFIUM:
        document = read_pdf(Path(path), max_pages=max_pages)
    fill_from_pdf(draft, document, language=language, truncated=truncated, whole_max=whole_max)
    if not draft.text:
        return draft, None
    whole = draft.text if draft.whole_text is None else draft.whole_text
    return draft, cut_passages(whole, draft.title, draft.subject)


async def read_document(
    fetch: Fetch,
    url: str,
    language: str | None,
    *,
    max_bytes: int,
    max_pages: int,
    whole_max: int = WHOLE_TEXT_DEFAULT,
    capture_max_bytes: int = 0,
    pool: Offload,
) -> Captured:
    """Read the PDF at `url` into a document result, parsing in `pool`; every outcome typed,
    none raised. A parse over its deadline or memory cap is `unsupported_content`
    (research/offload.py).
    The exchange is kept as captures, with at most `capture_max_bytes` of the PDF."""
    draft = DocumentDraft()
    captures: tuple[CaptureWrite, ...] = ()
    try:
        with private_file() as (path, sink):
            spooled = partial(fetch, spool=Spool(sink, max_bytes))
            outcome = await fetch_judged(spooled, url, PDF_ACCEPT, pool)
            if fetch_failed(draft, outcome):
                return Captured(draft.finish(utcnow()))
            sink.handle.flush()
            draft.source_url, draft.sha256 = outcome.final_url, sink.sha256.hexdigest()
            if not sink.is_pdf:
                return Captured(_not_a_pdf(draft, outcome.headers.media_type).finish(utcnow()))
            report("parsing")
            draft, passages = await pool.run(
                parse_document, draft, str(path), max_pages=max_pages, language=language,
                truncated=outcome.truncated, whole_max=whole_max,
            )  # fmt: skip
            if capture_max_bytes and draft.text:  # only evidence keeps its captures
                head, cut = await anyio.to_thread.run_sync(_head, path, capture_max_bytes)
                captures = spooled_captures(outcome, url, head, cut)
    except ParseOverBound as over:
        bounded = DocumentDraft(retrieved_at=draft.retrieved_at, cause=over.cause)
        return Captured(bounded.add(Reason.UNSUPPORTED_CONTENT).finish(utcnow()))
    if outcome.short_body:
        draft.add(Reason.SOURCE_PARTIAL, usable=bool(draft.text))
    return Captured(draft.finish(utcnow()), captures, passages=passages)


def _head(path: Path, max_bytes: int) -> tuple[bytes, bool]:
    """The file's first `max_bytes` bytes, and whether it has more."""
    with open(path, "rb") as handle:
        head = handle.read(max_bytes + 1)
    return head[:max_bytes], len(head) > max_bytes


def _not_a_pdf(draft: DocumentDraft, media: str | None) -> DocumentDraft:
    """Bytes that are no PDF: said to be one, `unsupported_content`; of another or no
    declared type, `unsupported_media` (read them with the seed retrieve)."""
    draft.source_url = draft.sha256 = None
    declared = media in PDF_TYPES
    return draft.add(Reason.UNSUPPORTED_CONTENT if declared else Reason.UNSUPPORTED_MEDIA)
