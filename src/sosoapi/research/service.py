"""The research operations behind every surface: authenticate, validate, authorise, act.

MCP, HTTP and the CLI all call `ResearchService.call` with a tool name, the bearer token
and raw JSON arguments, so every rule (input validation against the contract, the one
permission check, idempotency) is written once and the transports only translate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import anyio

from sosoapi.auth.permission import Access, Guard
from sosoapi.auth.tokens import Principal
from sosoapi.contract.errors import not_found
from sosoapi.contract.models import RetrieveInput, UploadInput, WhoamiOutput, WhoamiWorkspace
from sosoapi.contract.schemas import tool as contract_of
from sosoapi.contract.schemas import validate_input
from sosoapi.research.corpora import CorpusService
from sosoapi.research.evidence_read import EvidenceReader
from sosoapi.research.faults import answering_store_faults
from sosoapi.research.operation import Call, Operation, Outcome
from sosoapi.research.projects import ProjectService
from sosoapi.research.receipts import ReceiptService, utcnow
from sosoapi.research.uploads import check_upload, read_upload
from sosoapi.store.store import Store

Transport = Literal["stdio", "http"]


class ResearchService:
    def __init__(
        self,
        store: Store,
        guard: Guard,
        receipts: ReceiptService,
        *,
        max_upload_bytes: int,
        upload_roots: Sequence[Path] = (),
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.store = store
        self.guard = guard
        self.receipts = receipts
        self.max_upload_bytes = max_upload_bytes
        self.upload_roots = tuple(upload_roots)
        projects = ProjectService(store, clock)
        corpora = CorpusService(store, clock)
        evidence = EvidenceReader(store)
        self.operations: dict[str, Operation] = {}
        for operation in (
            Operation("sosoapi_research_evidence_retrieve", "write", self._retrieve),
            Operation("sosoapi_research_evidence_upload", "write", self._upload),
            Operation("sosoapi_research_evidence_get", "read", evidence.get),
            Operation("sosoapi_research_evidence_list", "read", evidence.list_page),
            Operation("sosoapi_research_projects_create", "write", projects.create),
            Operation("sosoapi_research_projects_get", "read", projects.get),
            Operation("sosoapi_research_projects_list", "read", projects.list_page),
            Operation("sosoapi_research_projects_update", "write", projects.update),
            Operation("sosoapi_research_projects_add_sources", "write", projects.add_sources),
            Operation("sosoapi_research_projects_remove_sources", "write", projects.remove_sources),
            Operation("sosoapi_research_corpora_seal", "write", corpora.seal),
            Operation("sosoapi_research_corpora_get", "read", corpora.get),
            Operation("sosoapi_research_corpora_list", "read", corpora.list_page),
            Operation("sosoapi_whoami", None, self._whoami),
        ):
            self.operations[operation.tool] = operation

    async def authenticate(self, token: str | None) -> Principal:
        with answering_store_faults():
            return await anyio.to_thread.run_sync(self.guard.authenticate, token, utcnow())

    async def call(
        self,
        tool: str,
        token: str | None,
        arguments: Any,
        cancel_requested: Callable[[], bool] = lambda: False,
        *,
        transport: Transport = "http",
    ) -> Outcome:
        """Authenticate, validate, authorise and run `tool`; raise `ServiceError` if no result."""
        operation = self.operations.get(tool)
        if operation is None or transport not in contract_of(tool)["transports"]:
            raise not_found(
                f"Unknown tool `{tool}` on {transport}; list the tools this server offers."
            )
        with answering_store_faults():
            principal, access, arguments = await anyio.to_thread.run_sync(
                self._admit, operation, token, arguments
            )
            return await operation.handler(Call(principal, access, arguments, cancel_requested))

    def _admit(
        self, operation: Operation, token: str | None, arguments: Any
    ) -> tuple[Principal, Access | None, dict[str, Any]]:
        """The checks of SPEC section 3 in order, input validation after authentication."""
        principal = self.guard.authenticate(token, utcnow())
        arguments = validate_input(operation.tool, arguments)
        if operation.action is None:
            return principal, None, arguments
        access, _ = self.guard.check(principal, arguments["workspace_id"].lower(), operation.action)
        return principal, access, arguments

    async def _retrieve(self, call: Call) -> Outcome:
        request = RetrieveInput.model_validate(call.arguments)
        output = await self.receipts.retrieve(request, call.token_id, call.cancel_requested)
        return Outcome(output)

    async def _upload(self, call: Call) -> Outcome:
        request = UploadInput.model_validate(call.arguments)

        async def reader(kind: str, path: str, language: str | None):
            return await read_upload(path, kind, language, self.max_upload_bytes)

        output = await self.receipts.upload(
            request,
            call.token_id,
            reader,
            lambda: check_upload(request.path, request.kind, self.upload_roots),
        )
        return Outcome(output)

    async def _whoami(self, call: Call) -> Outcome:
        principal = call.principal

        def load() -> WhoamiOutput:
            name = self.store.auth.user_name(principal.user_id) or ""
            workspaces = [
                WhoamiWorkspace(
                    id=w.id,
                    name=w.name,
                    role=role,
                    research_enabled=w.research_enabled,  # type: ignore[arg-type]
                )
                for w, role in self.store.auth.memberships_of(principal.user_id)
            ]
            return WhoamiOutput(
                user_id=principal.user_id,
                user_name=name,
                token_id=principal.token_id,
                scopes=sorted(principal.scopes),
                workspaces=workspaces,
            )

        return Outcome(await anyio.to_thread.run_sync(load))
