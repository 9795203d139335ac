"""The documents that extraction hands to the research layer.

`conditions` carries the contract reason codes an extractor observed (for example
`text_limited` or `nodes_limited`); the research layer alone turns them into a status.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from sosoapi.contract.vocabulary import Reason

CaptionFormat = Literal["webvtt", "subrip"]


@dataclass(frozen=True, slots=True)
class TextDocument:
    """Main text and metadata of one HTML, XHTML or plain-text response.

    `judgement` says what `extract/walls/` found the page to be ("page" for the source's
    own content; "challenge:cloudflare", "consent", "soft_404", "embedded:json_ld", ...).
    `text` is the receipt's (cut to the contract's bound); `whole` is the text the evidence
    revision keeps (cut only at the whole-text bound), None when it is `text` itself.
    `citation` holds the fields the page declares (`extract.citation.read_citation`), read
    only when asked for and never for a wall.
    """

    text: str
    title: str | None
    description: str | None
    language: str | None
    conditions: tuple[Reason, ...] = ()
    judgement: str = "page"
    whole: str | None = None
    citation: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Cue:
    """One parsed cue, times in integer milliseconds from the file's integer fields.

    The parser keeps every cue the format's algorithm keeps, including cues whose end
    precedes their start; mapping cues to contract segments is a separate step.
    """

    identifier: str
    start_ms: int
    end_ms: int
    text: str


@dataclass(frozen=True, slots=True)
class CaptionFile:
    """A parsed caption file; `valid` is False when its signature or structure is not one."""

    format: CaptionFormat
    valid: bool
    cues: tuple[Cue, ...] = ()
    language: str | None = None


@dataclass(frozen=True, slots=True)
class Segment:
    start_ms: int
    end_ms: int
    text: str


@dataclass(frozen=True, slots=True)
class CaptionDocument:
    """Contract-ready segments of a caption file plus the conditions met on the way;
    `whole_segments` and `whole_text` are what the evidence revision keeps (every cue up
    to `CUES_WHOLE_MAX`), None when they are `segments` and `text` themselves."""

    format: CaptionFormat
    segments: tuple[Segment, ...]
    text: str
    language: str | None
    conditions: tuple[Reason, ...] = ()
    whole_segments: tuple[Segment, ...] | None = None
    whole_text: str | None = None


@dataclass(frozen=True, slots=True)
class Track:
    """A `<track>` element of kind captions/subtitles, `src` resolved against the base URL."""

    src: str
    kind: str
    srclang: str | None
    label: str | None
    default: bool


@dataclass(frozen=True, slots=True)
class PageTracks:
    """What a page offers for captions: its tracks and its own title and description."""

    tracks: tuple[Track, ...]
    title: str | None
    description: str | None
    language: str | None
    extra: dict[str, str] = field(default_factory=dict)


# The reasons a wall judgement (extract/walls) gives when the page is not the source's
# content at all: the reader keeps neither its text nor its URL as the source's. Here, not
# in extract/walls, so that a server names them without importing the parsers.
WALL_REASONS = frozenset(
    {Reason.ACCESS_DENIED, Reason.LOGIN_REQUIRED, Reason.NOT_FOUND, Reason.UNAVAILABLE}
)
