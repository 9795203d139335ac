"""The `sosoapi` command group and what its verbs share: settings, JSON out, the store."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import click

from sosoapi import logs
from sosoapi.auth.admin import Admin
from sosoapi.config import Settings
from sosoapi.store.store import Store


def now() -> datetime:
    return datetime.now(UTC)


def settings_from_env(profile: str | None = None) -> Settings:
    try:
        return Settings.from_env(profile=profile)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def emit(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def open_admin() -> tuple[Store, Admin]:
    store = Store(settings_from_env().database_url)
    return store, Admin(store.auth)


def checked(fn: Callable[[], Any]) -> Any:
    """Run an admin verb; its ValueError becomes a usage error naming the fix."""
    try:
        return fn()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


@click.group()
@click.version_option(package_name="sosoapi")
def main() -> None:
    """SosoAPI Research: safe, bounded, durable public-source retrieval for research agents."""
    logs.configure()
