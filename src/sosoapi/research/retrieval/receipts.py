"""Durable retrieval receipts: claim, wait, sweep, resume, cancel.

A receipt is claimed once per (workspace_id, mutation_id). The call that claims it starts
a worker (`workers.py`) in the service's own task group, so a client that disconnects does
not stop the read; then every call for that key waits up to the wait budget and returns
the receipt as it stands. Only lease expiry makes a receipt `unconfirmed`.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime, timedelta

import anyio

from sosoapi.clock import utcnow
from sosoapi.contract.documents import DOCUMENT_KIND, DocumentRetrieveInput
from sosoapi.contract.errors import ServiceError
from sosoapi.contract.models import RetrieveInput, UploadInput
from sosoapi.contract.vocabulary import OPEN_STATES, Reason, State
from sosoapi.progress import Listener, Step
from sosoapi.research.mutations import ensure_same, new_mutation
from sosoapi.research.ports import RetrievalsRepo
from sosoapi.research.retrieval.contract_receipt import Receipt, receipt_of
from sosoapi.research.retrieval.draft import unread
from sosoapi.research.retrieval.quota import refuse_when_full
from sosoapi.research.retrieval.settings import ReceiptSettings
from sosoapi.research.retrieval.workers import Reader, ReceiptWorkers
from sosoapi.store.records import NewMutation, RetrievalRecord, StoreUnavailable

log = logging.getLogger("sosoapi.receipts")
TOOL = "sosoapi_research_evidence_retrieve"
UPLOAD_TOOL = "sosoapi_research_evidence_upload"
DOCUMENT_TOOL = "sosoapi_research_document_retrieve"


class ReceiptService:
    """Owns the receipts of one server instance: the operations and the sweeper."""

    def __init__(
        self,
        retrievals: RetrievalsRepo,
        reader: Reader,
        settings: ReceiptSettings,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.retrievals = retrievals
        self.settings = settings
        self.clock = clock
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.workers = ReceiptWorkers(retrievals, reader, settings, clock, self.owner)

    # --- lifecycle -------------------------------------------------------------------------

    @asynccontextmanager
    async def running(self) -> AsyncIterator[ReceiptService]:
        """Run workers and the sweeper; on exit let running work finish within the grace
        (a read parked for its origin's turn is handed back at once: `wind_down`)."""
        async with anyio.create_task_group() as tg:
            self.workers.open(tg)
            await self.sweep_and_resume()
            tg.start_soon(self._sweeper)
            try:
                yield self
            finally:
                self.workers.stop_accepting()
                with anyio.move_on_after(self.settings.shutdown_grace_seconds, shield=True):
                    await self.workers.wind_down()
                tg.cancel_scope.cancel()
                self.workers.close()

    async def _sweeper(self) -> None:
        while True:
            await anyio.sleep(self.settings.sweep_interval_seconds)
            try:
                await self.sweep_and_resume()
            except StoreUnavailable:
                log.warning("receipt sweep skipped: store unavailable")
            except Exception:
                log.exception("receipt sweep failed")

    async def sweep_and_resume(self) -> None:
        """Judge expired leases and windows, then start any durable pending work."""
        counts = await anyio.to_thread.run_sync(self.retrievals.sweep)
        if counts.unconfirmed or counts.expired:
            log.info("receipt sweep unconfirmed=%d expired=%d", counts.unconfirmed, counts.expired)
        pending = await anyio.to_thread.run_sync(
            self.retrievals.pending_ids, self.settings.max_concurrent_retrievals * 4
        )
        for retrieval_id in pending:
            self.workers.start(retrieval_id)

    # --- the operations ----------------------------------------------------------------------

    async def retrieve(
        self,
        request: RetrieveInput | DocumentRetrieveInput,
        token_id: str | None,
        cancel_requested: Callable[[], bool] = lambda: False,
        progress: Listener | None = None,
    ) -> Receipt:
        """Claim or replay the key's receipt and wait for it; `progress` hears its steps.
        A document's request (the document tool) makes a receipt of kind `pdf_text`."""
        if isinstance(request, DocumentRetrieveInput):
            tool, kind = DOCUMENT_TOOL, DOCUMENT_KIND
        else:
            tool, kind = TOOL, request.kind
        key = new_mutation(tool, request.model_dump(mode="json"), token_id, self.clock())
        reserved = await self._reserve(key)
        # A free slot now: claim the receipt already leased to this instance (one write
        # transaction instead of claim, then acquire) and start reading in that slot.
        held = reserved and self.workers.accepting and self.workers.slots.hold_now(key.workspace_id)
        lease = (self.owner, self.settings.lease_seconds) if held else None
        try:
            record, created = await anyio.to_thread.run_sync(
                self._claim_or_load, key, kind, request.url, request.language, "url", lease
            )
        except BaseException:
            self._give_back(key.workspace_id, reserved, held)
            raise
        if created and held:
            self.workers.start_leased(record)
        elif created:
            self.workers.start(record.id, key.workspace_id if reserved else None)
        else:
            self._give_back(key.workspace_id, reserved, held)
            if record.state in OPEN_STATES:
                record = await self._judge_on_replay(record)
        try:
            with self.workers.watchers.watching(record.id, progress):
                if progress is not None and record.state == State.PENDING:
                    progress(Step("queued"))
                record, parsed = await self.workers.wait(record)
        except anyio.get_cancelled_exc_class():
            if created and cancel_requested():
                with anyio.CancelScope(shield=True):
                    await self.cancel(record.id)
            raise
        return receipt_of(record, parsed)

    async def _reserve(self, key: NewMutation) -> bool:
        """Hold a place in the workspace's queue before claiming, or refuse the call.

        Refused only when the key is new: a replay queues nothing, so it always answers.
        """
        try:
            self.workers.slots.reserve(key.workspace_id)
            return True
        except ServiceError:
            existing, _ = await anyio.to_thread.run_sync(
                self.retrievals.lookup, key.workspace_id, key.mutation_id
            )
            if existing is None:
                log.info("retrieval refused code=busy workspace=%s", key.workspace_id)
                raise
            return False

    def _give_back(self, workspace_id: str, reserved: bool, held: bool) -> None:
        """Return the queue place or the slot a call took when it starts no work."""
        if held:
            self.workers.slots.release(workspace_id)
        elif reserved:
            self.workers.slots.unreserve(workspace_id)

    def _claim_or_load(
        self,
        key: NewMutation,
        kind: str,
        url: str,
        language: str | None,
        source: str,
        lease: tuple[str, float] | None = None,
    ) -> tuple[RetrievalRecord, bool]:
        """Claim the key with a receipt (pending, or running under `lease`), or load the
        receipt it already has. A new key in a workspace with no storage left is refused."""
        repo = self.retrievals
        existing, record, use = repo.lookup_or_use(key.workspace_id, key.mutation_id)
        if existing is None:
            assert use is not None  # a new key comes with what its workspace stores
            refuse_when_full(use)
            valid_until = key.created_at + timedelta(
                seconds=self.settings.idempotency_window_seconds
            )
            retrieval_id = str(uuid.uuid4())
            created = repo.claim_retrieval(
                key, retrieval_id, kind, url, language, valid_until, source, lease
            )
            if created is not None:
                return created, True
            existing, record = repo.lookup(key.workspace_id, key.mutation_id)
            assert existing is not None
        ensure_same(existing, key)
        assert record is not None
        return record, False

    async def upload(
        self,
        request: UploadInput,
        token_id: str | None,
        reader: Reader,
        check_new: Callable[[], None],
    ) -> Receipt:
        """A local file read inline under a lease (never resumed elsewhere: it is local).

        `check_new` validates the path; it runs only for a new key, so a replay still
        returns its receipt after the file has gone.
        """
        key = new_mutation(UPLOAD_TOOL, request.model_dump(mode="json"), token_id, self.clock())
        existing, _ = await anyio.to_thread.run_sync(
            self.retrievals.lookup, key.workspace_id, key.mutation_id
        )
        if existing is None:
            await anyio.to_thread.run_sync(check_new)
        record, created = await anyio.to_thread.run_sync(
            self._claim_or_load, key, request.kind, request.path, request.language, "upload"
        )
        if created:
            await self.workers.run_leased(record.id, reader)
            record = await self.workers.load(record.id)
        elif record.state in OPEN_STATES:
            record = await self._judge_on_replay(record)
        return receipt_of(record)

    async def _judge_on_replay(self, record: RetrievalRecord) -> RetrievalRecord:
        """Judge this receipt's lease and window by the database clock, or resume it."""
        counts = await anyio.to_thread.run_sync(self.retrievals.sweep, record.id)
        judged = counts.unconfirmed or counts.expired
        if not judged and record.state == State.PENDING and record.source == "url":
            self.workers.start(record.id)  # uploads are local: never resumed
        return await self.workers.load(record.id)

    async def by_id(self, workspace_id: str, retrieval_id: str) -> RetrievalRecord | None:
        """The receipt `retrieval_id` if it belongs to `workspace_id` (else None)."""
        record = await anyio.to_thread.run_sync(self.retrievals.retrieval_by_id, retrieval_id)
        return record if record is not None and record.workspace_id == workspace_id else None

    async def cancel(self, retrieval_id: str) -> None:
        """Settle an open receipt as `cancelled` (its creator's MCP cancellation)."""
        self.workers.cancel_work(retrieval_id)
        now = self.clock()
        record = await self.workers.load(retrieval_id)
        result = unread(record.kind, Reason.CANCELLED, now).result
        settled = await anyio.to_thread.run_sync(
            lambda: self.retrievals.settle(
                retrieval_id,
                None,
                State.CANCELLED,
                result.model_dump_json(),
                now,
                outcome=(result.status, result.reason),
            )
        )
        if settled:
            log.info("retrieval cancelled id=%s", retrieval_id)
        self.workers.notify(retrieval_id)
