"""`sosoapi evidence search|quote|diff`: the read-only evidence tools from a shell, JSON out."""

from __future__ import annotations

import click

from sosoapi.cli.operations import WORKSPACE, _workspace_call, evidence

KINDS = click.Choice(["url_text", "published_captions"])


@evidence.command("search")
@click.argument("query")
@WORKSPACE
@click.option("--corpus", "corpus_id", default=None, help="search only what this corpus pins")
@click.option("--corpus-revision", type=int, default=None)
@click.option("--kind", type=KINDS, default=None)
@click.option("--limit", type=int, default=None, help="1-50, default 10")
@click.option("--cursor", default=None)
def evidence_search(
    query: str,
    workspace_id: str | None,
    corpus_id: str | None,
    corpus_revision: int | None,
    kind: str | None,
    limit: int | None,
    cursor: str | None,
) -> None:
    """Full-text search; words must all occur, "quoted phrases" as phrases."""
    _workspace_call(
        "sosoapi_research_evidence_search",
        workspace_id,
        {
            "query": query,
            "corpus_id": corpus_id,
            "corpus_revision": corpus_revision,
            "kind": kind,
            "limit": limit,
            "cursor": cursor,
        },
    )


@evidence.command("quote")
@click.argument("evidence_id")
@click.argument("text")
@WORKSPACE
@click.option("--revision", type=int, default=None, help="default: the latest")
def evidence_quote(
    evidence_id: str, text: str, workspace_id: str | None, revision: int | None
) -> None:
    """Does TEXT occur in the evidence: exact, normalized, approximate or absent?"""
    _workspace_call(
        "sosoapi_research_evidence_quote",
        workspace_id,
        {"evidence_id": evidence_id, "quote": text, "revision": revision},
    )


@evidence.command("diff")
@click.argument("evidence_id")
@WORKSPACE
@click.option("--from", "from_revision", type=int, required=True)
@click.option("--to", "to_revision", type=int, default=None, help="default: the latest")
def evidence_diff(
    evidence_id: str, workspace_id: str | None, from_revision: int, to_revision: int | None
) -> None:
    """What changed between two revisions, word by word."""
    _workspace_call(
        "sosoapi_research_evidence_diff",
        workspace_id,
        {"evidence_id": evidence_id, "from_revision": from_revision, "to_revision": to_revision},
    )
