"""The `sosoapi` command group and what its verbs share: settings, JSON out, admin."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from sosoapi import logs
from sosoapi.auth.admin import Admin
from sosoapi.auth.errors import AdminRefused, NoSuchWorkspace, UnknownRole, UnknownScope
from sosoapi.config import Settings, log_level
from sosoapi.store.faults import StoreUnavailable
from sosoapi.store.store import Store


def settings_from_env(profile: str | None = None) -> Settings:
    try:
        return Settings.from_env(profile=profile)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def emit(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def _in_cli_words(refused: AdminRefused) -> str:
    """An admin refusal as a CLI user fixes it: by the flag or the verb to run."""
    if isinstance(refused, UnknownScope):
        unknown, known = ", ".join(refused.unknown), ", ".join(refused.known)
        return f"--scope {unknown} is unknown; use one of {known}"
    if isinstance(refused, UnknownRole):
        return f"--role {refused.role!r} is unknown; use one of {', '.join(refused.known)}"
    if isinstance(refused, NoSuchWorkspace):
        return f"workspace {refused.workspace_id} does not exist; see `sosoapi workspaces list`"
    return str(refused)


@contextmanager
def admin_session() -> Iterator[Admin]:
    """The admin verbs over the configured store, closed after; refusals as usage errors."""
    store = Store(settings_from_env().database_url)
    try:
        yield Admin(store.auth, store.oauth)
    except AdminRefused as refused:
        raise click.UsageError(_in_cli_words(refused)) from None
    finally:
        store.close()


class _Commands(click.Group):
    """Every verb's database outage as one line naming the fix, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except StoreUnavailable as exc:
            raise click.ClickException(
                f"{exc}; check SOSOAPI_DATABASE_URL and retry when the database is reachable"
            ) from None


@click.group(cls=_Commands)
@click.version_option(package_name="sosoapi")
def main() -> None:
    """SosoAPI Research: safe, bounded, durable public-source retrieval for research agents."""
    try:
        logs.configure(log_level())
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
