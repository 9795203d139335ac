"""Administration: workspaces, members and tokens."""

from __future__ import annotations

import click

from sosoapi.auth.tokens import RESEARCH_SCOPE
from sosoapi.cli.common import admin_session, emit, main
from sosoapi.clock import utcnow


@main.group()
def workspaces() -> None:
    """Create and list workspaces, manage members and the research feature."""


@workspaces.command("list")
def workspaces_list() -> None:
    with admin_session() as admin:
        listed = admin.workspaces()
    emit(
        [
            {
                "id": w.id,
                "name": w.name,
                "research_enabled": w.research_enabled,
                "local": w.is_local,
            }
            for w in listed
        ]
    )


@workspaces.command("create")
@click.argument("name")
@click.option("--research/--no-research", default=True, show_default=True)
def workspaces_create(name: str, research: bool) -> None:
    with admin_session() as admin:
        workspace = admin.create_workspace(name, utcnow(), research=research)
    emit({"id": workspace.id, "name": workspace.name, "research_enabled": research})


def _set_research(workspace_id: str, enabled: bool) -> None:
    with admin_session() as admin:
        admin.set_research(workspace_id, enabled)
    emit({"id": workspace_id, "research_enabled": enabled})


@workspaces.command("enable-research")
@click.argument("workspace_id")
def workspaces_enable(workspace_id: str) -> None:
    _set_research(workspace_id, True)


@workspaces.command("disable-research")
@click.argument("workspace_id")
def workspaces_disable(workspace_id: str) -> None:
    _set_research(workspace_id, False)


@workspaces.command("add-member")
@click.argument("workspace_id")
@click.option("--user", "user_id", help="an existing user id; omit to create a user")
@click.option("--name", default="member", show_default=True, help="name of a new user")
@click.option("--role", type=click.Choice(["owner", "editor", "viewer"]), required=True)
def workspaces_add_member(workspace_id: str, user_id: str | None, name: str, role: str) -> None:
    with admin_session() as admin:
        if user_id:
            admin.add_member(workspace_id, user_id, role, utcnow())
        else:
            user_id = admin.create_member(workspace_id, name, role, utcnow())
    emit({"workspace_id": workspace_id, "user_id": user_id, "role": role})


@main.group()
def tokens() -> None:
    """Mint, list and revoke bearer tokens (a token is shown once)."""


@tokens.command("create")
@click.option("--user", "user_id", help="the user the token speaks for")
@click.option(
    "--workspace", "workspace_id", help="with --role: create a new member and mint for it"
)
@click.option("--role", type=click.Choice(["owner", "editor", "viewer"]))
@click.option("--name", default="member", show_default=True)
@click.option("--scope", "scopes", multiple=True, default=[RESEARCH_SCOPE], show_default=True)
@click.option("--no-scope", is_flag=True, help="mint a token with no scopes (for testing refusals)")
@click.option("--expires-in", type=float, default=None, help="seconds until the token expires")
@click.option("--label", default="")
def tokens_create(
    user_id: str | None,
    workspace_id: str | None,
    role: str | None,
    name: str,
    scopes: tuple[str, ...],
    no_scope: bool,
    expires_in: float | None,
    label: str,
) -> None:
    if user_id is None and not (workspace_id and role):
        raise click.UsageError("give --user, or --workspace with --role to create a member")
    chosen = frozenset() if no_scope else frozenset(scopes)
    with admin_session() as admin:
        if user_id is None:
            assert workspace_id and role
            user_id = admin.create_member(workspace_id, name, role, utcnow())
        minted = admin.mint(user_id, utcnow(), scopes=chosen, label=label, expires_in=expires_in)
    emit(
        {
            "id": minted.record.id,
            "user_id": user_id,
            "token": minted.token,
            "scopes": sorted(chosen),
        }
    )


@tokens.command("list")
def tokens_list() -> None:
    """Every token: personal ones and those issued to OAuth clients (revoke takes the grant)."""
    with admin_session() as admin:
        listed = admin.tokens()
        clients = admin.client_names()
    emit(
        [
            {
                "id": t.id,
                "user_id": t.user_id,
                "label": t.label,
                "scopes": sorted(t.scopes),
                "created_at": t.created_at.isoformat(),
                "expires_at": t.expires_at.isoformat() if t.expires_at else None,
                "revoked": t.revoked_at is not None,
                "kind": t.kind,
                "client_id": t.client_id,
                "client_name": clients.get(t.client_id or ""),
                "resource": t.resource,
            }
            for t in listed
        ]
    )


@tokens.command("revoke")
@click.argument("token_id")
def tokens_revoke(token_id: str) -> None:
    with admin_session() as admin:
        revoked = admin.revoke(token_id, utcnow())
    if not revoked:
        raise click.UsageError(f"token {token_id} does not exist or is already revoked")
    emit({"id": token_id, "revoked": True})
