"""The research operations behind every surface: authenticate, validate, authorise, act.

MCP, HTTP and the CLI all call `ResearchService.call` with a tool name, the bearer token
and raw JSON arguments, so every rule (input validation against the contract, the one
permission check, idempotency) is written once and the transports only translate.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import anyio

from sosoapi.auth.errors import AuthRefused, Fixes
from sosoapi.auth.permission import Action, Guard
from sosoapi.auth.tokens import Principal
from sosoapi.clock import utcnow
from sosoapi.contract.catalog import Transport, callable_on
from sosoapi.contract.documents import DOCUMENT_KIND, DocumentRetrieveInput
from sosoapi.contract.errors import not_found
from sosoapi.contract.evidence_tools import DiffInput, QuoteInput, SearchInput
from sosoapi.contract.models import (
    EvidenceGetInput,
    EvidenceListInput,
    PageInput,
    RetrieveInput,
    UploadInput,
)
from sosoapi.contract.projects import (
    CorporaGetInput,
    CorporaSealInput,
    ProjectCreateInput,
    ProjectGetInput,
    ProjectRemoveSourcesInput,
    ProjectSourcesInput,
    ProjectUpdateInput,
    Snapshot,
    WhoamiInput,
    WhoamiOutput,
    WhoamiWorkspace,
)
from sosoapi.contract.schemas import validate_input
from sosoapi.contract.vocabulary import OPEN_STATES
from sosoapi.progress import Listener
from sosoapi.research.corpora.export_process import ExportProcesses
from sosoapi.research.corpora.export_slots import ExportSlots, ServedExport
from sosoapi.research.corpora.projects import ProjectService
from sosoapi.research.corpora.sealing import CorpusService
from sosoapi.research.corpora.wacz import build_package
from sosoapi.research.corpora.wacz_package import ExportSummary, Package
from sosoapi.research.evidence.diffs import RevisionDiff
from sosoapi.research.evidence.quotes import QuoteCheck
from sosoapi.research.evidence.reader import EvidenceReader
from sosoapi.research.evidence.search import EvidenceSearch
from sosoapi.research.faults import answering_store_faults
from sosoapi.research.heavy import HeavyReads, never
from sosoapi.research.offload import Offload
from sosoapi.research.operation import Call, Operation, Outcome, retrieval_outcome
from sosoapi.research.ports import Storage
from sosoapi.research.retrieval.captures import Captured
from sosoapi.research.retrieval.contract_receipt import Receipt, receipt_of
from sosoapi.research.retrieval.receipts import DOCUMENT_TOOL, ReceiptService
from sosoapi.research.retrieval.uploads import check_upload, read_upload

EVIDENCE = "sosoapi_research_evidence"
PROJECTS = "sosoapi_research_projects"
CORPORA = "sosoapi_research_corpora"


class ResearchService:
    def __init__(
        self,
        store: Storage,
        guard: Guard,
        receipts: ReceiptService,
        *,
        max_upload_bytes: int,
        upload_roots: Sequence[Path] = (),
        clock: Callable[[], datetime] = utcnow,
        heavy: HeavyReads | None = None,
        parse_pool: Offload | None = None,
        exports: ExportProcesses | None = None,
        export_slots: ExportSlots | None = None,
    ) -> None:
        self.store = store
        self.heavy = heavy or HeavyReads()  # the diff, quote and search pool
        self.parse_pool = parse_pool or Offload()  # an upload's parsing (threads: none given)
        self.exports = exports  # where a served export is built (None: the heavy pool's threads)
        self.export_slots = export_slots or ExportSlots()  # how many are open at once
        self.guard = guard
        self.receipts = receipts
        self.max_upload_bytes = max_upload_bytes
        self.upload_roots = tuple(upload_roots)
        projects = ProjectService(store, clock)
        corpora = CorpusService(store, clock)
        evidence = EvidenceReader(store.evidence)
        search = EvidenceSearch(store.search, store.corpora, store.evidence, self.heavy)
        quotes = QuoteCheck(store.evidence, store.corpora, self.heavy)
        diffs = RevisionDiff(store.evidence, self.heavy)
        self.operations: dict[str, Operation] = {}
        for operation in (
            Operation(f"{EVIDENCE}_retrieve", "write", RetrieveInput, self._retrieve),
            Operation(f"{EVIDENCE}_upload", "write", UploadInput, self._upload),
            Operation(DOCUMENT_TOOL, "write", DocumentRetrieveInput, self._retrieve),
            Operation(f"{EVIDENCE}_get", "read", EvidenceGetInput, evidence.get),
            Operation(f"{EVIDENCE}_list", "read", EvidenceListInput, evidence.list_page),
            Operation(f"{EVIDENCE}_search", "read", SearchInput, search.search),
            Operation(f"{EVIDENCE}_quote", "read", QuoteInput, quotes.quote),
            Operation(f"{EVIDENCE}_diff", "read", DiffInput, diffs.diff),
            Operation(f"{PROJECTS}_create", "write", ProjectCreateInput, projects.create),
            Operation(f"{PROJECTS}_get", "read", ProjectGetInput, projects.get),
            Operation(f"{PROJECTS}_list", "read", PageInput, projects.list_page),
            Operation(f"{PROJECTS}_update", "write", ProjectUpdateInput, projects.update),
            Operation(
                f"{PROJECTS}_add_sources", "write", ProjectSourcesInput, projects.add_sources
            ),
            Operation(
                f"{PROJECTS}_remove_sources",
                "write",
                ProjectRemoveSourcesInput,
                projects.remove_sources,
            ),
            Operation(f"{CORPORA}_seal", "write", CorporaSealInput, corpora.seal),
            Operation(f"{CORPORA}_get", "read", CorporaGetInput, corpora.get),
            Operation(f"{CORPORA}_list", "read", PageInput, corpora.list_page),
            Operation("sosoapi_whoami", None, WhoamiInput, self._whoami),
        ):
            self.operations[operation.tool] = operation

    async def authenticate(self, token: str | None, fixes: Fixes | None = None) -> Principal:
        """The token's principal; `ServiceError` (the fix in `fixes`' words) if none."""
        try:
            with answering_store_faults():
                return await anyio.to_thread.run_sync(self.guard.authenticate, token, utcnow())
        except AuthRefused as refused:
            raise refused.service_error(fixes) from None

    async def call(
        self,
        tool: str,
        token: str | None,
        arguments: Any,
        cancel_requested: Callable[[], bool] = lambda: False,
        *,
        transport: Transport = "http",
        fixes: Fixes | None = None,
        verified: Principal | None = None,
        progress: Listener | None = None,
    ) -> Outcome:
        """Authenticate, validate, authorise and run `tool`; raise `ServiceError` if no result.

        `fixes` words an auth refusal's fix for the calling surface's user. `verified` is
        `token`'s principal when the surface authenticated this same request already.
        `progress` hears a retrieval's steps as it goes (other tools ignore it).
        """
        operation = self.operations.get(tool)
        if operation is None or not callable_on(tool, transport):
            raise not_found(
                f"Unknown tool `{tool}` on {transport}; list the tools this server offers."
            )
        principal = verified or await self.authenticate(token, fixes)
        return await self.call_as(
            principal, tool, arguments, cancel_requested, fixes=fixes, progress=progress
        )

    async def call_as(
        self,
        principal: Principal,
        tool: str,
        arguments: Any,
        cancel_requested: Callable[[], bool] = lambda: False,
        *,
        fixes: Fixes | None = None,
        progress: Listener | None = None,
    ) -> Outcome:
        """`call` for a caller already authenticated (a console session's token)."""
        operation = self.operations[tool]
        with answering_store_faults():
            try:
                call = await anyio.to_thread.run_sync(
                    self._admit, operation, principal, arguments, cancel_requested, progress
                )
            except AuthRefused as refused:
                raise refused.service_error(fixes) from None
            return await operation.handler(call)

    def _admit(
        self,
        operation: Operation,
        principal: Principal,
        arguments: Any,
        cancel_requested: Callable[[], bool],
        progress: Listener | None = None,
    ) -> Call[Any]:
        """The checks of docs/product.md ("Authentication and permission") after
        authentication; the one parse of the input, after validation against the contract
        (which words every refusal)."""
        arguments = validate_input(operation.tool, arguments)
        request = operation.input_model.model_validate(arguments)
        access = None
        if operation.action is not None:
            workspace_id = str(request.workspace_id)  # type: ignore[attr-defined]
            access = self.guard.check(principal, workspace_id, operation.action)
        return Call(principal, access, request, arguments, cancel_requested, progress)

    async def receipt(
        self,
        principal: Principal,
        workspace_id: str,
        retrieval_id: str,
        *,
        cancel: bool = False,
        fixes: Fixes | None = None,
    ) -> Receipt:
        """One receipt by id, as it stands (no wait), for a member of its workspace; with
        `cancel`, an open one is settled `cancelled` first (a writer's explicit cancel)."""
        action: Action = "write" if cancel else "read"
        with answering_store_faults():
            try:
                await anyio.to_thread.run_sync(self.guard.check, principal, workspace_id, action)
            except AuthRefused as refused:
                raise refused.service_error(fixes) from None
            record = await self.receipts.by_id(workspace_id, retrieval_id)
            if record is None:
                raise not_found(
                    f"No retrieval {retrieval_id[:64]} in workspace {workspace_id[:64]}."
                )
            if cancel and record.state in OPEN_STATES:
                await self.receipts.cancel(record.id)
                record = await self.receipts.workers.load(record.id)
            return receipt_of(record)

    async def _retrieve(self, call: Call[RetrieveInput | DocumentRetrieveInput]) -> Outcome:
        """The seed retrieve and the document tool: one receipt machinery for both."""
        request = call.input
        receipt = await self.receipts.retrieve(
            request, call.token_id, call.cancel_requested, call.progress
        )
        return retrieval_outcome(receipt, request.language)

    async def _upload(self, call: Call[UploadInput]) -> Outcome:
        request = call.input
        settings = self.receipts.settings

        async def reader(kind: str, path: str, language: str | None, _: object) -> Captured:
            document = kind == DOCUMENT_KIND  # a PDF: the document tool's byte bound
            return await read_upload(
                path,
                kind,
                language,
                settings.document_max_bytes if document else self.max_upload_bytes,
                self.upload_roots,
                whole_max=settings.evidence_text_max,
                max_pages=settings.document_max_pages,
                capture_max_bytes=self.max_upload_bytes,  # a PDF's capture: a page's bound
                pool=self.parse_pool,
            )

        receipt = await self.receipts.upload(
            request,
            call.token_id,
            reader,
            lambda: check_upload(request.path, request.kind, self.upload_roots),
        )
        return retrieval_outcome(receipt, request.language)

    async def export_corpus(
        self,
        token: str | None,
        workspace_id: str,
        corpus_id: str,
        revision: int | None,
        out: IO[bytes],
        *,
        transport: Transport = "http",
        fixes: Fixes | None = None,
    ) -> ExportSummary:
        """Write a sealed corpus as WACZ to `out` (`open_export`, then its package), built
        in this process: a one-shot command has no other reader to keep waiting."""
        export = await self.open_export(
            token, workspace_id, corpus_id, revision, transport=transport, fixes=fixes,
            separate=False,
        )  # fmt: skip
        try:
            await anyio.to_thread.run_sync(export.package.write_to, out)
        finally:
            await export.aclose()
        return export.summary

    async def open_export(
        self,
        token: str | None,
        workspace_id: str,
        corpus_id: str,
        revision: int | None,
        *,
        transport: Transport = "http",
        fixes: Fixes | None = None,
        separate: bool = True,
    ) -> ServedExport:
        """A sealed corpus's WACZ, holding an export slot (in the workspace's turn, `busy`
        past its queue) until the caller's `aclose` (`export_slots.py`); its parts built
        in the heavy-read pool and, `separate` on a server, in a process of its own. The
        corpus is read through `sosoapi_research_corpora_get` first: authentication,
        permission, validation and not-found are that tool's, word for word. Cancelling
        the awaiting task (the client gone) leaves the queue or stops the build."""
        arguments: dict[str, Any] = {"workspace_id": workspace_id, "id": corpus_id}
        if revision is not None:
            arguments["revision"] = revision
        outcome = await self.call(
            f"{CORPORA}_get", token, arguments, transport=transport, fixes=fixes
        )
        snapshot = outcome.output.snapshot  # type: ignore[attr-defined]
        workspace, corpus_revision = str(snapshot.workspace_id), outcome.corpus_revision or 1
        build = functools.partial(self._build, workspace, snapshot, corpus_revision, separate)
        with answering_store_faults():
            return await self.export_slots.serve(workspace, build)

    async def _build(self, ws: str, snapshot: Snapshot, corpus_rev: int, separate: bool) -> Package:
        if separate and self.exports is not None:
            return await self.heavy.run_for(ws, never, self.exports.build, snapshot, corpus_rev)
        return await self.heavy.run_for(
            ws, never, build_package, self.store.evidence, self.store.captures, snapshot,
            corpus_rev,
        )  # fmt: skip

    async def _whoami(self, call: Call[WhoamiInput]) -> Outcome:
        principal = call.principal

        def load() -> WhoamiOutput:
            name = self.store.auth.user_name(principal.user_id) or ""
            workspaces = [
                WhoamiWorkspace(
                    id=w.id, name=w.name, role=role, research_enabled=w.research_enabled
                )
                for w, role in self.store.auth.memberships_of(principal.user_id)
            ]
            return WhoamiOutput(
                user_id=principal.user_id, user_name=name, token_id=principal.token_id,
                scopes=sorted(principal.scopes), workspaces=workspaces,
            )  # fmt: skip

        return Outcome(await anyio.to_thread.run_sync(load))
