"""What a read keeps of the bytes it was given: the captures an archive can replay.

The reader's fetch is wrapped by a `Recorder`; every exchange that brought a body (the
page, a caption track, an uploaded file) becomes `CaptureWrite`s: each redirect hop's
response, then the answer read, with the heads exactly as sent and received and the body
before decoding. Nothing here touches the network: egress hands the hops over.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sosoapi.contract.documents import AnyResult
from sosoapi.egress.types import FetchOutcome, Hop
from sosoapi.research.evidence.identity import canonical_json
from sosoapi.research.evidence.passages import CutPassages
from sosoapi.store.records import CaptureWrite

Fetch = Callable[..., Awaitable[FetchOutcome]]
NO_CREDENTIALS = "the gate sends no cookies, authorization or other credentials"


@dataclass(frozen=True, slots=True)
class Captured:
    """A reader's result with the captures of the exchanges it read."""

    result: AnyResult
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

    def captures(self, upload_url: str) -> tuple[CaptureWrite, ...]:
        kept: list[CaptureWrite] = []
        for outcome in self.outcomes:
            if outcome.hops:
                kept.extend(
                    _of_hop(hop, last=i == len(outcome.hops) - 1)
                    for i, hop in enumerate(outcome.hops)
                )
            elif outcome.final_url is None and outcome.retrieved_at is not None:
                # an upload (no URL, no exchange): the file's bytes
                kept.append(_of_upload(outcome, upload_url))
        return tuple(kept)


def _of_hop(hop: Hop, *, last: bool) -> CaptureWrite:
    meta = {
        "request": {
            "method": "GET",
            "url": hop.url,
            "headers": [list(h) for h in hop.request_headers],
        },
        "credentials": NO_CREDENTIALS,
        "response": {
            "http_version": hop.http_version,
            "status": hop.status,
            "reason": hop.reason_phrase,
            "headers": [list(h) for h in hop.response_headers],
            "body_truncated": hop.body_truncated,
        },
    }
    return CaptureWrite(
        role="response" if last else "redirect",
        url=hop.url,
        retrieved_at=hop.at,
        ip=hop.ip,
        status=hop.status,
        meta=canonical_json(meta),
        body=hop.body,
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
