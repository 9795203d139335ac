"""Read a PDF file into pages of text in reading order, with metadata and outcome facts.

PDFium (pypdfium2) parses the file and places every character; `layout` makes lines of
them, `order` puts the lines in reading order, `furniture` takes running headers and
footers out, `metadata` reads XMP, Info and /Lang.
The body is a file on disk (the caller streams it there): PDFium maps it, it is never
held whole in Python's memory.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

from sosoapi.contract.vocabulary import Reason
from sosoapi.extract.limits import PAGES_MAX
from sosoapi.extract.pdf.document import PdfDocument, PdfMetadata, PdfPage
from sosoapi.extract.pdf.furniture import furniture
from sosoapi.extract.pdf.layout import (
    LINE_BREAK,
    LINE_END_HYPHEN,
    PDFIUM_HYPHEN,
    Glyph,
    Line,
    lines_of,
    margin_stamps,
    page_text,
    upright,
)
from sosoapi.extract.pdf.metadata import metadata
from sosoapi.extract.pdf.order import reading_order

_LINE_BREAKS = (0x0A, 0x0D)
_LANG_MAX = 64


def read_pdf(path: Path, *, max_pages: int = PAGES_MAX) -> PdfDocument:
    """The document at `path`; never raises for a bad file (see `PdfDocument.conditions`).

    Raises ValueError for a `max_pages` below 1 (a setting's mistake, not the file's)."""
    if max_pages < 1:
        raise ValueError(f"max_pages is {max_pages}; the page bound must be 1 or more")
    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        reason = (
            Reason.LOGIN_REQUIRED
            if exc.err_code == pdfium_c.FPDF_ERR_PASSWORD
            else Reason.UNSUPPORTED_CONTENT
        )
        return PdfDocument("", (), 0, conditions=(reason,))
    try:
        return _read(document, path, max_pages)
    finally:
        document.close()


def _read(document: pdfium.PdfDocument, path: Path, max_pages: int) -> PdfDocument:
    count = len(document)
    read: list[_Page | None] = []
    for index in range(min(count, max_pages)):
        read.append(_page_lines(document, index))
    marks = iter(furniture([item.lines for item in read if item is not None]))
    pages: list[PdfPage] = []
    texts: list[str] = []
    offset = 0
    for index, item in enumerate(read):
        label = _label(document, index)
        if item is None:
            pages.append(PdfPage(index + 1, label, offset, offset, False, readable=False))
            continue
        lines = item.lines
        skip = next(marks) | margin_stamps(lines)
        body = [line for i, line in enumerate(lines) if i not in skip]
        rtl = _mostly_rtl(body)
        text = page_text(reading_order(body, rtl))
        if texts and text:
            offset += 2  # pages with text are apart by a blank line in the whole text
        if text:
            texts.append(text)
        side = tuple(lines[i].text for i in sorted(skip))
        pages.append(PdfPage(index + 1, label, offset, offset + len(text), bool(lines),
                             blank=item.blank, furniture=side))  # fmt: skip
        offset += len(text)
    return PdfDocument(
        "\n\n".join(texts),
        tuple(pages),
        count,
        _metadata(document, path),
        _conditions(pages, count, max_pages),
    )


@dataclass(frozen=True, slots=True)
class _Page:
    lines: list[Line]
    height: float
    blank: bool  # nothing at all drawn on it


def _page_lines(document: pdfium.PdfDocument, index: int) -> _Page | None:
    try:
        page = document[index]
    except pdfium.PdfiumError:
        return None
    try:
        textpage = page.get_textpage()
        try:
            glyphs, height = upright(_glyphs(textpage), *page.get_size())
            blank = pdfium_c.FPDFPage_CountObjects(page.raw) == 0
            return _Page(lines_of(glyphs), height, blank)
        finally:
            textpage.close()
    except pdfium.PdfiumError:
        return None
    finally:
        page.close()


def _glyphs(textpage: pdfium.PdfTextPage) -> list[Glyph]:
    handle = textpage.raw
    box = pdfium_c.FS_RECTF()
    glyphs: list[Glyph] = []
    for i in range(pdfium_c.FPDFText_CountChars(handle)):
        code = pdfium_c.FPDFText_GetUnicode(handle, i)
        if code in _LINE_BREAKS:
            if code == 0x0A:
                glyphs.append((LINE_BREAK, 0.0, 0.0, 0.0, 0.0))
            continue
        if code == PDFIUM_HYPHEN:
            code = ord(LINE_END_HYPHEN)
        if code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code <= 0xDFFF:
            continue  # control codes a symbol font's glyphs map to, lone surrogates
        pdfium_c.FPDFText_GetLooseCharBox(handle, i, box)
        glyphs.append((chr(code), box.left, box.bottom, box.right, box.top))
    return glyphs


def _mostly_rtl(lines: list[Line]) -> bool:
    return sum(1 for line in lines if line.rtl) * 2 > len(lines)


def _label(document: pdfium.PdfDocument, index: int) -> str | None:
    try:
        return document.get_page_label(index) or None
    except pdfium.PdfiumError:
        return None


def _metadata(document: pdfium.PdfDocument, path: Path) -> PdfMetadata:
    try:
        info = document.get_metadata_dict(skip_empty=True)
    except pdfium.PdfiumError:
        info = {}
    return metadata(path, info, _catalog_language(document))


def _catalog_language(document: pdfium.PdfDocument) -> str | None:
    """The catalog's /Lang (PDFium hands it as UTF-16LE with a terminating NUL)."""
    size = pdfium_c.FPDFCatalog_GetLanguage(document.raw, None, 0)
    if size <= 2 or size > 2 * _LANG_MAX:
        return None
    buffer = (ctypes.c_ushort * (size // 2))()
    pdfium_c.FPDFCatalog_GetLanguage(document.raw, buffer, size)
    text = bytes(buffer)[: size - 2].decode("utf-16-le", errors="replace").strip()
    return text or None


def _conditions(pages: list[PdfPage], count: int, max_pages: int) -> tuple[Reason, ...]:
    if all(not page.readable for page in pages):  # no page at all, or none parsed
        return (Reason.UNSUPPORTED_CONTENT,)
    conditions: list[Reason] = []
    if not any(page.has_text for page in pages):
        conditions.append(Reason.NO_TEXT)
    elif any(page.needs_ocr or not page.readable for page in pages):
        conditions.append(Reason.SOURCE_PARTIAL)
    if count > max_pages:
        conditions.append(Reason.RESPONSE_TOO_LARGE)
    return tuple(conditions)
