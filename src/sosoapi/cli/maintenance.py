"""Operator verbs that keep the store in shape: `purge` old receipts, `backup` SQLite."""

from __future__ import annotations

import re
from dataclasses import asdict
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sosoapi.cli.common import emit, existing, force_option, json_option, main, settings_from_env
from sosoapi.clock import utcnow
from sosoapi.store.records import StoreUnavailable

if TYPE_CHECKING:
    from sosoapi.store.database import Database

UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
DURATION = re.compile(r"^(\d+)([smhdw])$")


def parse_duration(text: str, option: str = "--older-than") -> timedelta:
    """`30d`, `12h`, `90m`, `45s`, `2w` -> a timedelta; anything else is a usage error."""
    match = DURATION.match(text.strip())
    if not match:
        raise click.BadParameter(
            f"{text!r} is not a duration; write a whole number and a unit "
            "(s, m, h, d or w), e.g. 30d or 12h.",
            param_hint=option,
        )
    return timedelta(**{UNITS[match.group(2)]: int(match.group(1))})


def _open(url: str) -> Database:
    from sosoapi.store.database import Database  # SQLAlchemy: only for a verb that runs

    db = Database(url)
    try:
        db.migrate()
    except StoreUnavailable:
        db.dispose()
        raise  # the command group words it for the user
    return db


@main.command()
@click.option("--older-than", "older_than", required=True, help="e.g. 30d, 12h, 90m")
@json_option
def purge(older_than: str, as_json: bool) -> None:
    """Delete settled retrieval receipts (and their mutation rows) past their valid_until
    that settled longer ago than --older-than. Never evidence, never a receipt whose
    evidence a sealed corpus pins. Captures made before then go too unless a sealed corpus
    pins their revision, and every stored body no capture needs. Prints what was removed."""
    from sosoapi.store.maintenance import purge_receipts, return_space

    age = parse_duration(older_than)
    db = _open(settings_from_env().database_url)
    try:
        at = utcnow()
        counts = purge_receipts(db, at - age, at)
        returned = return_space(db)
    except StoreUnavailable as exc:
        raise click.ClickException(f"{exc}; nothing was removed, retry later") from None
    finally:
        db.dispose()
    removed = asdict(counts)
    if as_json:
        emit(
            {
                "removed": removed,
                "returned_bytes": returned,
                "older_than": older_than,
                "settled_before": (at - age).isoformat(),
            }
        )
        return
    counted = ", ".join(f"{n} {name}" for name, n in removed.items())
    click.echo(f"removed {counted} (settled before {(at - age).isoformat()})")
    if returned is not None:
        click.echo(f"returned {returned} bytes to the disk")


@main.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@force_option
@json_option
def backup(path: Path, force: bool, as_json: bool) -> None:
    """Copy the embedded SQLite database to PATH consistently, even while serving."""
    from sosoapi.store.maintenance import backup_sqlite, sqlite_path

    url = settings_from_env().database_url
    source = sqlite_path(url)
    if source is None:
        raise click.UsageError(
            "`sosoapi backup` copies the embedded SQLite database only; this server uses "
            "PostgreSQL (SOSOAPI_DATABASE_URL): back it up with pg_dump or point-in-time "
            "recovery, as docs/operations.md describes."
        )
    if not source.exists():
        raise click.UsageError(f"no database at {source} yet; run `sosoapi init` first")
    if not path.parent.is_dir():
        raise click.UsageError(f"{path.parent} is not a directory; create it first")
    try:
        report = backup_sqlite(source, path, replace=force)
    except FileExistsError:
        raise existing(path) from None
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        emit(asdict(report))
    else:
        click.echo(" ".join(f"{name}: {value}" for name, value in asdict(report).items()))
