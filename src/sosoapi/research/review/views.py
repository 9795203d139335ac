"""The review console's read-only views of a workspace.

Every view runs the same permission check as the tools: the published read tools are
called through `ResearchService.call_as`, and the console-only views (counts, the
retrievals table) pass `Guard.check(..., "read")` first. Nothing here widens access.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anyio
from pydantic import ValidationError

from sosoapi.auth.errors import AuthRefused
from sosoapi.auth.permission import Access
from sosoapi.auth.tokens import Principal
from sosoapi.contract.documents import DocumentRetrieval, result_model
from sosoapi.contract.errors import invalid_input, not_found
from sosoapi.contract.evidence_tools import DiffOutput
from sosoapi.contract.models import Evidence, EvidenceGetOutput, PageInput, Retrieval
from sosoapi.contract.vocabulary import Reason, State, Status
from sosoapi.research.operation import Call, Outcome
from sosoapi.research.paging import read_page
from sosoapi.research.retrieval.contract_receipt import receipt_of
from sosoapi.research.service import ResearchService
from sosoapi.store.records import (
    EvidenceUses,
    RetrievalFilter,
    RetrievalRecord,
    WorkspaceCounts,
)

LATEST = 10
FILTERS: dict[str, tuple[str, ...]] = {
    "state": tuple(State),
    "status": tuple(Status),
    "reason": tuple(Reason),
}


@dataclass(frozen=True, slots=True)
class RetrievalRow:
    """A receipt as the contract shows it, with the URL that was asked for."""

    url: str
    receipt: Retrieval | DocumentRetrieval


@dataclass(frozen=True, slots=True)
class Overview:
    counts: WorkspaceCounts
    latest: list[RetrievalRow]


@dataclass(frozen=True, slots=True)
class RetrievalPage:
    items: list[RetrievalRow]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class Named:
    """What a person tells an evidence revision by: its title, source and kind."""

    title: str | None
    source_url: str | None
    kind: str


@dataclass(frozen=True, slots=True)
class Comparison:
    """The diff tool's answer, and the revision it compares to: the changes carry only
    the changed text, so the unchanged text around them comes from `new`."""

    diff: DiffOutput
    new: Evidence


def _row(record: RetrievalRecord) -> RetrievalRow:
    return RetrievalRow(record.url, receipt_of(record).output.retrieval)


MAX_URL_FILTER = 500


def parse_filter(raw: dict[str, str]) -> RetrievalFilter:
    """Empty means "any"; anything else must be one of the contract's values; `q` is text
    the asked URL must hold."""
    chosen: dict[str, str | None] = {}
    text = (raw.get("q") or "").strip()
    if len(text) > MAX_URL_FILTER:
        raise invalid_input(
            f"`q` is {len(text)} characters; search for at most {MAX_URL_FILTER}.", "q"
        )
    chosen["url_contains"] = text or None
    for name, allowed in FILTERS.items():
        value = (raw.get(name) or "").strip() or None
        if value is not None and value not in allowed:
            raise invalid_input(
                f"`{name}` {value!r} is not a known {name}; use one of {', '.join(allowed)}.",
                name,
            )
        chosen[name] = value
    return RetrievalFilter(**chosen)


class Review:
    def __init__(self, research: ResearchService) -> None:
        self.research = research
        self.rows = research.store.review

    async def tool(self, principal: Principal, tool: str, arguments: dict[str, Any]) -> Outcome:
        """A published read tool, exactly as an agent with the same token would call it."""
        return await self.research.call_as(principal, tool, arguments)

    async def whole_evidence(self, principal: Principal, arguments: dict[str, Any]) -> Evidence:
        """One revision with its whole text and cues, read window by window through the get
        tool (for people's pages only: the copy holds more than one answer may carry)."""
        first = (await self.tool(principal, "sosoapi_research_evidence_get", arguments)).of(
            EvidenceGetOutput
        )
        e = first.evidence
        parts, cues, offset = [e.text], list(e.segments), e.next_offset
        pages = {p.number: p for p in e.pages or []}  # a PDF's, each once
        while offset is not None:
            more = await self.tool(
                principal,
                "sosoapi_research_evidence_get",
                {**arguments, "revision": e.revision, "offset": offset},
            )
            window = more.of(EvidenceGetOutput).evidence
            parts.append(window.text)
            cues += [c for c in window.segments if not cues or c != cues[-1]]
            pages |= {p.number: p for p in window.pages or []}
            offset = window.next_offset
        whole: dict[str, object] = {"text": "".join(parts), "segments": cues, "next_offset": None}
        if e.pages is not None:
            whole["pages"] = list(pages.values())
        return e.model_copy(update=whole)

    async def compare(
        self,
        principal: Principal,
        workspace_id: str,
        evidence_id: str,
        from_revision: int,
        to_revision: int,
    ) -> Comparison:
        """Two revisions of one evidence compared, through the diff and get tools."""
        ids = {"workspace_id": workspace_id, "evidence_id": evidence_id}
        diff = (
            await self.tool(
                principal,
                "sosoapi_research_evidence_diff",
                {**ids, "from_revision": from_revision, "to_revision": to_revision},
            )
        ).of(DiffOutput)
        new = await self.whole_evidence(principal, {**ids, "revision": diff.to_revision})
        return Comparison(diff, new)

    async def names(
        self, principal: Principal, workspace_id: str, refs: Sequence[tuple[str, int | None]]
    ) -> dict[tuple[str, int | None], Named]:
        """Title, source and kind of each (evidence id, revision or None for the latest) in
        the workspace the read check admits; a reference it cannot find is left out."""
        access = await self._read(principal, workspace_id)
        evidence = self.research.store.evidence

        def load() -> dict[tuple[str, int | None], Named]:
            found: dict[tuple[str, int | None], Named] = {}
            for ref in dict.fromkeys(refs):
                record = evidence.revision(access.workspace.id, ref[0], ref[1])
                if record is not None:
                    content = result_model(record.kind).model_validate_json(record.content)
                    url = content.provenance.source_url
                    found[ref] = Named(content.title, url, record.kind)
            return found

        return await anyio.to_thread.run_sync(load)

    async def uses(self, principal: Principal, workspace_id: str, evidence_id: str) -> EvidenceUses:
        """The projects and sealed corpus revisions of the workspace that use the evidence."""
        access = await self._read(principal, workspace_id)
        return await anyio.to_thread.run_sync(
            self.rows.uses, access.workspace.id, evidence_id.lower()
        )

    async def project_titles(
        self, principal: Principal, workspace_id: str, ids: list[str]
    ) -> dict[str, str]:
        """Each project's title, to show beside its id (corpora name their project)."""
        access = await self._read(principal, workspace_id)
        projects = self.research.store.projects

        def load() -> dict[str, str]:
            rows = {i: projects.get(access.workspace.id, i) for i in dict.fromkeys(ids)}
            return {i: row.title for i, row in rows.items() if row is not None}

        return await anyio.to_thread.run_sync(load)

    async def overview(self, principal: Principal, workspace_id: str) -> Overview:
        access = await self._read(principal, workspace_id)
        counts = await anyio.to_thread.run_sync(self.rows.counts, access.workspace.id)
        latest = await self._page(access, RetrievalFilter(), None, LATEST)
        return Overview(counts, latest.items)

    async def retrievals(
        self,
        principal: Principal,
        workspace_id: str,
        raw_filter: dict[str, str],
        cursor: str | None,
        limit: int,
    ) -> RetrievalPage:
        """Newest first, filtered by state, status and reason."""
        access = await self._read(principal, workspace_id)
        return await self._page(access, parse_filter(raw_filter), cursor, limit)

    async def _page(
        self, access: Access, where: RetrievalFilter, cursor: str | None, limit: int
    ) -> RetrievalPage:
        try:
            page = PageInput(workspace_id=access.workspace.id, cursor=cursor, limit=limit)
        except ValidationError:
            raise invalid_input(
                "`cursor` was not issued by this server; follow the page's own links.", "cursor"
            ) from None
        call = Call(access.principal, access, page, page.wire(), lambda: False)
        rows, next_cursor = await read_page(call, self.rows.retrievals_page, where=where)
        return RetrievalPage([_row(r) for r in rows], next_cursor)

    async def retrieval(
        self, principal: Principal, workspace_id: str, retrieval_id: str
    ) -> RetrievalRow:
        access = await self._read(principal, workspace_id)
        record = await anyio.to_thread.run_sync(
            self.rows.retrieval, access.workspace.id, retrieval_id.lower()
        )
        if record is None:
            raise not_found(
                f"retrieval {retrieval_id} was not found in workspace {access.workspace.id}; "
                "open the retrievals table to find it."
            )
        return _row(record)

    async def _read(self, principal: Principal, workspace_id: str) -> Access:
        """The tools' permission check for reading `workspace_id`."""
        try:
            return await anyio.to_thread.run_sync(
                self.research.guard.check, principal, workspace_id.lower(), "read"
            )
        except AuthRefused as refused:
            raise refused.service_error() from None
