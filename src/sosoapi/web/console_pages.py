"""The console's workspace pages: each reads through `Review` (the tools and the one
permission check) and renders one template.

Where new pages go: add a method here, a row to `ConsolePages.table` and, for a page in
the workspace's navigation, a `NAV` entry in `console.py`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response

from sosoapi.auth.tokens import Principal
from sosoapi.contract.errors import ErrorCode, ServiceError, invalid_input
from sosoapi.contract.evidence_tools import SearchOutput
from sosoapi.contract.numbers import not_a_number, whole_number
from sosoapi.contract.projects import CorporaGetOutput, CorporaListOutput, ProjectOutput
from sosoapi.research.evidence.search import QUERY_RULES, parse_query
from sosoapi.research.operation import Outcome
from sosoapi.research.review.views import FILTERS, Review
from sosoapi.web.console_text import diff_pieces

PAGE_SIZE = 50
SEARCH_PAGE_SIZE = 20
SEARCH_FIELDS = ("q", "kind", "corpus")
Page = Callable[[Request, Principal], Awaitable[Response]]


class Render(Protocol):
    def __call__(
        self, request: Request, template: str, status: int = 200, **context: Any
    ) -> Response: ...


class ConsolePages:
    """The pages under /console/workspaces/{workspace_id}, bound to one `Review`."""

    def __init__(self, review: Review, render: Render) -> None:
        self.review = review
        self.render = render

    def table(self, ws: str) -> list[tuple[str, Page]]:
        """Each page's path under the workspace prefix `ws`, and its view."""
        return [
            (ws, self.overview),
            (ws + "/retrievals", self.retrievals),
            (ws + "/retrievals/{retrieval_id}", self.retrieval),
            (ws + "/evidence", self.evidence_list),
            (ws + "/evidence/{evidence_id}", self.evidence),
            (ws + "/evidence/{evidence_id}/diff", self.evidence_diff),
            (ws + "/search", self.search),
            (ws + "/projects", self.projects),
            (ws + "/projects/{project_id}", self.project),
            (ws + "/corpora", self.corpora),
            (ws + "/corpora/{corpus_id}", self.corpus),
        ]

    async def overview(self, request: Request, principal: Principal) -> Response:
        workspace_id = request.path_params["workspace_id"]
        overview = await self.review.overview(principal, workspace_id)
        return self._show(request, "overview.html", "overview", overview=overview)

    async def retrievals(self, request: Request, principal: Principal) -> Response:
        query = request.query_params
        chosen = {name: query.get(name, "") for name in (*FILTERS, "q")}
        page = await self.review.retrievals(
            principal,
            request.path_params["workspace_id"],
            chosen,
            query.get("cursor") or None,
            PAGE_SIZE,
        )
        kept = {k: v for k, v in chosen.items() if v}
        return self._show(
            request, "retrievals.html", "retrievals", page=page, chosen=chosen, kept=kept
        )

    async def retrieval(self, request: Request, principal: Principal) -> Response:
        retrieval = await self.review.retrieval(
            principal, request.path_params["workspace_id"], request.path_params["retrieval_id"]
        )
        return self._show(request, "retrieval.html", "retrievals", retrieval=retrieval)

    async def evidence_list(self, request: Request, principal: Principal) -> Response:
        outcome = await self._tool(request, principal, "sosoapi_research_evidence_list", cursor=1)
        return self._show(request, "evidence_list.html", "evidence", listing=outcome.output)

    async def evidence(self, request: Request, principal: Principal) -> Response:
        arguments = {
            "workspace_id": request.path_params["workspace_id"],
            "evidence_id": request.path_params["evidence_id"],
            "revision": _revision(request),
        }
        shown = await self.review.whole_evidence(
            principal, {k: v for k, v in arguments.items() if v is not None}
        )
        uses = await self.review.uses(principal, request.path_params["workspace_id"], str(shown.id))
        return self._show(request, "evidence.html", "evidence", evidence=shown, uses=uses)

    async def evidence_diff(self, request: Request, principal: Principal) -> Response:
        compared = await self.review.compare(
            principal,
            request.path_params["workspace_id"],
            request.path_params["evidence_id"],
            *_revision_pair(request),
        )
        return self._show(
            request,
            "evidence_diff.html",
            "evidence",
            diff=compared.diff,
            new=compared.new,
            pieces=diff_pieces(compared.diff.changes, compared.new.text),
        )

    async def search(self, request: Request, principal: Principal) -> Response:
        """The search form, and a page of results once there is a query."""
        chosen = {name: request.query_params.get(name, "").strip() for name in SEARCH_FIELDS}
        # the corpus choices; also the workspace's permission check when there is no query
        corpora = await self._tool(request, principal, "sosoapi_research_corpora_list")
        found, error = None, None
        if chosen["q"]:
            try:
                found = await self._search(request, principal, chosen)
            except ServiceError as refused:
                if refused.code != ErrorCode.INVALID_INPUT:
                    raise
                error = refused
        return self._show(
            request,
            "search.html",
            "search",
            status=400 if error else 200,
            chosen=chosen,
            kept={k: v for k, v in chosen.items() if v},
            corpora=corpora.of(CorporaListOutput).items,
            found=found,
            error=error,
            phrases=parse_query(chosen["q"]),
            query_rules=QUERY_RULES,
        )

    async def _search(
        self, request: Request, principal: Principal, chosen: dict[str, str]
    ) -> SearchOutput:
        outcome = await self._tool(
            request,
            principal,
            "sosoapi_research_evidence_search",
            cursor=1,
            query=chosen["q"],
            kind=chosen["kind"] or None,
            corpus_id=chosen["corpus"] or None,
            limit=SEARCH_PAGE_SIZE,
        )
        return outcome.of(SearchOutput)

    async def projects(self, request: Request, principal: Principal) -> Response:
        outcome = await self._tool(request, principal, "sosoapi_research_projects_list", cursor=1)
        return self._show(request, "projects.html", "projects", listing=outcome.output)

    async def project(self, request: Request, principal: Principal) -> Response:
        outcome = await self._tool(
            request,
            principal,
            "sosoapi_research_projects_get",
            project_id=request.path_params["project_id"],
        )
        project = outcome.of(ProjectOutput).project
        refs = [(str(s.evidence_id), None) for s in project.sources if s.evidence_id]
        names = await self.review.names(principal, request.path_params["workspace_id"], refs)
        return self._show(
            request,
            "project.html",
            "projects",
            project=project,
            names={ref[0]: named for ref, named in names.items()},
        )

    async def corpora(self, request: Request, principal: Principal) -> Response:
        outcome = await self._tool(request, principal, "sosoapi_research_corpora_list", cursor=1)
        listing = outcome.of(CorporaListOutput)
        titles = await self.review.project_titles(
            principal,
            request.path_params["workspace_id"],
            [str(item.project_id) for item in listing.items],
        )
        return self._show(request, "corpora.html", "corpora", listing=listing, titles=titles)

    async def corpus(self, request: Request, principal: Principal) -> Response:
        outcome = await self._tool(
            request,
            principal,
            "sosoapi_research_corpora_get",
            id=request.path_params["corpus_id"],
            revision=_revision(request),
        )
        snapshot = outcome.of(CorporaGetOutput).snapshot
        ws = request.path_params["workspace_id"]
        latest = outcome.corpus_revision
        if _revision(request) is not None:  # the switcher lists every revision to the latest
            newest = await self._tool(
                request, principal, "sosoapi_research_corpora_get", id=str(snapshot.id)
            )
            latest = newest.corpus_revision
        refs = [(str(r.evidence_id), r.revision) for r in snapshot.evidence]
        names = await self.review.names(principal, ws, refs)
        titles = await self.review.project_titles(principal, ws, [str(snapshot.project_id)])
        return self._show(
            request,
            "corpus.html",
            "corpora",
            snapshot=snapshot,
            revision=outcome.corpus_revision,
            latest=latest or outcome.corpus_revision,
            names={f"{ref[0]}:{ref[1]}": named for ref, named in names.items()},
            project_title=titles.get(str(snapshot.project_id)),
        )

    async def _tool(
        self, request: Request, principal: Principal, tool: str, cursor: int = 0, **arguments: Any
    ) -> Outcome:
        """A read tool in the page's workspace; `cursor` 1 passes the page's ?cursor= on."""
        arguments["workspace_id"] = request.path_params["workspace_id"]
        if cursor and request.query_params.get("cursor"):
            arguments["cursor"] = request.query_params["cursor"]
        wanted = {k: v for k, v in arguments.items() if v is not None}
        return await self.review.tool(principal, tool, wanted)

    def _show(
        self, request: Request, template: str, active: str, status: int = 200, **context: Any
    ) -> Response:
        return self.render(
            request, template, status, signed_in=True, active=active, **_ids(request), **context
        )


def _ids(request: Request) -> dict[str, Any]:
    return {"workspace_id": request.path_params.get("workspace_id")}


def _revision(request: Request, name: str = "revision") -> int | None:
    """A revision number from the query string, None when absent."""
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    revision = whole_number(raw, least=1)
    if revision is None:
        raise invalid_input(not_a_number(name, raw, least=1) + ".", name)
    return revision


def _revision_pair(request: Request) -> tuple[int, int]:
    """`from` and `to` of a diff page: both required, so the URL names what it shows."""
    old, new = _revision(request, "from"), _revision(request, "to")
    if old is None or new is None:
        name = "from" if old is None else "to"
        raise invalid_input(f"`{name}` is missing; name both revisions, e.g. ?from=1&to=2.", name)
    return old, new
