"""SubRip read leniently, the way files found online are actually written.

SubRip has no specification, so the parser accepts what real files contain: missing or
non-numeric indexes, `,` or `.` before the milliseconds, no milliseconds at all, spaces
around the arrow, blank lines inside a cue, CR/CRLF line ends, a BOM, HTML-ish styling
tags and `{\\an8}`-style override blocks. Cue text is shown as players show it: HTML-like
tags (`<i>`, `<font>`, `<span style=...>`) removed, `<br>` a line break, character
references (`&amp;`, `&#39;`, `&nbsp;`) decoded. A cue is a timing line plus the text up to the
next cue; a cue's identifier is the line just before its timing line when that line is
all digits or starts a block (follows a blank line or the start of the file).
"""

from __future__ import annotations

import html
import re

from sosoapi.extract.types import CaptionFile, Cue

# Hours are optional; one or two digits for minutes and seconds; any fraction digits
# (only the first three count); `->` and `-->` both occur in the wild.
_TIME = r"(?:([0-9]+):)?([0-9]{1,2}):([0-9]{1,2})(?:[,.]([0-9]+))?"
_TIMING = re.compile(rf"[ \t]*{_TIME}[ \t]*--?>[ \t]*{_TIME}(?![0-9])")
# A tag: `<`, an optional `/`, a letter-led name, attributes, an optional `/`, `>` (so
# `1 < 2` and `<3` stay text).
_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9:-]*(?:\s[^<>]*)?/?>")
_LINE_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_OVERRIDE = re.compile(r"\{\\[^{}]*\}")
_MAX_HOUR_DIGITS = 30


def parse_subrip(text: str) -> CaptionFile:
    """Parse decoded SubRip text; `valid` is False when no timing line is found at all."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    timing_at = [i for i, line in enumerate(lines) if "-" in line and _TIMING.match(line)]
    if not timing_at:
        return CaptionFile(format="subrip", valid=False)
    cues = []
    for number, at in enumerate(timing_at):
        if number + 1 < len(timing_at):
            following = timing_at[number + 1]
            text_end = following - 1 if _has_identifier(lines, following) else following
        else:
            text_end = len(lines)
        start, end = _timing_ms(lines[at])
        identifier = lines[at - 1].strip() if _has_identifier(lines, at) else ""
        cues.append(Cue(identifier, start, end, _cue_text(lines[at + 1 : text_end])))
    return CaptionFile(format="subrip", valid=True, cues=tuple(cues))


def looks_like_subrip(text: str) -> bool:
    """A SubRip file starts with a timing line, or one identifier line and a timing line."""
    head = [line for line in text[:4096].replace("\r", "\n").split("\n")[:40] if line.strip()]
    return any(_TIMING.match(line) for line in head[:2])


def _has_identifier(lines: list[str], timing_at: int) -> bool:
    if timing_at == 0:
        return False
    before = lines[timing_at - 1].strip()
    if not before or _TIMING.match(before):
        return False
    if before.isascii() and before.isdigit():
        return True
    return timing_at == 1 or not lines[timing_at - 2].strip()


def _timing_ms(line: str) -> tuple[int, int]:
    match = _TIMING.match(line)
    assert match is not None  # only called on lines already matched
    g = match.groups()
    return _to_ms(g[0], g[1], g[2], g[3]), _to_ms(g[4], g[5], g[6], g[7])


def _to_ms(hours: str | None, minutes: str, seconds: str, fraction: str | None) -> int:
    """Fraction digits are decimal: `,5` is 500 ms, `,0501` is 50 ms."""
    digits = (hours or "0").lstrip("0")
    hour = int(digits or "0") if len(digits) <= _MAX_HOUR_DIGITS else 10**_MAX_HOUR_DIGITS
    millis = int((fraction or "0")[:3].ljust(3, "0"))
    return ((hour * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + millis


def _cue_text(lines: list[str]) -> str:
    """Non-blank lines of the cue as players show them: tags and override blocks removed,
    `<br>` a line break, character references decoded (after the tags went, so `&lt;i&gt;`
    stays text)."""
    kept: list[str] = []
    for line in lines:
        if "<" in line:
            if "<br" in line or "<BR" in line or "<Br" in line:
                line = _LINE_BREAK.sub("\n", line)
            line = _TAG.sub("", line)
        if "{" in line:
            line = _OVERRIDE.sub("", line)
        if "&" in line:
            line = html.unescape(line)
        if "\n" in line:
            kept.extend(part.strip() for part in line.split("\n") if part.strip())
        elif line := line.strip():
            kept.append(line)
    return "\n".join(kept)
