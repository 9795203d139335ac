"""`sosoapi evidence`: read evidence, upload a local file as evidence, and the read-only
evidence tools (search, quote, diff)."""

from __future__ import annotations

from pathlib import Path

import click

from sosoapi.cli.calls import (
    CURSOR,
    KIND_HELP,
    KINDS,
    LANGUAGE_HELP,
    MUTATION,
    WORKSPACE,
    chosen_mutation,
    workspace_call,
)
from sosoapi.cli.common import json_option, main


@main.group()
def evidence() -> None:
    """Read evidence, or upload a local file as evidence."""


@evidence.command("get")
@click.argument("evidence_id")
@WORKSPACE
@click.option("--revision", type=int, default=None, help="default: the latest revision")
@click.option("--offset", type=int, default=None, help="read on from here (a previous next_offset)")
@click.option("--length", type=int, default=None, help="at most this many characters (20000)")
@json_option
def evidence_get(
    evidence_id: str,
    workspace_id: str | None,
    revision: int | None,
    offset: int | None,
    length: int | None,
    as_json: bool,
) -> None:
    """Show evidence EVIDENCE_ID: a window of its text (or caption cues) at one revision."""
    workspace_call(
        "sosoapi_research_evidence_get",
        workspace_id,
        {"evidence_id": evidence_id, "revision": revision, "offset": offset, "length": length},
        as_json,
    )


@evidence.command("list")
@WORKSPACE
@click.option(
    "--kind",
    type=KINDS,
    default=None,
    help="only this kind of evidence",
)
@click.option("--language", default=None, help="only evidence in this language (BCP 47)")
@CURSOR
@json_option
def evidence_list(
    workspace_id: str | None,
    kind: str | None,
    language: str | None,
    cursor: str | None,
    as_json: bool,
) -> None:
    """List the workspace's evidence, newest first."""
    workspace_call(
        "sosoapi_research_evidence_list",
        workspace_id,
        {"kind": kind, "language": language, "cursor": cursor},
        as_json,
    )


@evidence.command("upload")
@click.argument("path")
@WORKSPACE
@MUTATION
@click.option(
    "--kind",
    type=KINDS,
    required=True,
    help=KIND_HELP,
)
@click.option("--language", default=None, help=LANGUAGE_HELP)
@json_option
def evidence_upload(
    path: str,
    workspace_id: str | None,
    mutation_id: str | None,
    kind: str,
    language: str | None,
    as_json: bool,
) -> None:
    """Read the local .vtt, .srt, .txt, .html or .pdf file PATH as evidence (exit codes as
    `retrieve`)."""
    workspace_call(
        "sosoapi_research_evidence_upload",
        workspace_id,
        {
            "mutation_id": chosen_mutation(mutation_id),
            "path": str(Path(path).resolve()),
            "kind": kind,
            "language": language,
        },
        as_json,
    )


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
    workspace_call(
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
    workspace_call(
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
    workspace_call(
        "sosoapi_research_evidence_diff",
        workspace_id,
        {"evidence_id": evidence_id, "from_revision": from_revision, "to_revision": to_revision},
        as_json,
    )
