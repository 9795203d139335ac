"""From response bytes to a caption file, and from cues to contract segments.

Parsing and mapping are separate on purpose: the parsers keep every cue their format's
rules keep (WebVTT keeps cues that end before they start), and `cues_to_document`
alone decides what the contract can hold and records why the rest was dropped.
"""

from __future__ import annotations

import codecs
from typing import Literal

from sosoapi.contract.vocabulary import Reason
from sosoapi.extract.charset import decode_bytes
from sosoapi.extract.limits import (
    CUES_WHOLE_MAX,
    SEGMENT_TEXT_MAX,
    SEGMENTS_MAX,
    TEXT_MAX,
    WHOLE_TEXT_DEFAULT,
    cut_at_paragraph_end,
)
from sosoapi.extract.rolling_captions import fold_rolling
from sosoapi.extract.subrip import looks_like_subrip, parse_subrip
from sosoapi.extract.types import CaptionDocument, CaptionFile, Segment
from sosoapi.extract.webvtt import parse_webvtt

MAX_MS = 2**53 - 1
_WEBVTT_TYPES = frozenset({"text/vtt"})
_SUBRIP_TYPES = frozenset({"application/x-subrip", "application/srt", "text/srt"})
_DETECT_SPAN = 400_000  # bytes of a caption body the charset detector may look at


def sniff_caption_format(text: str) -> Literal["webvtt", "subrip"] | None:
    """Which caption format the text itself is, judged from its first lines only."""
    head = text[1:] if text.startswith("\ufeff") else text
    if head.startswith("WEBVTT") and (len(head) == 6 or head[6] in " \t\r\n"):
        return "webvtt"
    if looks_like_subrip(head):
        return "subrip"
    return None


def parse_caption_bytes(
    body: bytes, *, media_type: str | None, charset: str | None
) -> CaptionFile | None:
    """Decode and parse a caption response; None when it is not a caption file at all.

    The content wins over the label: a SubRip file served as `text/vtt` (a common
    server misconfiguration) is read as SubRip, but a body starting `WEBVTT` is always a
    WebVTT attempt judged by its signature (`WEBVTTX` is invalid, not SubRip). A body
    that sniffs as neither format is still parsed by its declared caption type, which
    reports it invalid.
    """
    if body.removeprefix(codecs.BOM_UTF8).startswith(b"WEBVTT"):
        return parse_webvtt(_webvtt_text(body, charset))
    text = decode_bytes(body, charset, sample=_cue_lines)
    if text is None:
        return None
    sniffed = sniff_caption_format(text)
    if sniffed == "webvtt" or (sniffed is None and media_type in _WEBVTT_TYPES):
        return parse_webvtt(_webvtt_text(body, charset))
    if sniffed == "subrip" or media_type in _SUBRIP_TYPES:
        return parse_subrip(text)
    return None


def _webvtt_text(body: bytes, charset: str | None) -> str:
    """WebVTT is UTF-8 whatever the label says (W3C file parsing), so a UTF-8 file served
    as `charset=iso-8859-1` reads right; only a body that is not UTF-8 at all falls back
    to the charset rules, where a browser would show U+FFFD. The BOM stays in the text:
    the parser removes exactly one, as the decoder would, so a second BOM stays invalid.
    """
    if not body.startswith(codecs.BOM_UTF8):
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            legacy = decode_bytes(body, charset, sample=_cue_lines)
            if legacy is not None:
                return legacy
    return body.decode("utf-8", errors="replace")


def _cue_lines(body: bytes) -> bytes:
    """The lines that carry words, for the charset detector: caption files declare no
    charset, and a few cues of Shift-JIS or cp1251 drown among the ASCII scaffolding
    (a three-cue cp1251 file then reads as mac-cyrillic). Scaffolding is blank lines, cue
    numbers, timing lines and the WebVTT signature."""
    lines = body[:_DETECT_SPAN].replace(b"\r", b"\n").split(b"\n")
    return b"\n".join(
        line
        for line in lines
        if line.strip()
        and not line.strip().isdigit()
        and b"-->" not in line
        and not line.startswith(b"WEBVTT")
    )


def cues_to_document(file: CaptionFile, whole_max: int = WHOLE_TEXT_DEFAULT) -> CaptionDocument:
    """Map parsed cues to contract segments, recording each reason code once; rolling
    (automatic) captions first fold to each spoken line once.

    The receipt keeps the contract's first `SEGMENTS_MAX` cues and `TEXT_MAX` of text
    (`cues_limited`, `text_limited`); the evidence keeps every cue up to `CUES_WHOLE_MAX`
    whose text fits in `whole_max` code points (`whole_segments`, `whole_text`).
    """
    conditions: list[Reason] = []
    segments: list[Segment] = []
    whole_max = max(whole_max, TEXT_MAX)
    length = -1
    for cue in fold_rolling(file.cues) or file.cues:
        text = cue.text.strip()
        if not (cue.start_ms < cue.end_ms <= MAX_MS and cue.start_ms >= 0 and text):
            _note(conditions, Reason.INVALID_CUES)
            continue
        if len(segments) == SEGMENTS_MAX:
            _note(conditions, Reason.CUES_LIMITED)
        if len(text) > SEGMENT_TEXT_MAX:
            text, _ = cut_at_paragraph_end(text, SEGMENT_TEXT_MAX)
            _note(conditions, Reason.TEXT_LIMITED)
        if len(segments) == CUES_WHOLE_MAX or length + 1 + len(text) > whole_max:
            _note(conditions, Reason.CUES_LIMITED)
            break
        length += 1 + len(text)
        segments.append(Segment(start_ms=cue.start_ms, end_ms=cue.end_ms, text=text))
    whole_text = "\n".join(s.text for s in segments)
    kept = segments[:SEGMENTS_MAX]
    joined, cut = cut_at_paragraph_end("\n".join(s.text for s in kept), TEXT_MAX)
    if cut:
        _note(conditions, Reason.TEXT_LIMITED)
    whole = len(kept) < len(segments) or joined != whole_text
    return CaptionDocument(
        format=file.format,
        segments=tuple(kept),
        text=joined,
        language=file.language,
        conditions=tuple(conditions),
        whole_segments=tuple(segments) if whole else None,
        whole_text=whole_text if whole else None,
    )


def _note(conditions: list[Reason], code: Reason) -> None:
    if code not in conditions:
        conditions.append(code)
