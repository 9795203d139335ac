"""What every operation verb shares: calling the same service as MCP and HTTP as the
SOSOAPI_TOKEN user, in the given or local workspace, and the exit code that says how it went.

The application (extractors, the store, the contract's models) is imported by the verb that
runs, never by `sosoapi --help` (tests/cli/test_startup.py)."""

from __future__ import annotations

import sys
import uuid
from typing import TYPE_CHECKING, Any

import anyio
import click

from sosoapi.auth.errors import BadToken, Fixes, NoToken
from sosoapi.cli.common import Exit, admin_session, emit, print_summary, settings_from_env
from sosoapi.contract.errors import ServiceError
from sosoapi.contract.vocabulary import State, Status

if TYPE_CHECKING:
    from sosoapi.research.operation import Outcome

# A CLI user fixes the token in the shell's environment.
AUTH_FIXES: Fixes = {
    NoToken: "export SOSOAPI_TOKEN=<token>; `sosoapi init` prints one for the local workspace.",
    BadToken: "export a current SOSOAPI_TOKEN; `sosoapi init` or `sosoapi tokens create` "
    "mints one.",
}


def local_workspace() -> str:
    with admin_session() as admin:
        workspace = admin.local_workspace()
    if workspace is None:
        raise click.UsageError("no local workspace yet; run `sosoapi init` or pass --workspace")
    return workspace.id


USABLE = frozenset({Status.READY, Status.PARTIAL})


def receipt_exit(output: object) -> Exit:
    """A receipt's exit code: OK only when it completed with a usable status."""
    from sosoapi.contract.documents import RECEIPT_OUTPUTS  # pydantic: only for a call

    if not isinstance(output, RECEIPT_OUTPUTS):
        return Exit.OK
    retrieval = output.retrieval
    if retrieval.state != State.COMPLETED or retrieval.result is None:
        return Exit.NOT_COMPLETED
    return Exit.OK if retrieval.result.status in USABLE else Exit.NOT_USABLE


# The calls that parse what they read: their command starts the parsing pool's forkserver
# at once, so its preload (the extractors) overlaps the fetch (research/offload.py).
PARSING = frozenset(
    {
        "sosoapi_research_evidence_retrieve",
        "sosoapi_research_document_retrieve",
        "sosoapi_research_evidence_upload",
    }
)


def call(tool: str, arguments: dict[str, Any], as_json: bool = False) -> None:
    """Call `tool` as the SOSOAPI_TOKEN user; print the result (a summary, or JSON) and
    exit with the code of `Exit` that says how it went."""
    from sosoapi.application import Application  # heavy (extractors): only for operations
    from sosoapi.mcp.presenters import summary

    settings = settings_from_env(one_shot=True)

    async def run() -> Outcome | ServiceError:
        application = Application(settings)
        async with application.running():
            if tool in PARSING:
                application.offload.warm()
            try:
                return await application.research.call(
                    tool, settings.token, arguments, transport="stdio", fixes=AUTH_FIXES
                )
            except ServiceError as error:
                return error

    outcome = anyio.run(run)
    if isinstance(outcome, ServiceError):
        click.echo(f"error ({outcome.code}): {outcome.message}", err=True)
        sys.exit(Exit.REFUSED)
    if as_json:
        emit(outcome.output.wire())
    else:
        url = arguments.get("url") if isinstance(arguments.get("url"), str) else None
        print_summary(
            *summary(
                outcome.output, outcome.corpus_revision, url, outcome.language_match, outcome.cause
            )
        )
    sys.exit(receipt_exit(outcome.output))


WORKSPACE = click.option("--workspace", "workspace_id", help="default: the local workspace")
MUTATION = click.option("--mutation-id", default=None, help="reuse to replay the same write")
KIND_HELP = (
    "url_text: a page's main text; published_captions: a WebVTT/SubRip caption file; "
    "pdf_text: a PDF's text layer, page by page (the document tool)"
)
KINDS = click.Choice(["url_text", "published_captions", "pdf_text"])
LANGUAGE_HELP = "a BCP 47 tag (en, pt-BR, ...): the language the text must be in"
CURSOR = click.option("--cursor", default=None, help="next_cursor of the previous page")


def workspace_call(
    tool: str, workspace_id: str | None, arguments: dict[str, Any], as_json: bool = False
) -> None:
    """Call `tool` in the given or local workspace, dropping options left unset."""
    given = {k: v for k, v in arguments.items() if v not in (None, [], ())}
    call(tool, {"workspace_id": workspace_id or local_workspace(), **given}, as_json)


def chosen_mutation(mutation_id: str | None) -> str:
    chosen = mutation_id or str(uuid.uuid4())
    click.echo(f"mutation_id: {chosen}", err=True)
    return chosen
