"""Administration: workspaces, members and tokens."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from sosoapi.auth.tokens import RESEARCH_SCOPE
from sosoapi.cli.common import (
    admin_session,
    emit,
    json_option,
    main,
    print_table,
    settings_from_env,
)
from sosoapi.clock import utcnow

ROLE_HELP = "owner: everything; editor: read, retrieve and seal; viewer: read only"


@main.group()
def workspaces() -> None:
    """Create and list workspaces, manage members and the research feature."""


@workspaces.command("list")
@json_option
def workspaces_list(as_json: bool) -> None:
    """List every workspace: id, name, whether research is enabled, the local one, and what
    it stores against its storage limit (SOSOAPI_WORKSPACE_STORAGE_MAX_MB; 0: none)."""
    limit = settings_from_env().workspace_storage_max_bytes
    with admin_session() as admin:
        listed = admin.workspaces()
    rows = [
        {
            "id": w.id,
            "name": w.name,
            "research_enabled": w.research_enabled,
            "local": w.is_local,
            "stored_bytes": w.stored_bytes,
            "storage_limit_bytes": limit or None,
        }
        for w in listed
    ]
    if as_json:
        emit(rows)
        return
    from sosoapi.research.retrieval.quota import megabytes  # pydantic: not for --help

    print_table(
        [
            (
                r["id"],
                r["name"],
                "on" if r["research_enabled"] else "off",
                "yes" if r["local"] else "",
                megabytes(w.stored_bytes),
                megabytes(limit) if limit else "none",
            )
            for r, w in zip(rows, listed, strict=True)
        ],
        ("id", "name", "research", "local", "stored", "limit"),
    )


@workspaces.command("create")
@click.argument("name")
@click.option(
    "--research/--no-research",
    default=True,
    show_default=True,
    help="whether the research tools may be used in it",
)
@json_option
def workspaces_create(name: str, research: bool, as_json: bool) -> None:
    """Create a workspace called NAME."""
    with admin_session() as admin:
        workspace = admin.create_workspace(name, utcnow(), research=research)
    created = {"id": workspace.id, "name": workspace.name, "research_enabled": research}
    if as_json:
        emit(created)
    else:
        state = "on" if research else "off"
        click.echo(f"created workspace {workspace.name} ({workspace.id}), research {state}")


def _set_research(workspace_id: str, enabled: bool, as_json: bool) -> None:
    with admin_session() as admin:
        admin.set_research(workspace_id, enabled)
    if as_json:
        emit({"id": workspace_id, "research_enabled": enabled})
    else:
        click.echo(f"research {'enabled' if enabled else 'disabled'} in {workspace_id}")


@workspaces.command("enable-research")
@click.argument("workspace_id")
@json_option
def workspaces_enable(workspace_id: str, as_json: bool) -> None:
    """Let the research tools be used in WORKSPACE_ID."""
    _set_research(workspace_id, True, as_json)


@workspaces.command("disable-research")
@click.argument("workspace_id")
@json_option
def workspaces_disable(workspace_id: str, as_json: bool) -> None:
    """Refuse the research tools in WORKSPACE_ID (its data stays)."""
    _set_research(workspace_id, False, as_json)


@workspaces.command("add-member")
@click.argument("workspace_id")
@click.option("--user", "user_id", help="an existing user id; omit to create a user")
@click.option("--name", default="member", show_default=True, help="name of a new user")
@click.option(
    "--role", type=click.Choice(["owner", "editor", "viewer"]), required=True, help=ROLE_HELP
)
@json_option
def workspaces_add_member(
    workspace_id: str, user_id: str | None, name: str, role: str, as_json: bool
) -> None:
    """Give a user (an existing one, or a new one) a role in WORKSPACE_ID."""
    with admin_session() as admin:
        if user_id:
            admin.add_member(workspace_id, user_id, role, utcnow())
        else:
            user_id = admin.create_member(workspace_id, name, role, utcnow())
    if as_json:
        emit({"workspace_id": workspace_id, "user_id": user_id, "role": role})
    else:
        click.echo(f"user {user_id} is {role} in {workspace_id}")


@main.group()
def tokens() -> None:
    """Mint, list and revoke bearer tokens (a token is shown once)."""


@tokens.command("create")
@click.option("--user", "user_id", help="the user the token speaks for")
@click.option(
    "--workspace", "workspace_id", help="with --role: create a new member and mint for it"
)
@click.option("--role", type=click.Choice(["owner", "editor", "viewer"]), help=ROLE_HELP)
@click.option("--name", default="member", show_default=True, help="name of the new member")
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    default=[RESEARCH_SCOPE],
    show_default=True,
    help="a scope the token carries (repeatable)",
)
@click.option("--no-scope", is_flag=True, help="mint a token with no scopes (for testing refusals)")
@click.option("--expires-in", type=float, default=None, help="seconds until the token expires")
@click.option("--label", default="", help="a name for the token, shown by `tokens list`")
@json_option
def tokens_create(
    user_id: str | None,
    workspace_id: str | None,
    role: str | None,
    name: str,
    scopes: tuple[str, ...],
    no_scope: bool,
    expires_in: float | None,
    label: str,
    as_json: bool,
) -> None:
    """Mint a bearer token for a user (shown once: store it now)."""
    if user_id is None and not (workspace_id and role):
        raise click.UsageError("give --user, or --workspace with --role to create a member")
    chosen = frozenset() if no_scope else frozenset(scopes)
    with admin_session() as admin:
        if user_id is None:
            assert workspace_id and role
            user_id = admin.create_member(workspace_id, name, role, utcnow())
        minted = admin.mint(user_id, utcnow(), scopes=chosen, label=label, expires_in=expires_in)
    if as_json:
        emit(
            {
                "id": minted.record.id,
                "user_id": user_id,
                "token": minted.token,
                "scopes": sorted(chosen),
            }
        )
        return
    record = minted.record
    expires = when(record.expires_at) if record.expires_at else "never"
    scopes_text = " ".join(sorted(chosen)) or "none"
    click.echo(f"token {record.id} for user {user_id}, scopes {scopes_text}, expires {expires}")
    click.echo(f"token (shown once): {minted.token}")


@tokens.command("list")
@json_option
def tokens_list(as_json: bool) -> None:
    """Every token: personal ones and those issued to OAuth clients (revoke takes the grant)."""
    with admin_session() as admin:
        listed = admin.tokens()
        clients = admin.client_names()
        roles = {t.user_id: admin.roles_of(t.user_id) for t in listed}
    rows = [
        {
            "id": t.id,
            "user_id": t.user_id,
            "label": t.label,
            "scopes": sorted(t.scopes),
            "created_at": t.created_at.isoformat(),
            "expires_at": t.expires_at.isoformat() if t.expires_at else None,
            "last_used_at": t.last_used_at.isoformat() if t.last_used_at else None,
            "revoked": t.revoked_at is not None,
            "kind": t.kind,
            "client_id": t.client_id,
            "client_name": clients.get(t.client_id or ""),
            "resource": t.resource,
            "roles": [{"workspace": w, "role": r} for w, r in roles[t.user_id]],
        }
        for t in listed
    ]
    if as_json:
        emit(rows)
        return
    print_table(
        [
            (
                t.id,
                clients.get(t.client_id or "") or t.label or "-",
                t.kind,
                ", ".join(f"{r} ({w})" for w, r in roles[t.user_id]) or "-",
                when(t.created_at),
                "revoked" if t.revoked_at else when(t.expires_at) if t.expires_at else "never",
                when(t.last_used_at) if t.last_used_at else "never",
            )
            for t in listed
        ],
        ("id", "name", "kind", "role", "created", "expires", "last used"),
    )


def when(moment: datetime) -> str:
    """A time for a person: UTC to the minute."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


@tokens.command("revoke")
@click.argument("token_id")
@json_option
def tokens_revoke(token_id: str, as_json: bool) -> None:
    """Revoke TOKEN_ID (an OAuth token takes its whole grant: access and refresh)."""
    with admin_session() as admin:
        revoked = admin.revoke(token_id, utcnow())
    if not revoked:
        raise click.UsageError(f"token {token_id} does not exist or is already revoked")
    if as_json:
        emit({"id": token_id, "revoked": True})
    else:
        click.echo(f"revoked token {token_id}")
