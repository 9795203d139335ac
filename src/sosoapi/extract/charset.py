"""Decoding response bytes: BOM, then the declared charset, then HTML meta, then detection.

Two repairs crawlers make are made here too: valid UTF-8 that declares a legacy charset
is read as UTF-8 when the declared reading is worse (a CMS template that says `gb2312`
over UTF-8 bytes), and when the detector finds nothing (a Shift-JIS file dense with
full-width punctuation scores as "messy" in every candidate), the legacy encodings of the
major scripts are tried strictly and the cleanest, most coherent reading is kept.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Callable

import charset_normalizer
from charset_normalizer.cd import coherence_ratio
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
# Tried in this order when detection gives nothing; the first of equal scores wins. One
# code page per major script: Japanese, Chinese (simplified, traditional), Korean,
# Cyrillic, Western, Central European, Greek, Turkish, Hebrew, Arabic, Baltic, Thai.
LEGACY_TRIAL = (
    "cp932", "gb18030", "big5", "euc_kr", "cp1251", "cp1252", "cp1250", "cp1253",
    "cp1254", "cp1255", "cp1256", "cp1257", "cp874", "koi8_r",
)  # fmt: skip
_TRIAL_BYTES = 64_000
_TRIAL_MAX_MESS = 0.5
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_UTF8_NAMES = frozenset({"utf-8", "utf_8"})


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
    for label in candidates:
        if label:
            return _declared_reading(body, label)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    judged = (sample(body) if sample else body)[:_DETECT_BYTES] or body[:_DETECT_BYTES]
    best = charset_normalizer.from_bytes(judged).best()
    if best is None:
        tried = strict_trial(judged)
        return body.decode(tried, errors="replace") if tried else None
    if html and _prefer_cp1252(judged, best.encoding, best.chaos):
        return body.decode("cp1252", errors="replace")
    if not html and not is_multi_byte_encoding(best.encoding):
        # A short Latin text fits several code pages: windows-1252 unless the guess reads
        # better by the trial's measure (Turkish `ı` is `ý` in windows-1252).
        latin = strict_trial(judged, ("cp1252", best.encoding)) or best.encoding
        return body.decode(latin, errors="replace")
    return body.decode(best.encoding, errors="replace")


def _declared_reading(body: bytes, name: str) -> str:
    """The body in its declared charset, unless it is valid UTF-8 with multi-byte sequences
    that the declared charset reads worse (fails on, or reads messier than UTF-8)."""
    if name not in _UTF8_NAMES and not body.isascii():
        utf8 = _utf8_or_none(body)
        if utf8 is not None:
            try:
                declared = body.decode(name)
            except UnicodeDecodeError:
                return utf8
            if _mess(utf8) < _mess(declared):
                return utf8
            return declared
    try:
        return body.decode(name)
    except UnicodeDecodeError:
        return body.decode(name, errors="replace")


def _utf8_or_none(body: bytes) -> str | None:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _mess(text: str) -> float:
    return mess_ratio(text[:_DETECT_BYTES], maximum_threshold=1.0)


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


def strict_trial(judged: bytes, names: tuple[str, ...] = LEGACY_TRIAL) -> str | None:
    """The legacy encoding (of `names`) that decodes `judged` without an error and
    reads best, or None when none decodes it strictly.

    Best is least mess in the words (letters, marks, digits: dense full-width punctuation
    is what made the detector give up, so it is not judged), then the largest share of
    characters that read as a known language (a Shift-JIS file also decodes as GB18030,
    into hanzi no language uses), then the order of `names`. A reading with control
    characters (binary data) or words messier than _TRIAL_MAX_MESS is not clean.
    """
    sample = judged[:_TRIAL_BYTES]
    best: tuple[float, float, str] | None = None
    for name in names:
        try:
            text = sample.decode(name)
        except UnicodeDecodeError:
            continue
        mess = round(_mess(_words(text)), 2)
        if mess > _TRIAL_MAX_MESS or _CONTROL.search(text):
            continue  # not a clean reading: binary, or words no script writes
        languages = coherence_ratio(text)
        key = (mess, -languages[0][1] if languages else 0.0, name)
        if best is None or key[:2] < best[:2]:
            best = key
    return best[2] if best else None


def _words(text: str) -> str:
    """Letters, marks, digits and white space: the text without its punctuation."""
    return "".join(c for c in text if c.isspace() or unicodedata.category(c)[0] in "LMN")
