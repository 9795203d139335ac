"""Decoding response bytes: BOM, then the declared charset, then HTML meta, then detection."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable

import charset_normalizer
from charset_normalizer.md import mess_ratio
from charset_normalizer.utils import is_multi_byte_encoding

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_\-:.]+)""", re.IGNORECASE
)
_DETECT_BYTES = 200_000
# cp1252 wins over a single-byte best guess whose mess ratio is at most this much lower.
_CP1252_MARGIN = 0.1
# WHATWG: these labels decode as windows-1252 in browsers.
_ALIASES = {"iso-8859-1": "cp1252", "latin1": "cp1252", "us-ascii": "cp1252", "ascii": "cp1252"}


def _codec(label: str | None) -> str | None:
    if not label:
        return None
    label = _ALIASES.get(label.strip().lower(), label.strip().lower())
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def decode_bytes(
    body: bytes,
    declared: str | None = None,
    *,
    html: bool = False,
    sample: Callable[[bytes], bytes] | None = None,
) -> str | None:
    """Decode `body` to text, or None when no charset decodes it.

    Order: byte-order mark (always wins), the header's charset, an HTML `<meta charset>`
    in the first 4 KiB (when `html`), UTF-8, then charset-normalizer's detection. The
    detector judges `sample(body)` when given (the part of a format's body that is prose:
    its ASCII scaffolding only dilutes the evidence) or else the body's start.
    """
    for bom, name in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(name, errors="replace")
    candidates = [_codec(declared)]
    if html:
        match = _META_CHARSET.search(body[:4096])
        candidates.append(_codec(match.group(1).decode("ascii", "ignore")) if match else None)
    for name in candidates:
        if name:
            try:
                return body.decode(name)
            except UnicodeDecodeError:
                return body.decode(name, errors="replace")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    judged = (sample(body) if sample else body)[:_DETECT_BYTES] or body[:_DETECT_BYTES]
    best = charset_normalizer.from_bytes(judged).best()
    if best is None:
        return None
    if _prefer_cp1252(judged, best.encoding, best.chaos):
        return body.decode("cp1252", errors="replace")
    return body.decode(best.encoding, errors="replace")


def _prefer_cp1252(body: bytes, guess: str, guess_mess: float) -> bool:
    """Browsers read undeclared pages as windows-1252: keep that reading when the detector's
    single-byte guess is no clearly better text (short Latin text fits several code pages).
    """
    if guess == "cp1252" or is_multi_byte_encoding(guess):
        return False
    try:
        text = body[:_DETECT_BYTES].decode("cp1252")
    except UnicodeDecodeError:
        return False
    return mess_ratio(text) <= guess_mess + _CP1252_MARGIN
