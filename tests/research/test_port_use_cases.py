"""The receipt, search and review use cases on the in-memory storage port, in milliseconds.

The same use cases run on SQLite and PostgreSQL in the other research and surface tests;
here they see only `tests/support/fake_storage.py`, which the storage port
(`research/ports.py`) makes possible.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import pytest

from sosoapi.auth.permission import Access, Guard
from sosoapi.auth.tokens import RESEARCH_SCOPE, Principal, hash_token
from sosoapi.contract.errors import ErrorCode, ServiceError
from sosoapi.contract.evidence_tools import SearchInput
from sosoapi.contract.models import RetrieveInput, RetrieveResult, Wire
from sosoapi.contract.vocabulary import Reason, State
from sosoapi.research.evidence.identity import evidence_write
from sosoapi.research.evidence.search import EvidenceSearch
from sosoapi.research.heavy import HeavyReads
from sosoapi.research.mutations import new_mutation
from sosoapi.research.operation import Call
from sosoapi.research.retrieval.draft import Draft
from sosoapi.research.retrieval.finished import Finished
from sosoapi.research.retrieval.pending_turns import PendingUntilTurn
from sosoapi.research.retrieval.receipts import ReceiptService
from sosoapi.research.retrieval.settings import ReceiptSettings
from sosoapi.research.review.views import Review
from sosoapi.research.service import ResearchService
from sosoapi.store.records import StoreUnavailable, TokenRecord, WorkspaceRecord
from tests.support.contract import assert_valid_output
from tests.support.fake_storage import FakeStorage
from tests.support.lifespan import held_open

WS = str(uuid.uuid4())
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
TOKEN = "fake-token-with-enough-entropy-for-a-test"
URL = "https://news.example/story"
RETRIEVE = "sosoapi_research_evidence_retrieve"


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def page(text: str, url: str = URL, title: str = "A story") -> Finished[RetrieveResult]:
    draft = Draft(kind="url_text", retrieved_at=START, source_url=url, mime_type="text/html")
    draft.text, draft.title, draft.content_kind = text, title, "document_text"
    return draft.finish(START)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def storage(clock: Clock) -> FakeStorage:
    store = FakeStorage(clock)
    workspace = WorkspaceRecord(WS, "w", True, True, START)
    store.rows.members[WS, "user-1"] = (workspace, "owner")
    store.rows.users["user-1"] = "Ada"
    store.rows.tokens[hash_token(TOKEN)] = TokenRecord(
        "token-1", "user-1", "t", frozenset({RESEARCH_SCOPE}), START, None, None
    )
    return store


Reader = Callable[[str, str, str | None], Awaitable[Finished[RetrieveResult]]]


def counting_reader(texts: dict[str, str]) -> tuple[Reader, list[str]]:
    seen: list[str] = []

    async def read(
        kind: str, url: str, language: str | None, _: object
    ) -> Finished[RetrieveResult]:
        seen.append(url)
        if url not in texts:
            raise RuntimeError("the origin broke")
        return page(texts[url], url)

    return read, seen


@pytest.fixture
async def receipts(
    storage: FakeStorage, clock: Clock
) -> AsyncIterator[tuple[ReceiptService, dict[str, str], list[str]]]:
    texts = {URL: "First paragraph about glaciers.\n\nSecond paragraph about radar."}
    read, seen = counting_reader(texts)
    service = ReceiptService(storage.retrievals, read, ReceiptSettings(), clock)
    async with held_open(service.running()):
        yield service, texts, seen


def retrieve_input(url: str = URL, mutation_id: str | None = None) -> RetrieveInput:
    return RetrieveInput.model_validate(
        {"workspace_id": WS, "mutation_id": mutation_id or str(uuid.uuid4()), "url": url,
         "kind": "url_text"}
    )  # fmt: skip


async def test_a_receipt_settles_once_and_replays_without_reading_again(
    receipts: tuple[ReceiptService, dict[str, str], list[str]], storage: FakeStorage
) -> None:
    service, _, seen = receipts
    request = retrieve_input()
    first = await service.retrieve(request, "token-1")
    assert_valid_output("sosoapi_research_evidence_retrieve", first.output.wire())
    assert (
        first.output.retrieval.state == State.COMPLETED
        and first.output.retrieval.evidence is not None
    )
    again = await service.retrieve(request, "token-1")
    assert again.output.wire() == first.output.wire() and seen == [URL]
    other = retrieve_input("https://news.example/other", request.mutation_id)
    with pytest.raises(ServiceError) as refused:
        await service.retrieve(other, "token-1")
    assert refused.value.code == ErrorCode.CONFLICT and "`url`" in refused.value.message
    assert len(storage.rows.retrievals) == 1  # the conflict wrote nothing


async def test_same_content_keeps_its_revision_and_new_content_makes_the_next(
    receipts: tuple[ReceiptService, dict[str, str], list[str]],
) -> None:
    service, texts, _ = receipts
    first = (await service.retrieve(retrieve_input(), "token-1")).output.retrieval.evidence
    same = (await service.retrieve(retrieve_input(), "token-1")).output.retrieval.evidence
    texts[URL] += "\n\nA correction."
    changed = (await service.retrieve(retrieve_input(), "token-1")).output.retrieval.evidence
    assert first is not None and same == first
    assert changed is not None and (changed.evidence_id, changed.revision) == (
        first.evidence_id,
        2,
    )


async def test_a_reader_that_breaks_settles_unavailable_never_success(
    receipts: tuple[ReceiptService, dict[str, str], list[str]],
) -> None:
    service, _, _ = receipts
    out = await service.retrieve(retrieve_input("https://news.example/broken"), "token-1")
    result = out.output.retrieval.result
    assert out.output.retrieval.state == State.COMPLETED and out.output.retrieval.evidence is None
    assert result is not None and (result.status, result.reason) == ("unavailable", "unavailable")


async def test_a_lost_lease_is_judged_unconfirmed_on_replay(
    storage: FakeStorage, clock: Clock
) -> None:
    service = ReceiptService(storage.retrievals, counting_reader({})[0], ReceiptSettings(), clock)
    request = retrieve_input()
    key = new_mutation(RETRIEVE, request.model_dump(mode="json"), "token-1", clock())
    claimed = storage.retrievals.claim_retrieval(
        key, str(uuid.uuid4()), "url_text", URL, None, START + timedelta(days=1)
    )
    assert claimed and storage.retrievals.acquire(claimed.id, "an-instance-that-died", 30)
    clock.now += timedelta(seconds=31)
    judged = await service.retrieve(request, "token-1")
    assert (
        judged.output.retrieval.state == State.UNCONFIRMED
        and judged.output.retrieval.result is None
    )


async def test_a_read_with_a_free_slot_is_claimed_leased_and_one_queued_is_acquired_later(
    storage: FakeStorage, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A free slot: the claim itself is the lease (one write, no `acquire`). Every slot
    taken: the receipt is claimed `pending`, and its worker acquires it when one frees."""
    acquired: list[str] = []
    acquire = storage.retrievals.acquire

    def counted(retrieval_id: str, owner: str, lease_seconds: float) -> Any:
        acquired.append(retrieval_id)
        return acquire(retrieval_id, owner, lease_seconds)

    monkeypatch.setattr(storage.retrievals, "acquire", counted)
    release = anyio.Event()
    texts = {URL: "The first read.", "https://news.example/second": "The second read."}

    async def read(
        kind: str, url: str, language: str | None, _: object
    ) -> Finished[RetrieveResult]:
        if url == URL:
            await release.wait()
        return page(texts[url], url)

    settings = ReceiptSettings(max_concurrent_retrievals=1, wait_budget_seconds=0.05)
    service = ReceiptService(storage.retrievals, read, settings, clock)
    async with held_open(service.running()):
        first_request = retrieve_input()
        first = await service.retrieve(first_request, "token-1")
        assert first.output.retrieval.state == State.RUNNING  # leased at its claim
        second_request = retrieve_input("https://news.example/second")
        second = await service.retrieve(second_request, "token-1")
        assert second.output.retrieval.state == State.PENDING  # the one slot is taken
        release.set()
        with anyio.fail_after(5):
            await service.workers.wind_down()  # none parks here: every read ends
        done = [await service.retrieve(r, "token-1") for r in (first_request, second_request)]
    assert [d.output.retrieval.state for d in done] == [State.COMPLETED, State.COMPLETED]
    assert acquired == [str(second.output.retrieval.id)]


def _call(model: type[Wire], **arguments: Any) -> Call[Any]:
    arguments = {"workspace_id": WS, **arguments}
    principal = Principal("token-1", "user-1", frozenset({RESEARCH_SCOPE}), None)
    access = Access(principal, WorkspaceRecord(WS, "w", True, True, START), "owner")
    return Call(principal, access, model.model_validate(arguments), arguments, lambda: False)


def _seed(storage: FakeStorage, texts: dict[str, str]) -> dict[str, str]:
    ids = {}
    for url, text in texts.items():
        item = evidence_write(WS, page(text, url))
        assert item is not None
        ids[url] = storage.evidence.record(item, START)[0]
    return ids


async def test_search_pages_through_hits_with_snippets_that_slice_the_text(
    storage: FakeStorage,
) -> None:
    ids = _seed(
        storage,
        {
            f"https://news.example/{n}": "glacier " * n + "and the radar survey."
            for n in range(1, 6)
        },
    )
    search = EvidenceSearch(storage.search, storage.corpora, storage.evidence, HeavyReads())
    first = (await search.search(_call(SearchInput, query="glacier radar", limit=2))).output
    assert_valid_output("sosoapi_research_evidence_search", first.wire())
    assert [str(r.evidence_id) for r in first.results] == [
        ids["https://news.example/5"],
        ids["https://news.example/4"],
    ]
    for result in first.results:
        assert {s.text.casefold() for s in result.snippets} == {"glacier", "radar"}
    rest = await search.search(
        _call(SearchInput, query="glacier radar", limit=2, cursor=first.next_cursor)
    )
    assert [str(r.evidence_id) for r in rest.output.results] == [
        ids["https://news.example/3"],
        ids["https://news.example/2"],
    ]
    with pytest.raises(ServiceError) as refused:  # a cursor of another query
        await search.search(_call(SearchInput, query="radar", cursor=first.next_cursor))
    assert refused.value.field == "cursor"


async def test_review_views_count_filter_and_hide_other_workspaces(
    storage: FakeStorage, clock: Clock
) -> None:
    read, _ = counting_reader({URL: "Words of the story."})
    receipts = ReceiptService(storage.retrievals, read, ReceiptSettings(), clock)
    research = ResearchService(storage, Guard(storage.auth), receipts, max_upload_bytes=1 << 20)
    review = Review(research)
    principal = await research.authenticate(TOKEN)
    async with receipts.running():
        await receipts.retrieve(retrieve_input(), principal.token_id)
        await receipts.retrieve(retrieve_input("https://news.example/gone"), principal.token_id)
    overview = await review.overview(principal, WS)
    assert overview.counts.retrievals_by_status == {"ready": 1, "unavailable": 1}
    assert overview.counts.evidence == 1 and len(overview.latest) == 2
    failed = await review.retrievals(principal, WS, {"status": "unavailable"}, None, 10)
    assert [r.url for r in failed.items] == ["https://news.example/gone"]
    assert failed.items[0].receipt.result is not None
    assert failed.items[0].receipt.result.reason == Reason.UNAVAILABLE
    with pytest.raises(ServiceError) as refused:
        await review.retrievals(principal, WS, {"status": "fine"}, None, 10)
    assert refused.value.field == "status"
    stranger = str(uuid.uuid4())
    with pytest.raises(ServiceError) as hidden:
        await review.overview(principal, stranger)
    assert hidden.value.code == ErrorCode.NOT_FOUND


def test_the_wacz_writer_needs_only_the_ports(storage: FakeStorage, tmp_path: Any) -> None:
    """The export runs on the in-memory storage: it reads nothing but the two ports."""
    import json
    import zipfile

    from sosoapi.contract.models import EvidenceRef
    from sosoapi.contract.projects import Snapshot
    from sosoapi.research.corpora.wacz import write_wacz
    from sosoapi.store.records import CaptureWrite
    from tests.support.wacz_check import fixity, records, validate

    body = b"<html><title>A story</title><p>Tide tables for the harbour.</p></html>"
    meta = json.dumps({
        "request": {"method": "GET", "url": URL, "headers": [["Host", "example.org"]]},
        "response": {"http_version": "HTTP/1.1", "status": 200, "reason": "OK",
                     "headers": [["Content-Type", "text/html"]], "body_truncated": False},
    })  # fmt: skip
    capture = CaptureWrite("response", URL, START, "203.0.113.9", 200, meta, body)
    item = evidence_write(WS, page("Tide tables for the harbour.", URL), (capture,))
    assert item is not None
    evidence_id, revision = storage.evidence.record(item, START)
    snapshot = Snapshot(
        id=uuid.uuid4(), workspace_id=uuid.UUID(WS), project_id=uuid.uuid4(), project_revision=1,
        evidence=[EvidenceRef(evidence_id=evidence_id, revision=revision)], sealed_at=START,
        coverage="supplied_set", missing_sources=[],
    )  # fmt: skip
    target = tmp_path / "port.wacz"
    with open(target, "wb") as out:
        summary = write_wacz(storage.evidence, storage.captures, snapshot, 1, out)
    assert (summary.revisions, summary.captures, summary.warc_records) == (1, 1, 2)
    assert validate(target).returncode == 0
    with zipfile.ZipFile(target) as package:
        fixity(package)
        read = [r for r in records(package) if r["type"] == "response"]
    assert read == [
        {"type": "response", "uri": URL, "ip": "203.0.113.9", "status": "200",
         "sha256": hashlib.sha256(body).hexdigest(), "warc_digest": read[0]["warc_digest"]}
    ]  # fmt: skip


@pytest.mark.parametrize("store_up", [True, False], ids=["store up", "store down"])
async def test_a_stopping_service_hands_back_a_parked_read_even_with_the_store_down(
    storage: FakeStorage, clock: Clock, monkeypatch: pytest.MonkeyPatch, store_up: bool
) -> None:
    """Parked for its origin's turn (`PendingUntilTurn.park`), a read stops when the service
    does: released (pending, no lease) for the next instance, or, if the store is gone,
    stopped all the same, its lease left to run out. The stop never waits for the turn."""
    parked = anyio.Event()

    async def read(
        kind: str, url: str, language: str | None, turn: PendingUntilTurn
    ) -> Finished[RetrieveResult]:
        assert await turn.park(3600.0)
        parked.set()
        await anyio.sleep(3600)  # the origin's turn, an hour out
        await turn.resume()
        return page("Read at its turn.")

    if not store_up:

        def gone(retrieval_id: str, owner: str) -> bool:
            raise StoreUnavailable("the database is unreachable")

        monkeypatch.setattr(storage.retrievals, "release", gone)
    settings = ReceiptSettings(wait_budget_seconds=0.05, shutdown_grace_seconds=3600)
    service = ReceiptService(storage.retrievals, read, settings, clock)
    with anyio.fail_after(10):
        async with held_open(service.running()):
            answer = await service.retrieve(retrieve_input(), "token-1")
            await parked.wait()
    record = storage.retrievals.retrieval_by_id(str(answer.output.retrieval.id))
    assert record is not None and record.state == State.PENDING
    assert record.lease_owner == (None if store_up else service.owner)
