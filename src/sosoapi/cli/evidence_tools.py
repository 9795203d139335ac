"""`sosoapi evidence search|quote|diff`: the read-only evidence tools from a shell."""

from __future__ import annotations

import click

from sosoapi.cli.common import json_option
from sosoapi.cli.operations import CURSOR, WORKSPACE, _workspace_call, evidence

KINDS = click.Choice(["url_text", "published_captions"])


@evidence.command("search")
@click.argument("query")
@WORKSPACE
@click.option("--corpus", "corpus_id", default=None, help="search only what this corpus pins")
@click.option("--corpus-revision", type=int, default=None, help="with --corpus: default the latest")
@click.option("--kind", type=KINDS, default=None, help="only this kind of evidence")
@click.option("--limit", type=int, default=None, help="results per page, 1-50 (default 10)")
@CURSOR
@json_option
def evidence_search(
    query: str,
    workspace_id: str | None,
    corpus_id: str | None,
    corpus_revision: int | None,
    kind: str | None,
    limit: int | None,
    cursor: str | None,
    as_json: bool,
) -> None:
    """Full-text search for QUERY; words must all occur, "quoted phrases" as phrases."""
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
        as_json,
    )


@evidence.command("quote")
@click.argument("words", nargs=-1, required=True, metavar="[EVIDENCE_ID] TEXT")
@WORKSPACE
@click.option("--revision", type=int, default=None, help="with EVIDENCE_ID: default the latest")
@click.option(
    "--corpus",
    "corpus_id",
    default=None,
    help="check TEXT against every evidence revision this corpus pins (no EVIDENCE_ID)",
)
@click.option("--corpus-revision", type=int, default=None, help="with --corpus: default the latest")
@json_option
def evidence_quote(
    words: tuple[str, ...],
    workspace_id: str | None,
    revision: int | None,
    corpus_id: str | None,
    corpus_revision: int | None,
    as_json: bool,
) -> None:
    """Does TEXT occur in evidence EVIDENCE_ID (or in a corpus, with --corpus): exact,
    normalized, approximate or absent?"""
    if corpus_id is not None:
        if len(words) != 1:
            raise click.UsageError(
                "with --corpus give TEXT alone: sosoapi evidence quote --corpus ID TEXT"
            )
        evidence_id, text = None, words[0]
    elif len(words) == 2:
        evidence_id, text = words
    else:
        raise click.UsageError("give EVIDENCE_ID and TEXT, or --corpus ID and TEXT")
    _workspace_call(
        "sosoapi_research_evidence_quote",
        workspace_id,
        {
            "evidence_id": evidence_id,
            "quote": text,
            "revision": revision,
            "corpus_id": corpus_id,
            "corpus_revision": corpus_revision,
        },
        as_json,
    )


@evidence.command("diff")
@click.argument("evidence_id")
@WORKSPACE
@click.option("--from", "from_revision", type=int, required=True, help="the older revision")
@click.option("--to", "to_revision", type=int, default=None, help="default: the latest")
@json_option
def evidence_diff(
    evidence_id: str,
    workspace_id: str | None,
    from_revision: int,
    to_revision: int | None,
    as_json: bool,
) -> None:
    """What changed in evidence EVIDENCE_ID between two revisions, word by word."""
    _workspace_call(
        "sosoapi_research_evidence_diff",
        workspace_id,
        {"evidence_id": evidence_id, "from_revision": from_revision, "to_revision": to_revision},
        as_json,
    )
