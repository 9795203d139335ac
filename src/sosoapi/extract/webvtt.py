"""WebVTT by the W3C file-parsing algorithm (https://www.w3.org/TR/webvtt1/#file-parsing).

The algorithm is followed step by step so that files the web-platform-tests suite checks
parse the way browsers parse them; only the bookkeeping is adapted: the input is split
into lines once, and a "position" is a line index (every collecting step of the
algorithm stops at a line feed, so nothing is lost). Cue settings never decide whether a
cue exists or what it says; `cue_alignment` reads `align` only so that the WPT assertions
on it can be checked.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from sosoapi.extract.language import normalize_language
from sosoapi.extract.types import CaptionFile, Cue

_SIGNATURE = "WEBVTT"
_ASCII_WS = "\t\n\f\r "
# One WebVTT timestamp: (hours-or-minutes):(two digits)[:(two digits)].(three digits).
# Digit runs are maximal because each is followed by a fixed separator or a non-digit.
_TS = r"([0-9]+):([0-9]{2})(?::([0-9]{2}))?\.([0-9]{3})(?![0-9])"
_TIMINGS = re.compile(rf"[{_ASCII_WS}]*{_TS}[{_ASCII_WS}]*-->[{_ASCII_WS}]*{_TS}(.*)", re.DOTALL)
_LANGUAGE_HEADER = re.compile(r"language\s*:\s*(\S.*)", re.IGNORECASE)
_WS_RUN = re.compile(f"[{_ASCII_WS}]+")
# Digits beyond this many (after leading zeros) cannot fit the contract's 2**53-1 ms
# anyway; saturating keeps int() away from Python's huge-integer conversion limit.
_MAX_HOUR_DIGITS = 30
_ALIGN_VALUES = frozenset({"start", "center", "end", "left", "right"})
_CUE_OBJECTS = frozenset({"c", "i", "b", "u", "ruby", "v", "lang"})


@dataclass(frozen=True, slots=True)
class RawCue:
    """A cue as the algorithm yields it: raw cue text with markup and the settings string."""

    identifier: str
    start_ms: int
    end_ms: int
    settings: str
    text: str


@dataclass(frozen=True, slots=True)
class RawWebVTT:
    """Outcome of the file-parsing algorithm before cue text is rendered."""

    valid: bool
    cues: tuple[RawCue, ...]
    header: tuple[str, ...]


def parse_webvtt(text: str) -> CaptionFile:
    """Parse decoded WebVTT text; cue text becomes plain text by the cue-text rules."""
    raw = parse_webvtt_raw(text)
    if not raw.valid:
        return CaptionFile(format="webvtt", valid=False)
    cues = tuple(
        Cue(
            identifier=c.identifier,
            start_ms=c.start_ms,
            end_ms=c.end_ms,
            text=cue_text_plain(c.text),
        )
        for c in raw.cues
    )
    return CaptionFile(
        format="webvtt", valid=True, cues=cues, language=_header_language(raw.header)
    )


def parse_webvtt_raw(text: str) -> RawWebVTT:
    """Run the W3C WebVTT parser; `valid` is False when the signature check aborts it."""
    text = _preprocess(text)
    if not _signature_ok(text):
        return RawWebVTT(valid=False, cues=(), header=())
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # a final LF: reading past it is the same as end of input
    parser = _BlockParser(lines)
    return RawWebVTT(valid=True, cues=tuple(parser.run()), header=tuple(parser.header))


def _preprocess(text: str) -> str:
    """Decoder BOM removal, then NUL -> U+FFFD, CRLF and lone CR -> LF (algorithm step 1)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\0" in text:
        text = text.replace("\0", "\ufffd")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _signature_ok(text: str) -> bool:
    """Steps 4-6: exactly "WEBVTT", or "WEBVTT" followed by space, tab or line feed."""
    if not text.startswith(_SIGNATURE):
        return False
    return len(text) == 6 or text[6] in " \t\n"


class _BlockParser:
    """Steps 7-15 of the file parser and "collect a WebVTT block", over a list of lines."""

    __slots__ = ("header", "lines", "n", "pos")

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.n = len(lines)
        self.pos = 1  # line 0 is the signature line (step 7)
        self.header: list[str] = []

    def run(self) -> list[RawCue]:
        lines, n = self.lines, self.n
        if self.pos < n and lines[self.pos] != "":
            self._collect_header()
        cues: list[RawCue] = []
        while True:
            while self.pos < n and lines[self.pos] == "":
                self.pos += 1
            if self.pos >= n:
                return cues
            cue = self._collect_block()
            if cue is not None:
                cues.append(cue)

    def _collect_header(self) -> None:
        """A block collected with "in header" set: any line with an arrow ends it unread."""
        lines, n = self.lines, self.n
        while self.pos < n:
            line = lines[self.pos]
            if "-->" in line:
                return
            self.pos += 1
            if line == "":
                return
            self.header.append(line)

    def _collect_block(self) -> RawCue | None:
        """Collect one block; return it when it is a cue.

        The algorithm also tells STYLE and REGION blocks apart at their second line, but
        that never changes the cue list: a block whose second line is not a timing line
        cannot become a cue, so style sheets, regions and NOTEs all come back as None.
        """
        lines, n = self.lines, self.n
        line_count = 0
        previous = self.pos
        buffer: list[str] = []
        seen_arrow = False
        cue: tuple[str, int, int, str] | None = None
        while True:
            if self.pos < n:
                line = lines[self.pos]
                self.pos += 1
            else:
                line = ""  # past the end of input: behaves as the blank line that ends a block
            line_count += 1
            if "-->" in line:
                if line_count == 1 or (line_count == 2 and not seen_arrow):
                    seen_arrow = True
                    previous = self.pos
                    timings = parse_timings(line)
                    if timings is None:
                        cue = None
                    else:
                        cue = ("\n".join(buffer), *timings)
                        buffer = []
                else:
                    self.pos = previous
                    break
            elif line == "":
                break
            else:
                buffer.append(line)
                previous = self.pos
        if cue is None:
            return None
        identifier, start, end, settings = cue
        return RawCue(identifier, start, end, settings, "\n".join(buffer))


def parse_timings(line: str) -> tuple[int, int, str] | None:
    """ "Collect WebVTT cue timings and settings": (start ms, end ms, settings) or None."""
    match = _TIMINGS.match(line)
    if match is None:
        return None
    g = match.groups()
    start = _timestamp_ms(g[0], g[1], g[2], g[3])
    end = _timestamp_ms(g[4], g[5], g[6], g[7])
    if start is None or end is None:
        return None
    return start, end, g[8]


def _timestamp_ms(first: str, second: str, third: str | None, fraction: str) -> int | None:
    """ "Collect a WebVTT timestamp" in integer ms; hours are optional only below 60 minutes."""
    if third is None:
        # No third field: only valid when the first was exactly two digits of minutes.
        if len(first) != 2 or int(first) > 59:
            return None
        hours, minutes, seconds = 0, int(first), int(second)
    else:
        digits = first.lstrip("0")
        hours = int(digits or "0") if len(digits) <= _MAX_HOUR_DIGITS else 10**_MAX_HOUR_DIGITS
        minutes, seconds = int(second), int(third)
    if minutes > 59 or seconds > 59:
        return None
    return ((hours * 60 + minutes) * 60 + seconds) * 1000 + int(fraction)


def cue_alignment(settings: str) -> str:
    """The cue's text alignment by "parse the WebVTT cue settings" (default `center`)."""
    align = "center"
    for setting in _WS_RUN.split(settings):
        name, colon, value = setting.partition(":")
        if colon and name == "align" and value in _ALIGN_VALUES:
            align = value
    return align


def _header_language(header: tuple[str, ...]) -> str | None:
    for line in header:
        match = _LANGUAGE_HEADER.match(line)
        if match:
            return normalize_language(match.group(1))
    return None


# --- cue text -------------------------------------------------------------------------

_TOKEN = re.compile(r"<([^>]*)>?|[^<]+")
_TAG_NAME = re.compile(r"[^\t\n\f .]*")


def cue_text_plain(raw: str) -> str:
    """Render cue text to plain text by the WebVTT cue-text parsing rules.

    Tags are dropped; a voice span's name is kept as a `Name: ` prefix so an agent can
    quote who speaks; ruby text follows its base in parentheses; character references
    are decoded in text and annotations.
    """
    if "<" not in raw:
        return html.unescape(raw) if "&" in raw else raw
    out: list[str] = []
    stack: list[tuple[str, int]] = []  # (object type, output length when it opened)
    for match in _TOKEN.finditer(raw):
        body = match.group(1)
        if body is None:
            text = match.group(0)
            out.append(html.unescape(text) if "&" in text else text)
        elif body[:1] == "/":
            _close(stack, out, body[1:])
        else:
            _open(stack, out, body)
    while stack:
        _pop(stack, out)
    return "".join(out)


def _open(stack: list[tuple[str, int]], out: list[str], body: str) -> None:
    """A start tag: only the cue-text object types open; everything else is ignored."""
    if not body or body[0] in "\t\n\f ./" or "0" <= body[0] <= "9":
        return  # empty name, class-only tag, or timestamp tag: no object, no text
    name = _TAG_NAME.match(body).group(0)  # type: ignore[union-attr]
    current = stack[-1][0] if stack else None
    if name == "rt":
        if current != "ruby":
            return
    elif name not in _CUE_OBJECTS:
        return
    if name == "v":
        speaker = _annotation(body[len(name) :])
        if speaker:
            out.append(speaker + ": ")
    stack.append((name, len(out)))


def _annotation(rest: str) -> str:
    """The annotation after the tag name and classes, trimmed and white space collapsed."""
    for index, char in enumerate(rest):
        if char in "\t\n\f ":
            value = html.unescape(rest[index + 1 :]) if "&" in rest else rest[index + 1 :]
            return _WS_RUN.sub(" ", value).strip(_ASCII_WS)
    return ""


def _close(stack: list[tuple[str, int]], out: list[str], name: str) -> None:
    if not stack:
        return
    current = stack[-1][0]
    if name == current:
        _pop(stack, out)
    elif name == "ruby" and current == "rt":
        _pop(stack, out)
        _pop(stack, out)


def _pop(stack: list[tuple[str, int]], out: list[str]) -> None:
    name, opened_at = stack.pop()
    if name == "rt" and len(out) > opened_at and "".join(out[opened_at:]):
        out.insert(opened_at, "(")
        out.append(")")
