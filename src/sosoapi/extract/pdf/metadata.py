"""A PDF's declared metadata: XMP first (PDF 2.0 makes it the authority), the Info
dictionary for what XMP lacks, and the catalog's /Lang as written."""

from __future__ import annotations

import mmap
import re
from pathlib import Path

from lxml import etree

from sosoapi.extract.pdf.document import PdfMetadata

_XMP_START = b"<x:xmpmeta"
_XMP_END = b"</x:xmpmeta>"
# An XMP packet larger than this is not metadata a reader needs (and not parsed).
_XMP_MAX = 1 << 20
_NS = {
    "dc": "http://purl.org/dc/elements/1.1/",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "xmp": "http://ns.adobe.com/xap/1.0/",
    "pdf": "http://ns.adobe.com/pdf/1.3/",
}
_PDF_DATE = re.compile(
    r"^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([Zz+-])(\d{2})?'?(\d{2})?'?)?"
)
_AUTHORS_SPLIT = re.compile(r"\s*;\s*|\s+and\s+|\s*&\s*")


def metadata(path: Path, info: dict[str, str], language: str | None) -> PdfMetadata:
    xmp = _xmp(path)
    title = xmp.get("title") or _clean(info.get("Title"))
    authors = xmp.get("authors") or _clean(info.get("Author"))
    date = xmp.get("date") or iso_date(info.get("CreationDate") or "")
    subject = xmp.get("subject") or _clean(info.get("Subject"))
    names = tuple(n for n in _AUTHORS_SPLIT.split(authors) if n) if authors else ()
    return PdfMetadata(title or None, names, date or None, subject or None, language or None)


def _clean(value: str | None) -> str:
    return " ".join((value or "").split())


def iso_date(value: str) -> str | None:
    """A PDF date (`D:YYYYMMDDHHmmSSOHH'mm'`) as ISO 8601, as much of it as is given."""
    found = _PDF_DATE.match(value.strip())
    if not found:
        return None
    year, month, day, hour, minute, second, sign, off_h, off_m = found.groups()
    if not month:
        return year
    if not day:
        return f"{year}-{month}"
    text = f"{year}-{month}-{day}"
    if hour:
        text += f"T{hour}:{minute or '00'}:{second or '00'}"
        if sign in ("Z", "z"):
            text += "Z"
        elif sign:
            text += f"{sign}{off_h or '00'}:{off_m or '00'}"
    return text


def _xmp(path: Path) -> dict[str, str]:
    """The last uncompressed XMP packet's title, creators, date and description.

    The file is mapped, not read: only the packet itself is copied. A compressed metadata
    stream is not inflated here (the Info dictionary stands in).
    """
    with path.open("rb") as file:
        try:
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file
            return {}
        with mapped:
            start = mapped.rfind(_XMP_START)
            end = mapped.find(_XMP_END, start) if start >= 0 else -1
            if start < 0 or end < 0 or end - start > _XMP_MAX:
                return {}
            packet = mapped[start : end + len(_XMP_END)]
    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=True)
    try:
        root = etree.fromstring(packet, parser)
    except etree.XMLSyntaxError:
        return {}
    if root is None:
        return {}
    found = {
        "title": _first(root, "dc:title"),
        "authors": "; ".join(_all(root, "dc:creator")),
        "subject": _first(root, "dc:description"),
        "date": _first(root, "xmp:CreateDate") or _first(root, "dc:date"),
    }
    return {key: value for key, value in found.items() if value}


def _all(root: etree._Element, name: str) -> list[str]:
    values: list[str] = []
    for element in root.iterfind(f".//{name}", _NS):
        items = element.findall(".//rdf:li", _NS)
        texts = [item.text for item in items] if items else [element.text]
        values.extend(_clean(text) for text in texts if text and text.strip())
    return values


def _first(root: etree._Element, name: str) -> str:
    values = _all(root, name)
    return values[0] if values else ""
