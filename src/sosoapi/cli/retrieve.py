"""`sosoapi retrieve`: one public HTTPS source into a receipt, and `sosoapi whoami`."""

from __future__ import annotations

import click

from sosoapi.cli.calls import (
    KIND_HELP,
    KINDS,
    LANGUAGE_HELP,
    WORKSPACE,
    call,
    chosen_mutation,
    workspace_call,
)
from sosoapi.cli.common import json_option, main


@main.command()
@click.argument("url")
@WORKSPACE
@click.option(
    "--kind",
    type=KINDS,
    default="url_text",
    show_default=True,
    help=KIND_HELP,
)
@click.option("--language", default=None, help=LANGUAGE_HELP)
@click.option("--mutation-id", default=None, help="reuse to read the same receipt again")
@json_option
def retrieve(
    url: str,
    workspace_id: str | None,
    kind: str,
    language: str | None,
    mutation_id: str | None,
    as_json: bool,
) -> None:
    """Retrieve one public HTTPS source URL (token from SOSOAPI_TOKEN) into a receipt.

    Exits 0 when the receipt completed ready or partial, 3 when it completed with another
    status (blocked, unavailable, ...), 4 when it has not completed (replay the printed
    mutation_id to collect it), 2 when the call was refused. `--kind pdf_text` reads a PDF
    with the document tool (sosoapi_research_document_retrieve): one command reads every
    kind of source, as upload does, and the receipt is the same.
    """
    arguments = {"url": url, "language": language, "mutation_id": chosen_mutation(mutation_id)}
    if kind == "pdf_text":
        workspace_call("sosoapi_research_document_retrieve", workspace_id, arguments, as_json)
        return
    arguments["kind"] = kind
    workspace_call("sosoapi_research_evidence_retrieve", workspace_id, arguments, as_json)


@main.command()
@json_option
def whoami(as_json: bool) -> None:
    """Show the token's user, scopes, workspaces and roles."""
    call("sosoapi_whoami", {}, as_json)
