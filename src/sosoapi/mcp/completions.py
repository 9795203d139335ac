"""`completion/complete` for the id-naming arguments of our templates and prompts.

Values come from the list tools run as the caller (`whoami`, `evidence_list`,
`corpora_list`, `projects_list`, `evidence_get`), so only what the permission check lets
the caller see is offered. A refusal (no token, not a member) completes to nothing.
MCP completes only resource templates and prompts; tool arguments have no reference form.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import mcp.types as types

from sosoapi.contract.errors import ServiceError
from sosoapi.contract.models import EvidenceGetOutput, EvidenceListOutput
from sosoapi.contract.projects import CorporaListOutput, ProjectListOutput, WhoamiOutput
from sosoapi.research.operation import Outcome

MAX_VALUES = 100  # the MCP specification's cap on one completion
MAX_PAGES = 5  # at most this many list pages are read for one completion
Caller = Callable[[str, dict[str, Any]], Awaitable[Outcome]]
P = "sosoapi_research_"


async def _pages(call: Caller, tool: str, workspace_id: str) -> list[Any]:
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        arguments: dict[str, Any] = {"workspace_id": workspace_id, "limit": 200}
        if cursor:
            arguments["cursor"] = cursor
        output = (await call(tool, arguments)).output
        assert isinstance(output, EvidenceListOutput | CorporaListOutput | ProjectListOutput)
        items += output.items
        cursor = output.next_cursor
        if not cursor:
            break
    return items


async def _revisions(call: Caller, ref: str, given: dict[str, str]) -> list[str]:
    workspace_id = given.get("workspace_id", "")
    if "/corpora/" in ref:
        corpus_id = given.get("corpus_id", "")
        items = await _pages(call, P + "corpora_list", workspace_id)
        latest = next((i.latest_revision for i in items if str(i.id) == corpus_id), 0)
    else:
        arguments = {"workspace_id": workspace_id, "evidence_id": given.get("evidence_id", "")}
        output = (await call(P + "evidence_get", arguments)).output
        assert isinstance(output, EvidenceGetOutput)
        latest = output.evidence.latest_revision
    return [str(r) for r in range(latest, 0, -1)]


async def candidates(call: Caller, ref: str, name: str, given: dict[str, str]) -> list[str]:
    """Every value of argument `name` the caller may see (before prefix matching)."""
    if name == "workspace_id":
        output = (await call("sosoapi_whoami", {})).output
        assert isinstance(output, WhoamiOutput)
        return [str(w.id) for w in output.workspaces]
    workspace_id = given.get("workspace_id")
    if not workspace_id:
        return []
    if name == "evidence_id":
        return [str(i.id) for i in await _pages(call, P + "evidence_list", workspace_id)]
    if name == "corpus_id":
        return [str(i.id) for i in await _pages(call, P + "corpora_list", workspace_id)]
    if name == "project_id":
        return [str(i.id) for i in await _pages(call, P + "projects_list", workspace_id)]
    if name == "revision":
        return await _revisions(call, ref, given)
    return []


async def complete(call: Caller, params: types.CompleteRequestParams) -> types.CompleteResult:
    ref = params.ref.uri if isinstance(params.ref, types.ResourceTemplateReference) else ""
    given = dict((params.context.arguments if params.context else None) or {})
    try:
        values = await candidates(call, ref, params.argument.name, given)
    except ServiceError:  # not signed in, not a member, no such item: nothing to offer
        values = []
    prefix = params.argument.value
    matched = [v for v in dict.fromkeys(values) if v.startswith(prefix)]
    return types.CompleteResult(
        completion=types.Completion(
            values=matched[:MAX_VALUES], total=len(matched), has_more=len(matched) > MAX_VALUES
        )
    )
