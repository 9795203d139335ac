"""`sosoapi workspaces list` shows what each workspace stores and its storage limit
(issue 36, item 8), read from the count the store keeps, on both stores."""

from __future__ import annotations

import json
import uuid

from click.testing import CliRunner
from sqlalchemy import select

from sosoapi.application import Application
from sosoapi.cli import main
from sosoapi.store.tables import workspaces
from tests.support.calls import RETRIEVE
from tests.support.origin import HTTPSOrigin


def listed(database_url: str, limit_mb: str, *args: str) -> str:
    env = {"SOSOAPI_DATABASE_URL": database_url, "SOSOAPI_WORKSPACE_STORAGE_MAX_MB": limit_mb}
    run = CliRunner().invoke(main, ["workspaces", "list", *args], env=env)
    assert run.exit_code == 0, run.output
    return run.output


async def test_workspaces_list_shows_usage_and_the_limit(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    pages: dict[str, bytes],
    database_url: str,
) -> None:
    ws, token = owner
    arguments = {"workspace_id": ws, "url": origin.url(sorted(pages)[0]), "kind": "url_text"}
    await application.research.call(
        RETRIEVE, token, {**arguments, "mutation_id": str(uuid.uuid4())}
    )
    with application.store.db.read() as conn:
        stored = conn.execute(select(workspaces.c.stored_bytes).where(workspaces.c.id == ws)).one()
    assert stored[0] > 0

    [row] = json.loads(listed(database_url, "3", "--json"))
    assert (row["id"], row["stored_bytes"], row["storage_limit_bytes"]) == (
        ws,
        stored[0],
        3 * 1024 * 1024,
    )
    header, line = listed(database_url, "3").splitlines()
    assert header.split() == ["id", "name", "research", "local", "stored", "limit"]
    assert line.split()[-4:] == [f"{stored[0] / 2**20:.1f}", "MiB", "3.0", "MiB"]
    [unlimited] = json.loads(listed(database_url, "0", "--json"))
    assert unlimited["storage_limit_bytes"] is None
    assert listed(database_url, "0").splitlines()[1].split()[-1] == "none"
