"""Issue 36 item 1: quote, diff and search reserve their heavy-read slot before reading any
text, and read a corpus's revisions one at a time (on the in-memory storage port).

A counting port counts every evidence and corpus read. While the pool's one slot is held,
a queued call has read nothing, and a call refused past the workspace's queue reads
nothing ever. On 00f031f a queued quote had loaded the whole corpus (and a refused one too).
A quote over a corpus of 30 revisions holds at most a few of them at once (on 00f031f: all
30, read before the slot was reserved).
"""

from __future__ import annotations

import threading
import uuid
import weakref
from datetime import UTC, datetime
from typing import Any

import anyio
import pytest

from sosoapi.auth.permission import Access
from sosoapi.auth.tokens import RESEARCH_SCOPE, Principal
from sosoapi.contract.errors import ErrorCode, ServiceError
from sosoapi.contract.evidence_tools import DiffInput, QuoteInput, SearchInput
from sosoapi.contract.models import EvidenceRef, RetrieveResult, Wire
from sosoapi.contract.projects import Snapshot
from sosoapi.research.evidence import quotes
from sosoapi.research.evidence.diffs import RevisionDiff
from sosoapi.research.evidence.identity import evidence_write
from sosoapi.research.evidence.quotes import QuoteCheck
from sosoapi.research.evidence.scope import StoredRevision
from sosoapi.research.evidence.search import EvidenceSearch
from sosoapi.research.evidence.settings import HeavyReadSettings
from sosoapi.research.heavy import HeavyReads, ShouldStop
from sosoapi.research.operation import Call, Outcome
from sosoapi.research.retrieval.draft import Draft
from sosoapi.research.retrieval.finished import Finished
from sosoapi.store.records import CorpusRow, EvidenceRevisionRecord, WorkspaceRecord
from tests.support.fake_storage import FakeStorage

WS = str(uuid.uuid4())
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
REVISIONS = 30
CHARS = 60_000  # each revision's whole text; its receipt keeps 20,000


def _page(n: int, version: int) -> Finished[RetrieveResult]:
    sentence = f"Survey {n} version {version} measured the glacier radar echo again. "
    whole = sentence * (CHARS // len(sentence))
    draft = Draft(
        kind="url_text", retrieved_at=START, source_url=f"https://news.example/{n}",
        mime_type="text/html",
    )  # fmt: skip
    draft.text, draft.whole_text = whole[:20_000], whole
    draft.title, draft.content_kind = f"Survey {n}", "document_text"
    return draft.finish(START)


class Counting:
    """The evidence and corpora ports of a `FakeStorage`, counting every read."""

    def __init__(self, storage: FakeStorage, corpus: Snapshot) -> None:
        self.storage, self.corpus, self.reads = storage, corpus, 0

    def revision(self, ws: str, evidence_id: str, revision: int | None) -> Any:
        self.reads += 1
        return self.storage.evidence.revision(ws, evidence_id, revision)

    def revisions(self, ws: str, pairs: list[tuple[str, int]]) -> list[EvidenceRevisionRecord]:
        self.reads += 1
        return self.storage.evidence.revisions(ws, pairs)

    def list_page(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("not used by the heavy reads")

    def get(self, ws: str, corpus_id: str, revision: int | None) -> CorpusRow | None:
        self.reads += 1
        if ws != WS or corpus_id != str(self.corpus.id):
            return None
        return CorpusRow(corpus_id, ws, str(self.corpus.project_id), 1, 1,
                         self.corpus.model_dump_json(), START, START)  # fmt: skip


def _seed() -> tuple[FakeStorage, list[str], Snapshot]:
    storage = FakeStorage()
    ids = []
    for n in range(REVISIONS):
        for version in (1, 2):
            item = evidence_write(WS, _page(n, version))
            assert item is not None and item.whole is not None
            evidence_id, _ = storage.evidence.record(item, START)
        ids.append(evidence_id)
    snapshot = Snapshot(
        id=str(uuid.uuid4()), workspace_id=WS, project_id=str(uuid.uuid4()), project_revision=1,
        evidence=[EvidenceRef(evidence_id=i, revision=2) for i in ids], sealed_at=START,
        coverage="supplied_set", missing_sources=[],
    )  # fmt: skip
    return storage, ids, snapshot


def _call(model: type[Wire], **arguments: Any) -> Call[Any]:
    arguments = {"workspace_id": WS, **arguments}
    principal = Principal("token-1", "user-1", frozenset({RESEARCH_SCOPE}), None)
    access = Access(principal, WorkspaceRecord(WS, "w", True, True, START), "viewer")
    return Call(principal, access, model.model_validate(arguments), arguments, lambda: False)


def _tools(storage: FakeStorage, port: Counting, heavy: HeavyReads) -> dict[str, Any]:
    quotes = QuoteCheck(port, port, heavy)
    diffs = RevisionDiff(port, heavy)
    search = EvidenceSearch(storage.search, port, port, heavy)
    return {"quote": quotes.quote, "diff": diffs.diff, "search": search.search}


def _arguments(tool: str, ids: list[str], corpus: Snapshot) -> Call[Any]:
    if tool == "quote":
        quote = "Survey 7 version 2 measured the glacier radar echo"
        return _call(QuoteInput, corpus_id=str(corpus.id), quote=quote)
    if tool == "diff":
        return _call(DiffInput, evidence_id=ids[3], from_revision=1)
    return _call(SearchInput, query="glacier radar", corpus_id=str(corpus.id))


@pytest.mark.parametrize("tool", ["quote", "diff", "search"])
async def test_a_queued_call_reads_nothing_and_a_refused_one_never_does(tool: str) -> None:
    storage, ids, corpus = _seed()
    port = Counting(storage, corpus)
    heavy = HeavyReads(HeavyReadSettings(slots=1, per_workspace=1, max_queued_per_workspace=1))
    run = _tools(storage, port, heavy)[tool]
    release = threading.Event()

    def holding(should_stop: ShouldStop) -> None:
        assert release.wait(60), "the slot was never released"

    answers: list[Outcome] = []

    async def queued() -> None:
        answers.append(await run(_arguments(tool, ids, corpus)))

    async with anyio.create_task_group() as tg:
        try:
            tg.start_soon(heavy.run, _call(QuoteInput, quote="x"), holding)
            with anyio.fail_after(30):
                while heavy.started < 1:  # noqa: ASYNC110 (the pool's state, no event to wait on)
                    await anyio.sleep(0.01)
            tg.start_soon(queued)
            with anyio.fail_after(30):
                while heavy.slots.waiting(WS) < 1:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            assert port.reads == 0, "a queued call read before its slot was reserved"
            with pytest.raises(ServiceError) as refused:
                await run(_arguments(tool, ids, corpus))
            assert refused.value.code == ErrorCode.BUSY
            assert port.reads == 0, "a refused call read evidence"
        finally:
            release.set()  # the held thread ends even when an assertion fails
    assert len(answers) == 1 and port.reads > 0


async def test_a_corpus_quote_holds_a_few_revisions_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every revision read (as stored, and read back) is tracked while it lives: the most
    alive at once is a small constant, not the corpus's 30, whichever revision the quote
    names."""
    storage, ids, corpus = _seed()
    port = Counting(storage, corpus)
    live, most, lock = [0], [0], threading.Lock()

    class Tracked(StoredRevision):
        pass

    class TrackedRecord(EvidenceRevisionRecord):
        pass

    def gone() -> None:
        with lock:
            live[0] -= 1

    def track(kept: Any) -> Any:
        with lock:
            live[0] += 1
            most[0] = max(most[0], live[0])
        weakref.finalize(kept, gone)
        return kept

    def tracked(record: EvidenceRevisionRecord) -> StoredRevision:
        plain = stored_revision(record)
        return track(Tracked(*(getattr(plain, f) for f in StoredRevision.__slots__)))

    def read(ws: str, evidence_id: str, revision: int | None) -> Any:
        record = Counting.revision(port, ws, evidence_id, revision)
        if record is None:
            return None
        return track(TrackedRecord(*(getattr(record, f) for f in EvidenceRevisionRecord.__slots__)))

    stored_revision = quotes.stored_revision
    monkeypatch.setattr(quotes, "stored_revision", tracked)
    monkeypatch.setattr(port, "revision", read)
    check = QuoteCheck(port, port, HeavyReads())
    quote = "Survey 29 version 2 measured the glacier radar echo"
    found = (await check.quote(_call(QuoteInput, corpus_id=str(corpus.id), quote=quote))).output
    assert found.verdict == "exact" and {str(m.evidence_id) for m in found.matches} == {ids[29]}
    print("MOST1", most[0])
    assert 0 < most[0] <= 3, most[0]
    most[0] = 0
    named = _call(QuoteInput, evidence_id=ids[0], corpus_id=str(corpus.id), quote=quote)
    elsewhere = (await check.quote(named)).output
    assert elsewhere.verdict == "absent"
    assert {str(m.evidence_id) for m in elsewhere.found_elsewhere} == {ids[29]}
    print("MOST2", most[0])
    assert 0 < most[0] <= 4, most[0]
    assert live[0] == 0
