"""Reading one source: egress fetch -> extraction -> a contract result.

Every outcome is typed: nothing here raises for a network or content condition, and
nothing unbuilt is reported as success. What runs in the parsing pool is in
`parsing.py`, which imports the parsers at their first use: a server never loads them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime
from typing import TypeVar

from sosoapi.clock import utcnow
from sosoapi.contract.documents import PDF_TYPES
from sosoapi.contract.models import RetrieveResult
from sosoapi.contract.vocabulary import Cause, Reason
from sosoapi.egress.types import FetchOutcome
from sosoapi.egress.urls import is_recordable
from sosoapi.extract.language import language_matches, normalize_language
from sosoapi.extract.limits import WHOLE_TEXT_DEFAULT
from sosoapi.extract.media import CAPTION_TYPES, HTML_TYPES, TEXT_TYPES, contract_media_type
from sosoapi.extract.types import WALL_REASONS
from sosoapi.progress import report
from sosoapi.research.documents.result import DocumentDraft
from sosoapi.research.offload import Offload, ParseOverBound
from sosoapi.research.retrieval.captures import Captured, Recorder
from sosoapi.research.retrieval.draft import Draft
from sosoapi.research.retrieval.parsing import (
    read_body,
    read_caption_file,
    read_page_and_passages,
    text_document,
    tracks_of,
)

Fetch = Callable[..., Awaitable[FetchOutcome]]
T = TypeVar("T")
CAPTION_ACCEPT = tuple(sorted(CAPTION_TYPES | {"text/plain"}))
PAGE_OR_CAPTION_ACCEPT = tuple(sorted(CAPTION_TYPES | TEXT_TYPES))


async def fetch_judged(
    fetch: Fetch, url: str, accept: tuple[str, ...], pool: Offload
) -> FetchOutcome:
    """Fetch `url`; an error answer whose page is a bot-defence challenge (a 503 or 429
    Cloudflare challenge, a 405 AWS WAF CAPTCHA) is `access_denied`: retrying will not
    help. Any other error keeps the reason its status gave."""
    outcome = await fetch(url, accept=accept)
    if outcome.reason is None or not outcome.body:
        return outcome
    if outcome.reason == Reason.ACCESS_DENIED:
        return outcome
    headers = outcome.headers
    document = await pool.run(
        text_document,
        outcome.body,
        media_type=headers.media_type,
        charset=headers.charset,
        content_language=headers.content_language,
        url=outcome.final_url,
        status=outcome.status_code,
        headers=headers,
    )
    if document is None or Reason.ACCESS_DENIED not in document.conditions:
        return outcome
    return replace(outcome, reason=Reason.ACCESS_DENIED, retry_after_seconds=None)


def fetch_failed(draft: Draft | DocumentDraft, outcome: FetchOutcome) -> bool:
    """Record a fetch that produced no body; True when there is nothing more to read."""
    if outcome.retrieved_at is not None:
        draft.retrieved_at = outcome.retrieved_at
    if outcome.reason is None:
        if outcome.final_url and not is_recordable(outcome.final_url):
            draft.add(Reason.UNSUPPORTED_SOURCE)
            return True
        return False
    draft.add(outcome.reason)
    draft.cause = draft.cause or outcome.cause or _media_cause(draft, outcome)
    if outcome.reason == Reason.RATE_LIMITED:
        draft.retry_after_seconds = outcome.retry_after_seconds
    return True


def _media_cause(draft: Draft | DocumentDraft, outcome: FetchOutcome) -> Cause | None:
    """Which tool reads a response of a type this one does not: a PDF asked of the seed
    retrieve names the document tool, anything asked of the document tool the seed's."""
    if outcome.reason != Reason.UNSUPPORTED_MEDIA:
        return None
    if isinstance(draft, DocumentDraft):
        return Cause.NOT_A_PDF
    media = outcome.headers.media_type
    return Cause.PDF_DOCUMENT if media in PDF_TYPES else None


async def read_url_text(
    draft: Draft, fetch: Fetch, url: str, language: str | None, whole_max: int, pool: Offload
) -> Draft:
    outcome = await fetch_judged(fetch, url, tuple(sorted(TEXT_TYPES)), pool)
    if fetch_failed(draft, outcome):
        return draft
    report("parsing")
    read_body(draft, outcome)
    headers = outcome.headers
    answer = outcome.hops[-1].body if outcome.hops else None  # its capture's body
    page, passages, packed = await pool.run(
        read_page_and_passages,
        outcome.body,
        capture=answer,
        media_type=headers.media_type,
        charset=headers.charset,
        content_language=headers.content_language,
        url=outcome.final_url,
        status=outcome.status_code,
        headers=headers,
        redirected_to=outcome.final_url if outcome.final_url != url else None,
        asked=url,
        whole_max=whole_max,
    )
    document = page.document
    if document is None:
        draft.source_url = None
        return draft.add(Reason.UNSUPPORTED_CONTENT)
    wall = next((r for r in document.conditions if r in WALL_REASONS), None)
    if wall is not None:  # a challenge, consent or sign-in wall, a soft 404: not the source's
        draft.source_url = draft.mime_type = None
        return draft.add(wall)
    draft.text, draft.title, draft.description = document.text, document.title, document.description
    draft.language, draft.whole_text = document.language, document.whole
    draft.citation, draft.passages = page.citation, passages
    draft.packing = (answer, packed) if answer is not None and packed is not None else None
    for reason in document.conditions:
        draft.add(reason, usable=True)
    if outcome.truncated:
        draft.add(Reason.RESPONSE_TOO_LARGE, usable=bool(document.text))
    if language and document.language and not language_matches(language, document.language):
        draft.add(Reason.LANGUAGE_MISMATCH)
    _classify_text(draft)
    return draft


def _classify_text(draft: Draft) -> None:
    if draft.text:
        draft.content_kind = "document_text"
    elif draft.title or draft.description:
        draft.content_kind = "metadata_only"
        draft.add(Reason.METADATA_ONLY)
    else:
        draft.add(Reason.NO_TEXT)


async def read_captions(
    draft: Draft, fetch: Fetch, url: str, language: str | None, whole_max: int, pool: Offload
) -> Draft:
    """A caption file, read directly or through the chosen `<track>` of an HTML page."""
    outcome = await fetch_judged(fetch, url, PAGE_OR_CAPTION_ACCEPT, pool)
    if fetch_failed(draft, outcome):
        return draft
    report("parsing")
    media = outcome.headers.media_type
    declared = None
    if media in HTML_TYPES or (media is None and _looks_like_html(outcome.body)):
        page = outcome
        track_outcome, declared = await _follow_track(fetch, draft, page, language, pool)
        if track_outcome is None:
            return _no_track(draft, page)
        if fetch_failed(draft, track_outcome):
            return draft
        outcome = track_outcome
    return await pool.run(read_caption_file, draft, outcome, language, declared, whole_max)


async def _follow_track(
    fetch: Fetch, draft: Draft, page: FetchOutcome, language: str | None, pool: Offload
) -> tuple[FetchOutcome | None, str | None]:
    """Find the page's caption track for `language` and fetch it through the gate.

    Returns (None, None) when no track fits; the page's title, description and declared
    language are kept on `draft` either way.
    """
    found, track = await pool.run(
        tracks_of, page.body, page.headers.charset, page.final_url or "", language
    )
    draft.title, draft.description, draft.language = found.title, found.description, found.language
    if track is None:
        if found.tracks:
            draft.add(Reason.LANGUAGE_MISMATCH)
        return None, None
    outcome = await fetch_judged(fetch, track.src, CAPTION_ACCEPT, pool)
    return outcome, normalize_language(track.srclang)


def _no_track(draft: Draft, page: FetchOutcome) -> Draft:
    """No track (or none in the asked language): the page's metadata is all there is."""
    if page.truncated:  # the tracks may sit past the bound: absence proves nothing
        return draft.add(Reason.RESPONSE_TOO_LARGE)
    if not any(c.reason == Reason.LANGUAGE_MISMATCH for c in draft.conditions):
        draft.add(Reason.NO_CAPTIONS)
    if page.short_body:
        draft.add(Reason.SOURCE_PARTIAL)
    if not (draft.title or draft.description):
        draft.language = None
        return draft
    draft.content_kind = "metadata_only"
    draft.source_url = page.final_url
    draft.mime_type = contract_media_type(page.headers.media_type)
    return draft


def _looks_like_html(body: bytes) -> bool:
    """An untyped body that is an HTML page (then its tracks are followed)."""
    head = body[:1024].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<video", b"<track"))


async def read_draft(
    fetch: Fetch,
    kind: str,
    url: str,
    language: str | None,
    whole_max: int = WHOLE_TEXT_DEFAULT,
    *,
    pool: Offload,
) -> Draft:
    """Read one source of `kind` into a draft, parsing in `pool` (the composition root's).
    A parse over its bounds (research/offload.py) makes the read `unsupported_content`:
    the bytes cannot be read as offered, and reading them again would end the same way
    (docs/product.md)."""
    draft = Draft(kind=kind)
    reader = read_url_text if kind == "url_text" else read_captions
    try:
        return await reader(draft, fetch, url, language, whole_max, pool)
    except ParseOverBound as over:
        bounded = Draft(kind=kind, retrieved_at=draft.retrieved_at, cause=over.cause)
        return bounded.add(Reason.UNSUPPORTED_CONTENT)


async def read_source(
    fetch: Fetch,
    kind: str,
    url: str,
    language: str | None,
    settled_at: Callable[[], datetime] = utcnow,
    whole_max: int = WHOLE_TEXT_DEFAULT,
    *,
    pool: Offload,
) -> RetrieveResult:
    """Read one source into a receipt's result (`read_captured` keeps, beside it, the
    whole text up to `whole_max` code points for its evidence revision)."""
    draft = await read_draft(fetch, kind, url, language, whole_max, pool=pool)
    return draft.finish(settled_at()).result


async def read_captured(
    fetch: Fetch,
    kind: str,
    url: str,
    language: str | None,
    whole_max: int = WHOLE_TEXT_DEFAULT,
    *,
    pool: Offload,
) -> Captured:
    """`read_source`, keeping the exchanges it read as captures (uploads: the file) and
    the citation fields the page declared."""
    recorder = Recorder(fetch)
    draft = await read_draft(recorder, kind, url, language, whole_max, pool=pool)
    finished = draft.finish(utcnow())
    captures = recorder.captures(url, draft.packing)
    return Captured(finished, captures, draft.citation, draft.passages)
