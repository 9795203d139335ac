"""What a read keeps of the bytes it was given: the captures an archive can replay.

The reader's fetch is wrapped by a `Recorder`; every exchange that brought a body (the
page, a caption track, an uploaded file) becomes `CaptureWrite`s: each redirect hop's
response, then the answer read, with the heads exactly as sent and received and the body
before decoding. Nothing here touches the network: egress hands the hops over.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from sosoapi.egress.types import FetchOutcome, Hop
from sosoapi.research.evidence.identity import canonical_json
from sosoapi.research.evidence.passages import CutPassages
from sosoapi.research.retrieval.finished import AnyFinished
from sosoapi.store.records import CaptureWrite, PackedBody

Fetch = Callable[..., Awaitable[FetchOutcome]]
# A body and its PackedBody, made elsewhere (a page's, in its parse trip): a capture of
# that very object uses it instead of packing the bytes again.
Packing = tuple[bytes, PackedBody]
NO_CREDENTIALS = "the gate sends no cookies, authorization or other credentials"


@dataclass(frozen=True, slots=True)
class Captured:
    """A reader's result with the captures of the exchanges it read."""

    finished: AnyFinished  # the contract result, its whole text and its cause
    captures: tuple[CaptureWrite, ...] = ()
    citation: dict[str, Any] = field(default_factory=dict)  # extract.citation's fields
    passages: CutPassages | None = None  # the search passages cut in the parse's trip


@dataclass
class Recorder:
    """Wraps a fetch and keeps every outcome that brought a body."""

    fetch: Fetch
    outcomes: list[FetchOutcome] = field(default_factory=list)

    async def __call__(self, url: str, **kwargs: Any) -> FetchOutcome:
        outcome = await self.fetch(url, **kwargs)
        if outcome.reason is None:
            self.outcomes.append(outcome)
        return outcome

    def captures(self, upload_url: str, packing: Packing | None = None) -> tuple[CaptureWrite, ...]:
        return tuple(c for o in self.outcomes for c in captures_of(o, upload_url, packing=packing))


def captures_of(
    outcome: FetchOutcome,
    upload_url: str,
    *,
    decoded: bool = False,
    packing: Packing | None = None,
) -> tuple[CaptureWrite, ...]:
    """One fetch's captures: each hop's exchange, or an upload's file (no URL, no
    exchange); `decoded`: the answer's body is kept after content decoding (a spool's);
    `packing`: a hop whose body is that very object is stored as it says."""
    if outcome.hops:
        last = len(outcome.hops) - 1
        return tuple(
            _of_hop(
                hop,
                last=i == last,
                decoded=decoded and i == last,
                prepacked=packing[1] if packing and packing[0] is hop.body else None,
            )
            for i, hop in enumerate(outcome.hops)
        )
    if outcome.final_url is None and outcome.retrieved_at is not None:
        return (_of_upload(outcome, upload_url),)
    return ()


def spooled_captures(
    outcome: FetchOutcome, upload_url: str, body: bytes, cut: bool
) -> tuple[CaptureWrite, ...]:
    """The captures of a fetch whose body went to a spool (a PDF): `body` is what the
    capture keeps of the spooled file, its first bytes up to the capture bound, and `cut`
    says the file had more. The gate wrote the spool decoded, so the answer's capture says
    so (`body_decoded`) and an archive drops its `Content-Encoding` (docs/archive.md)."""
    if not outcome.hops:
        return captures_of(
            replace(outcome, body=body, truncated=outcome.truncated or cut), upload_url
        )
    answer = outcome.hops[-1]
    answer = replace(answer, body=body, body_truncated=answer.body_truncated or cut)
    return captures_of(
        replace(outcome, hops=(*outcome.hops[:-1], answer)), upload_url, decoded=True
    )


def _of_hop(
    hop: Hop, *, last: bool, decoded: bool = False, prepacked: PackedBody | None = None
) -> CaptureWrite:
    response: dict[str, Any] = {
        "http_version": hop.http_version,
        "status": hop.status,
        "reason": hop.reason_phrase,
        "headers": [list(h) for h in hop.response_headers],
        "body_truncated": hop.body_truncated,
    }
    if decoded:  # the body as written after content decoding, not as it went over the wire
        response["body_decoded"] = True
    meta = {
        "request": {
            "method": "GET",
            "url": hop.url,
            "headers": [list(h) for h in hop.request_headers],
        },
        "credentials": NO_CREDENTIALS,
        "response": response,
    }
    return CaptureWrite(
        role="response" if last else "redirect",
        url=hop.url,
        retrieved_at=hop.at,
        ip=hop.ip,
        status=hop.status,
        meta=canonical_json(meta),
        body=hop.body,
        prepacked=prepacked,
    )


def _of_upload(outcome: FetchOutcome, upload_url: str) -> CaptureWrite:
    assert outcome.retrieved_at is not None
    meta = {"upload": {"content_type": outcome.content_type, "truncated": outcome.truncated}}
    return CaptureWrite(
        role="upload",
        url=upload_url,
        retrieved_at=outcome.retrieved_at,
        ip=None,
        status=None,
        meta=canonical_json(meta),
        body=outcome.body,
    )
