"""The `sosoapi` command group and what its verbs share: settings, output (a summary for
people, `--json` for scripts), exit codes, admin."""

from __future__ import annotations

import json
import textwrap
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from sosoapi import logs
from sosoapi.auth.errors import AdminRefused, NoSuchWorkspace, UnknownRole, UnknownScope
from sosoapi.config import Settings, log_level
from sosoapi.files import Output, private_output
from sosoapi.store.records import StoreUnavailable

if TYPE_CHECKING:
    from sosoapi.auth.admin import Admin


def settings_from_env(profile: str | None = None, *, one_shot: bool = False) -> Settings:
    try:
        return Settings.from_env(profile=profile, one_shot=one_shot)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


class Exit(IntEnum):
    """The exit codes of every verb (README, "From a shell")."""

    OK = 0
    FAILED = 1  # the database is unreachable, or the verb could not finish
    REFUSED = 2  # a usage error, or the call was refused (input, token, role, not found)
    NOT_USABLE = 3  # a receipt completed, but its status carries no usable text
    NOT_COMPLETED = 4  # a receipt still open (replay its mutation_id), or never completed


F = TypeVar("F", bound=Callable[..., Any])
JSON_HELP = "print the result as JSON, for scripts (default: a summary for people)"
PREVIEW = 600  # characters of a long third-party text shown in a summary


def json_option(command: F) -> F:
    """The `--json` flag every verb that prints a result takes."""
    return click.option("--json", "as_json", is_flag=True, help=JSON_HELP)(command)


def force_option(command: F) -> F:
    """The `--force` flag of a verb that writes a file where its user says."""
    return click.option(
        "--force", is_flag=True, help="replace the file if it exists (default: refuse)"
    )(command)


def existing(path: Path) -> click.UsageError:
    return click.UsageError(
        f"{path} already exists; pass --force to replace it, or choose another path"
    )


@contextmanager
def written(path: Path, force: bool) -> Iterator[Output]:
    """A verb's output file, written privately (`sosoapi/files.py`); an existing one is a
    usage error naming the path and `--force`, a folder that cannot take it a failure."""
    try:
        with private_output(path, replace=force) as output:
            yield output
    except FileExistsError:
        raise existing(path) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror}") from None


def emit(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def printable(text: str) -> str:
    """Third-party text safe for a terminal: control and format characters (escape
    sequences, bidi overrides) dropped, line breaks and tabs kept."""
    return "".join(c for c in text if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cf"))


def print_summary(line: str, parts: Sequence[tuple[str, str]] = ()) -> None:
    """Our own line, then each non-empty third-party part under its name, long ones cut."""
    click.echo(line)
    for name, value in parts:
        if not value:
            continue
        shown = printable(value)
        if len(shown) > PREVIEW:
            shown = f"{shown[:PREVIEW]}... ({len(value)} characters; --json prints all)"
        click.echo(f"{name}:\n{textwrap.indent(shown, '  ')}")


def print_table(rows: Sequence[Sequence[object]], headers: Sequence[str]) -> None:
    """Rows as aligned columns under `headers`; None shows as '-'."""
    cells = [[printable("-" if v is None else str(v)) for v in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    for row in [list(headers), *cells]:
        click.echo("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())


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
    from sosoapi.auth.admin import Admin  # the store (SQLAlchemy): only for a verb that runs
    from sosoapi.store.store import Store

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
