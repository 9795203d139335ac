"""A PDF's declared metadata: XMP first (PDF 2.0 makes it the authority), the Info
dictionary for what XMP lacks, and the catalog's /Lang as written."""

from __future__ import annotations

import html
import mmap
import re
from pathlib import Path

from sosoapi.extract.pdf.document import PdfMetadata

_XMP_START = b"<x:xmpmeta"
_XMP_END = b"</x:xmpmeta>"
# An XMP packet larger than this is not metadata a reader needs (and not parsed).
_XMP_MAX = 1 << 20
# XMP is read with patterns, not an XML parser: the few properties wanted are flat, and
# a packet from an untrusted file never meets entity expansion.
_LI = re.compile(r"<rdf:li\b[^>]*>(.*?)</rdf:li>", re.S)
_TAG = re.compile(r"<[^>]+>")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
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
    """Whitespace collapsed, control characters (a NUL standing for "no value") dropped."""
    return " ".join(_CONTROL.sub("", value or "").split())


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
    text = packet.decode("utf-8", errors="replace")
    found = {
        "title": _first(text, "dc:title"),
        "authors": "; ".join(_all(text, "dc:creator")),
        "subject": _first(text, "dc:description"),
        "date": _first(text, "xmp:CreateDate") or _first(text, "dc:date"),
    }
    return {key: value for key, value in found.items() if value}


def _all(packet: str, name: str) -> list[str]:
    """Every value of the property `name`: an element's `rdf:li` items (a Seq, Bag or Alt)
    or its text, or the attribute form `name="value"`."""
    values: list[str] = []
    for body in re.findall(rf"<{name}\b[^>]*>(.*?)</{name}>", packet, re.S):
        items = _LI.findall(body) or [body]
        values.extend(_clean(html.unescape(_TAG.sub("", item))) for item in items)
    values.extend(_clean(html.unescape(v)) for v in re.findall(rf'\b{name}="([^"]*)"', packet))
    return [value for value in values if value]


def _first(packet: str, name: str) -> str:
    values = _all(packet, name)
    return values[0] if values else ""
