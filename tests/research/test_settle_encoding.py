"""A settle encodes the result once, off the event loop (issue 35 item 3).

`settle_writes` gives the receipt's JSON and the evidence write with the whole text
encoded to JSON once, byte for byte what encoding each document on its own gives (the
digest is the one revisions always had); the worker runs it in a thread, never on the
event loop. Real pages (tests/data/pages), a real caption file and a long article.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from sosoapi.application import Application
from sosoapi.contract.models import RetrieveResult
from sosoapi.research.evidence import identity
from sosoapi.research.evidence.identity import as_evidence, canonical_json, settle_writes
from sosoapi.research.retrieval import workers
from sosoapi.research.retrieval.finished import AnyFinished
from tests.research.test_one_trip import read_inline
from tests.support.calls import args, call
from tests.support.long_sources import article_html
from tests.support.origin import HTTPSOrigin
from tests.support.pages import real_pages

CAPTIONS = Path(__file__).parents[1] / "data" / "captions"


def _sources() -> list[tuple[str, str, bytes, str]]:
    pages = [(p.name, "url_text", p.html, "text/html") for p in real_pages()]
    srt = (CAPTIONS / "srt" / "ascii.srt").read_bytes()
    return [
        *pages,
        ("long-article", "url_text", article_html(), "text/html"),
        ("ascii.srt", "published_captions", srt, "application/x-subrip"),
    ]


SOURCES = _sources()


def _digest_alone(read: AnyFinished) -> str:
    """The digest's own definition (docs/product.md, "Evidence"), encoded in one piece."""
    result, p = read.result, read.result.provenance
    document = {
        "text": read.whole_text,
        "title": result.title,
        "description": result.description,
        "segments": [s.wire() for s in read.whole_segments],
        "mime_type": p.mime_type,
        "caption_format": p.caption_format,
        "language": p.language,
    }
    return hashlib.sha256(canonical_json(document).encode()).hexdigest()


@pytest.mark.parametrize("source", SOURCES, ids=[s[0] for s in SOURCES])
async def test_each_stored_document_is_what_encoding_it_alone_gives(
    source: tuple[str, str, bytes, str],
) -> None:
    _, kind, body, media = source
    captured = await read_inline(kind, body, media, "https://example.org/source")
    read = captured.finished
    result = read.result
    assert result.status in ("ready", "partial"), result
    receipt, write = settle_writes("w", read, (), captured.citation, captured.passages)
    assert write is not None
    evidence = as_evidence(read)
    assert receipt == canonical_json(result.wire())
    assert RetrieveResult.model_validate_json(receipt).wire() == result.wire()
    assert write.content == canonical_json(evidence.result.wire())
    assert write.digest == _digest_alone(evidence)
    cut = read.whole_text != result.text or read.whole_segments != result.segments
    whole = {"text": read.whole_text, "segments": [s.wire() for s in read.whole_segments]}
    assert write.whole == (canonical_json(whole) if cut else None)


@pytest.mark.parametrize("name", ["long-article", SOURCES[0][0]])
async def test_the_whole_text_is_encoded_once(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Counted on `json.dumps` as identity.py calls it: one encoding holds the whole text,
    for a text past the receipt's bound and for one within it alike."""
    _, kind, body, media = next(s for s in SOURCES if s[0] == name)
    captured = await read_inline(kind, body, media, "https://example.org/source")
    whole = captured.finished.whole_text
    assert len(whole) > 1000
    holding: list[int] = []

    def dumps(value: Any, **options: Any) -> str:
        encoded = json.dumps(value, **options)
        if len(encoded) >= len(whole):
            holding.append(len(encoded))
        return encoded

    monkeypatch.setattr(identity, "json", type("Counted", (), {"dumps": staticmethod(dumps)}))
    settle_writes("w", captured.finished, (), captured.citation, captured.passages)
    assert len(holding) == 1, holding


async def test_the_settle_encodes_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
) -> None:
    """The worker's settle runs `settle_writes` in a thread: no event loop runs where it
    runs. A read through the real egress path to the test origin."""
    on_loop: list[bool] = []

    def watched(*a: Any) -> Any:
        try:
            asyncio.get_running_loop()
            on_loop.append(True)
        except RuntimeError:
            on_loop.append(False)
        return settle_writes(*a)

    monkeypatch.setattr(workers, "settle_writes", watched)
    workspace_id, token = owner
    page = real_pages()[0]
    done = await call(application, token, args(workspace_id, origin.url(f"/{page.name}")))
    assert done["result"]["status"] == "ready", done
    assert done["evidence"]["revision"] == 1
    assert on_loop == [False]


async def test_the_settle_encodes_in_the_write_s_own_thread_call(
    monkeypatch: pytest.MonkeyPatch,
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
) -> None:
    """The encoding and the store's settle share one trip to a worker thread (each trip
    costs the server a wake-up of a thread and of the loop): a context variable set by the
    encoding is seen by the write, as it is only within one `to_thread.run_sync` call."""
    encoded: contextvars.ContextVar[bool] = contextvars.ContextVar("encoded", default=False)
    seen: list[bool] = []

    def watched(*a: Any) -> Any:
        encoded.set(True)
        return settle_writes(*a)

    retrievals = application.research.receipts.workers.retrievals
    store_settle = retrievals.settle

    def settle(*a: Any, **kw: Any) -> Any:
        seen.append(encoded.get())
        return store_settle(*a, **kw)

    monkeypatch.setattr(workers, "settle_writes", watched)
    monkeypatch.setattr(retrievals, "settle", settle)
    workspace_id, token = owner
    page = real_pages()[0]
    done = await call(application, token, args(workspace_id, origin.url(f"/{page.name}")))
    assert done["result"]["status"] == "ready", done
    assert seen == [True]
