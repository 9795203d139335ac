"""The text `content` of each tool result: one line of our own fields, then fenced data.

The line is built only from fields we produced (state, status, reason, sizes, ids), never
from a page's title or text; everything third-party goes through `framing`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sosoapi.contract.models import CorporaGetOutput, RetrieveOutput, Wire
from sosoapi.mcp.framing import content_text

Parts = list[tuple[str, str]]
Presenter = Callable[[Any, int | None], tuple[str, Parts]]
_PRESENTERS: dict[type, Presenter] = {}


def presenter(model: type) -> Callable[[Presenter], Presenter]:
    def register(fn: Presenter) -> Presenter:
        _PRESENTERS[model] = fn
        return fn

    return register


def render(output: Wire, corpus_revision: int | None = None) -> str:
    line, parts = _PRESENTERS[type(output)](output, corpus_revision)
    return content_text(line, parts)


@presenter(RetrieveOutput)
def _retrieval(output: RetrieveOutput, _: int | None) -> tuple[str, Parts]:
    r = output.retrieval
    head = f"Retrieval {r.id} (mutation_id {r.mutation_id}): state {r.state}"
    if r.result is None:
        hint = {
            "pending": "call again with the same mutation_id to read the outcome.",
            "running": "call again with the same mutation_id to read the outcome.",
            "unconfirmed": "the outcome cannot be confirmed; retry with a new mutation_id.",
            "expired": "it never ran inside its window; retry with a new mutation_id.",
        }.get(r.state, "")
        return f"{head}; {hint}", []
    res = r.result
    line = (
        f"{head}; status {res.status}, reason {res.reason or 'none'}; "
        f"text {len(res.text)} characters, {len(res.segments)} segments"
    )
    if res.warnings:
        line += f"; warnings {', '.join(res.warnings)}"
    if res.retry_after_seconds:
        line += f"; retry after {res.retry_after_seconds} s"
    if r.evidence:
        line += f"; evidence {r.evidence.evidence_id} revision {r.evidence.revision}"
    parts = [
        ("title", res.title or ""),
        ("description", res.description or ""),
        ("text", res.text),
    ]
    return line + ".", parts


@presenter(CorporaGetOutput)
def _corpus(output: CorporaGetOutput, revision: int | None) -> tuple[str, Parts]:
    s = output.snapshot
    line = (
        f"Corpus {s.id} revision {revision}: coverage {s.coverage}, {len(s.evidence)} evidence "
        f"references, project {s.project_id} at revision {s.project_revision}, "
        f"{len(s.missing_sources)} missing-source notes."
    )
    return line, [("missing_sources", "\n".join(s.missing_sources))]
