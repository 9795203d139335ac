"""`sosoapi corpora`: seal projects into corpora, read them, export one as WACZ."""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

import anyio
import click

from sosoapi.cli.calls import (
    AUTH_FIXES,
    CURSOR,
    MUTATION,
    WORKSPACE,
    chosen_mutation,
    local_workspace,
    workspace_call,
)
from sosoapi.cli.common import emit, force_option, json_option, main, settings_from_env, written
from sosoapi.contract.errors import ServiceError


@main.group()
def corpora() -> None:
    """Seal projects into corpora, and read sealed corpora."""


@corpora.command("get")
@click.argument("corpus_id")
@WORKSPACE
@click.option("--revision", type=int, default=None, help="default: the latest revision")
@json_option
def corpora_get(
    corpus_id: str, workspace_id: str | None, revision: int | None, as_json: bool
) -> None:
    """Read the sealed corpus CORPUS_ID: the exact evidence revisions it pins."""
    workspace_call(
        "sosoapi_research_corpora_get",
        workspace_id,
        {"id": corpus_id, "revision": revision},
        as_json,
    )


@corpora.command("export")
@click.argument("corpus_id")
@click.option("--workspace", "workspace_id", help="default: the local workspace")
@click.option("--revision", type=int, default=None, help="default: the latest revision")
@click.option(
    "-o",
    "--output",
    "output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="the .wacz file to write (0600; an existing file only with --force)",
)
@force_option
@json_option
def corpora_export(
    corpus_id: str,
    workspace_id: str | None,
    revision: int | None,
    output: Path,
    force: bool,
    as_json: bool,
) -> None:
    """Write a sealed corpus as a WACZ package (captures, pages, bibliography); open it in
    ReplayWeb.page or pywb. A failed export leaves no file behind."""
    from sosoapi.application import Application  # heavy (extractors): only for operations

    settings = settings_from_env(one_shot=True)
    workspace = workspace_id or local_workspace()

    async def run(out: IO[bytes]) -> dict[str, Any] | ServiceError:
        application = Application(settings)
        async with application.running():
            try:
                summary = await application.research.export_corpus(
                    settings.token, workspace, corpus_id, revision, out,
                    transport="stdio", fixes=AUTH_FIXES,
                )  # fmt: skip
            except ServiceError as error:
                return error
            return {"path": str(output), **asdict(summary)}

    with written(output, force) as out:
        result = anyio.run(run, out.file)
        if isinstance(result, ServiceError):
            click.echo(f"error ({result.code}): {result.message}", err=True)
            sys.exit(2)
        out.keep()
    if as_json:
        emit(result)
        return
    told = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in result.items() if k != "path")
    click.echo(f"wrote {output} ({told})")


@corpora.command("seal")
@click.argument("project_id")
@WORKSPACE
@MUTATION
@click.option("--corpus-id", default=None, help="seal a new revision of this corpus")
@click.option(
    "--max-items", type=int, default=None, help="most evidence items to pin (a bounded sample)"
)
@json_option
def corpora_seal(
    project_id: str,
    workspace_id: str | None,
    mutation_id: str | None,
    corpus_id: str | None,
    max_items: int | None,
    as_json: bool,
) -> None:
    """Seal project PROJECT_ID into an immutable corpus (again: a new corpus revision)."""
    workspace_call(
        "sosoapi_research_corpora_seal",
        workspace_id,
        {
            "mutation_id": chosen_mutation(mutation_id),
            "project_id": project_id,
            "corpus_id": corpus_id,
            "max_items": max_items,
        },
        as_json,
    )


@corpora.command("list")
@WORKSPACE
@CURSOR
@json_option
def corpora_list(workspace_id: str | None, cursor: str | None, as_json: bool) -> None:
    """List the workspace's corpora, newest first."""
    workspace_call("sosoapi_research_corpora_list", workspace_id, {"cursor": cursor}, as_json)
