"""The text `content` of each tool result: one line of our own fields, then fenced data.

The line is built only from fields we produced (state, status, reason, sizes, ids), never
from a page's title or text; everything third-party goes through `framing`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sosoapi.contract.documents import RECEIPT_OUTPUTS, AnyResult, DocumentResult, ReceiptOutput
from sosoapi.contract.evidence_tools import DiffOutput, PageRef, QuoteOutput, SearchOutput
from sosoapi.contract.guidance import advice
from sosoapi.contract.models import EvidenceGetOutput, EvidenceListOutput, Wire
from sosoapi.contract.projects import (
    CorporaGetOutput,
    CorporaListOutput,
    ProjectListOutput,
    ProjectOutput,
    SealOutput,
    WhoamiOutput,
)
from sosoapi.contract.vocabulary import Reason
from sosoapi.extract.language import LanguageMatch
from sosoapi.mcp.framing import content_text

Parts = list[tuple[str, str]]
Presenter = Callable[[Any, int | None], tuple[str, Parts]]
_PRESENTERS: dict[type, Presenter] = {}


def presenter(model: type) -> Callable[[Presenter], Presenter]:
    def register(fn: Presenter) -> Presenter:
        _PRESENTERS[model] = fn
        return fn

    return register


def render(
    output: Wire,
    corpus_revision: int | None = None,
    requested_url: str | None = None,
    language_match: LanguageMatch | None = None,
    cause: str | None = None,
) -> str:
    """The MCP `content` text: our line, then the third-party parts fenced."""
    return content_text(*summary(output, corpus_revision, requested_url, language_match, cause))


def summary(
    output: Wire,
    corpus_revision: int | None = None,
    requested_url: str | None = None,
    language_match: LanguageMatch | None = None,
    cause: str | None = None,
) -> tuple[str, Parts]:
    """Our one line and the third-party parts, unfenced: `render` fences them for a model,
    the CLI prints them for a person. `cause`: which cause of a receipt's reason it was."""
    if isinstance(output, RECEIPT_OUTPUTS):
        return _retrieval(output, requested_url, language_match, cause)
    return _PRESENTERS[type(output)](output, corpus_revision)


def _retrieval(
    output: ReceiptOutput,
    requested_url: str | None,
    language_match: LanguageMatch | None,
    cause: str | None,
) -> tuple[str, Parts]:
    """The source URL named first (ours, never the page's words); when not ready, the
    reason's meaning and the next step in one sentence from the shared table."""
    r = output.retrieval
    source = (r.result.provenance.source_url if r.result else None) or requested_url
    head = f"Retrieval {r.id} of {source or 'an uploaded file'} (mutation_id {r.mutation_id})"
    head += f": state {r.state}"
    if r.result is None:
        return f"{head}. {advice(None, r.state)}".rstrip(), []
    res = r.result
    line = f"{head}; status {res.status}, reason {res.reason or 'none'}; " + _sizes(res)
    if res.warnings:
        line += f"; warnings {', '.join(res.warnings)}"
    if language_match is not None:  # tags are validated BCP 47 shapes, not free text
        found = language_match
        line += f"; language {found.asked} matched {found.matched} by {found.by}"
    if res.retry_after_seconds:
        line += f"; retry after {res.retry_after_seconds} s"
    if r.evidence:
        line += f"; evidence {r.evidence.evidence_id} revision {r.evidence.revision}"
        cut = {Reason.TEXT_LIMITED, Reason.CUES_LIMITED} & {res.reason, *res.warnings}
        if cut:
            line += (
                f". This text is the first {len(res.text)} characters; the evidence keeps the "
                f"whole text and cues: read on with sosoapi_research_evidence_get (evidence_id "
                f"{r.evidence.evidence_id}, offset {len(res.text)}), then each answer's "
                "next_offset until it is null"
            )
    if res.status != "ready":
        line += ". " + advice(res.reason, r.state, res.retry_after_seconds, cause)
        line = line.removesuffix(".")
    parts = [
        ("title", res.title or ""),
        ("description", res.description or ""),
        ("text", res.text),
    ]
    return line + ".", parts


def _sizes(result: AnyResult) -> str:
    """A page's text and cues, or a document's text and pages (and which need OCR)."""
    if not isinstance(result, DocumentResult):
        return f"text {len(result.text)} characters, {len(result.segments)} segments"
    line = f"text {len(result.text)} characters, {result.page_count} pages"
    scanned = [page.number for page in result.pages if not page.has_text]
    if scanned and result.status in ("partial", "empty"):
        named = ", ".join(map(str, scanned[:20])) + (", …" if len(scanned) > 20 else "")
        line += f" (without a text layer: {named})"
    return line


@presenter(CorporaGetOutput)
def _corpus(output: CorporaGetOutput, revision: int | None) -> tuple[str, Parts]:
    s = output.snapshot
    line = (
        f"Corpus {s.id} revision {revision}: coverage {s.coverage}, {len(s.evidence)} evidence "
        f"references, project {s.project_id} at revision {s.project_revision}, "
        f"{len(s.missing_sources)} missing-source notes."
    )
    return line, [("missing_sources", "\n".join(s.missing_sources))]


def _snapshot_line(
    output: CorporaGetOutput | SealOutput, revision: int | None
) -> tuple[str, Parts]:
    return _corpus(CorporaGetOutput(snapshot=output.snapshot), revision)


@presenter(SealOutput)
def _sealed(output: SealOutput, revision: int | None) -> tuple[str, Parts]:
    line, parts = _snapshot_line(output, output.revision)
    return "Sealed. " + line, parts


def _page_line(count: int, noun: str, next_cursor: str | None) -> str:
    more = "more with next_cursor" if next_cursor else "no more pages"
    return f"{count} {noun} ({more})"


@presenter(EvidenceGetOutput)
def _evidence(output: EvidenceGetOutput, _: int | None) -> tuple[str, Parts]:
    e = output.evidence
    line = (
        f"Evidence {e.id} revision {e.revision} of {e.latest_revision} ({e.kind}): "
        f"text {len(e.text)} characters from offset {e.offset} of {e.total_length}, "
        f"{len(e.segments)} segments, digest {e.content_digest}; "
        + (
            f"read on with offset {e.next_offset}."
            if e.next_offset is not None
            else "this window reaches the end of the text."
        )
    )
    return line, [("title", e.title or ""), ("description", e.description or ""), ("text", e.text)]


@presenter(EvidenceListOutput)
def _evidence_list(output: EvidenceListOutput, _: int | None) -> tuple[str, Parts]:
    line = _page_line(len(output.items), "evidence items", output.next_cursor) + "."
    titles = "\n".join(
        _named(i.id, i.latest_revision, i.kind, i.source_url, i.title) for i in output.items
    )
    return line, [("titles", titles)]


def _named(
    evidence_id: object, revision: int, kind: str, source_url: str | None, title: str | None
) -> str:
    """One evidence as a reader tells it apart: its kind and source (or that it was
    uploaded), then its title; a caption file or an upload has none."""
    source = source_url or "an uploaded file"
    return f"{evidence_id} r{revision} {kind} {source}: {title or '(no title)'}"


@presenter(ProjectOutput)
def _project(output: ProjectOutput, _: int | None) -> tuple[str, Parts]:
    p = output.project
    refs = sum(1 for s in p.sources if s.kind == "evidence")
    notes = [s.note for s in p.sources if s.note]
    line = (
        f"Project {p.id} revision {p.revision}: {refs} evidence references, "
        f"{len(notes)} missing-source notes."
    )
    return line, [("title", p.title), ("missing_notes", "\n".join(notes))]


@presenter(ProjectListOutput)
def _project_list(output: ProjectListOutput, _: int | None) -> tuple[str, Parts]:
    line = _page_line(len(output.items), "projects", output.next_cursor) + "."
    titles = "\n".join(f"{i.id} r{i.revision}: {i.title}" for i in output.items)
    return line, [("titles", titles)]


@presenter(CorporaListOutput)
def _corpus_list(output: CorporaListOutput, _: int | None) -> tuple[str, Parts]:
    rows = "; ".join(
        f"{i.id} r{i.latest_revision} {i.coverage} {i.evidence_count} items" for i in output.items
    )
    return f"{_page_line(len(output.items), 'corpora', output.next_cursor)}: {rows}", []


@presenter(WhoamiOutput)
def _whoami(output: WhoamiOutput, _: int | None) -> tuple[str, Parts]:
    spaces = "; ".join(f"{w.id} ({w.role})" for w in output.workspaces)
    line = (
        f"User {output.user_id}, token {output.token_id}, scopes "
        f"{' '.join(output.scopes) or 'none'}; workspaces: {spaces or 'none'}."
    )
    return line, []


def printed(number: int, label: str | None) -> str | None:
    """A PDF page's label when it tells a reader more than its number ("iv" for page 4)."""
    return label if label and label != str(number) else None


def _on_page(page: PageRef | None) -> str:
    """A PDF span's page as the text content says it ("page 4 (printed iv)"), with a
    leading space; nothing for other evidence."""
    if page is None:
        return ""
    label = printed(page.number, page.label)
    return f" page {page.number}" + (f" (printed {label})" if label else "")


@presenter(SearchOutput)
def _search(output: SearchOutput, _: int | None) -> tuple[str, Parts]:
    line = _page_line(len(output.results), "results", output.next_cursor)
    rows = "; ".join(f"{r.evidence_id} r{r.revision} score {r.score:g}" for r in output.results)
    snippets = "\n".join(
        f"{r.evidence_id} r{r.revision} "
        f"{'description ' if s.field == 'description' else ''}[{s.start}:{s.end}]"
        f"{_on_page(s.page)} {s.text}"
        for r in output.results
        for s in r.snippets
    )
    titles = "\n".join(
        _named(r.evidence_id, r.revision, r.kind, r.source_url, r.title) for r in output.results
    )
    return f"{line}: {rows or 'no matches'}.", [("titles", titles), ("snippets", snippets)]


@presenter(QuoteOutput)
def _quote(output: QuoteOutput, _: int | None) -> tuple[str, Parts]:
    found = output.matches or ([output.closest] if output.closest else [])
    where = "; ".join(
        f"{m.evidence_id} r{m.revision} [{m.start}:{m.end}]{_on_page(m.page)} "
        f"similarity {m.similarity:g}"
        for m in found
    )
    label = "closest" if not output.matches and output.closest else "matches"
    line = f"Verdict {output.verdict}: {len(output.matches)} matches"
    line += f"; {label}: {where}." if where else "."
    passages = "\n".join(f"[{m.start}:{m.end}] {m.text}" for m in found)
    differs = "\n".join(
        f"[{d.start}:{d.end}] quote {d.quote!r}, source {d.text!r}"
        for m in found
        for d in m.differences
    )
    return line, [("passages", passages), ("differences", differs)]


@presenter(DiffOutput)
def _diff(output: DiffOutput, _: int | None) -> tuple[str, Parts]:
    st = output.stats
    line = (
        f"Evidence {output.evidence_id} revision {output.from_revision} -> "
        f"{output.to_revision}: {len(output.changes)} changes, {st.chars_added} characters "
        f"added, {st.chars_removed} removed, unchanged ratio {st.unchanged_ratio:g}"
    )
    if output.segment_changes is not None:
        line += f"; {len(output.segment_changes)} caption segment changes"
    changed = [
        n
        for n, c in (("title", output.title_change), ("description", output.description_change))
        if c
    ]
    line += f"; {' and '.join(changed)} changed." if changed else "."
    changes = "\n".join(
        f"{c.op} [{c.from_start}:{c.from_end}]->[{c.to_start}:{c.to_end}]"
        f"{_on_page(c.to_page or c.from_page)} "
        f"{c.from_text!r} -> {c.to_text!r}"
        for c in output.changes
    )
    fields = "\n".join(
        f"{name}: {c.from_text!r} -> {c.to_text!r}"
        for name, c in (("title", output.title_change), ("description", output.description_change))
        if c
    )
    return line, [("changes", changes), ("fields", fields)]
