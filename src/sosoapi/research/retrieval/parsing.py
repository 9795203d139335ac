"""What a read runs in the parsing pool (research/offload.py): the page, caption and track
parses, each one trip with plain data in and out.

Each function imports its parser when it is first called: a server, whose parses run in
the pool's workers, never loads the extractors (tests/cli/test_startup.py), and the
forkserver preloads them for the workers, so a worker does not import them either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sosoapi.contract.models import Segment
from sosoapi.contract.vocabulary import Reason
from sosoapi.egress.types import FetchOutcome
from sosoapi.extract.language import language_matches, normalize_language
from sosoapi.extract.limits import WHOLE_TEXT_DEFAULT
from sosoapi.extract.media import CAPTION_TYPES, contract_media_type
from sosoapi.extract.types import WALL_REASONS, CaptionFile, PageTracks, TextDocument, Track
from sosoapi.research.evidence.passages import CutPassages, cut_passages
from sosoapi.research.retrieval.draft import Draft
from sosoapi.store.records import PackedBody

if TYPE_CHECKING:
    from sosoapi.extract.page import PageRead


def text_document(body: bytes, **options: Any) -> TextDocument | None:
    """`extract_text_document`, for `fetch_judged`'s error pages."""
    from sosoapi.extract.html import extract_text_document

    return extract_text_document(body, **options)


def read_body(draft: Draft, outcome: FetchOutcome) -> None:
    """Provenance of a body that was read, and the conditions of how it was read."""
    draft.source_url = outcome.final_url
    draft.mime_type = contract_media_type(outcome.headers.media_type)
    if outcome.short_body:
        draft.add(Reason.SOURCE_PARTIAL)


def read_page_and_passages(
    body: bytes, *, capture: bytes | None = None, **options: Any
) -> tuple[PageRead, CutPassages | None, PackedBody | None]:
    """A page read's one trip to the pool: `read_page` with its keyword `options`, then the
    search passages of the page's text, so the settle cuts none on the event loop (none
    for a wall or an undecodable body: neither becomes evidence), and the stored form of
    `capture`, the answer's body as received (`body` before content decoding), so the
    server does not pack it (none when nothing is read: it will not be kept)."""
    from sosoapi.extract import page as extract_page

    page = extract_page.read_page(body, **options)
    document = page.document
    if document is None or any(r in WALL_REASONS for r in document.conditions):
        return page, None, None
    whole = document.text if document.whole is None else document.whole
    packed = PackedBody.of(capture) if capture is not None else None
    return page, cut_passages(whole, document.title, document.description), packed


def read_caption_file(
    draft: Draft,
    outcome: FetchOutcome,
    language: str | None,
    declared: str | None,
    whole_max: int = WHOLE_TEXT_DEFAULT,
) -> Draft:
    """Parse a fetched caption body; `declared` is the track's `srclang`, if any."""
    from sosoapi.extract import captions as caption_extract

    read_body(draft, outcome)
    media, charset = outcome.headers.media_type, outcome.headers.charset
    parsed = caption_extract.parse_caption_bytes(outcome.body, media_type=media, charset=charset)
    if parsed is None and media not in CAPTION_TYPES:
        draft.source_url = None  # not a caption file at all: nothing usable came from it
        return draft.add(Reason.UNSUPPORTED_CONTENT)
    if parsed is None or not parsed.valid:
        return draft.add(Reason.INVALID_CAPTIONS)
    draft.caption_format = parsed.format
    draft.content_kind = "published_caption_file"
    draft.language = (
        declared or parsed.language or normalize_language(outcome.headers.content_language)
    )
    if language and draft.language and not language_matches(language, draft.language):
        draft.add(Reason.LANGUAGE_MISMATCH)
    _fill_segments(draft, parsed, whole_max)
    if outcome.truncated:
        draft.add(Reason.RESPONSE_TOO_LARGE, usable=bool(draft.segments))
    return draft


def _fill_segments(draft: Draft, parsed: CaptionFile, whole_max: int) -> None:
    """Segments and text from the parsed cues, with the conditions of the mapping."""
    from sosoapi.extract import captions as caption_extract

    if not parsed.cues:
        draft.add(Reason.NO_CAPTIONS)
        return
    document = caption_extract.cues_to_document(parsed, whole_max)
    draft.segments = [
        Segment(start_ms=s.start_ms, end_ms=s.end_ms, text=s.text) for s in document.segments
    ]
    draft.text = document.text
    if document.whole_segments is not None:
        draft.whole_text = document.whole_text
        draft.whole_segments = [
            Segment(start_ms=s.start_ms, end_ms=s.end_ms, text=s.text)
            for s in document.whole_segments
        ]
    for reason in document.conditions:
        draft.add(reason)
    if not draft.segments:
        draft.add(Reason.INVALID_CAPTIONS)


def tracks_of(
    body: bytes, charset: str | None, base_url: str, language: str | None
) -> tuple[PageTracks, Track | None]:
    """The page's tracks and the one for `language`."""
    from sosoapi.extract import tracks as track_extract
    from sosoapi.extract.charset import decode_bytes

    found = track_extract.find_tracks(decode_bytes(body, charset, html=True) or "", base_url)
    return found, track_extract.choose_track(found.tracks, language)
