"""Every page of the wild dev set retrieved over real HTTPS from the loopback origin.

The pages were captured from the live web by other projects (the data folder's README
names each one's repository, commit, path and licence); they are not copied into this
repository. Each is served at its recorded path with its recorded status and headers and
goes through egress, extraction and the receipt on SQLite and PostgreSQL. The pages that
settle as their class must today (tests/data/wild/settled.json, "settled") are asserted to
keep doing so; the others ("not_yet") are listed in bench/README.md, "Walls in the wild".
The folder is $SOSOAPI_WILD_DATA, else `wild-dev` in the shared data folder beside the
project; without it this test is skipped.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from sosoapi.application import Application
from tests.support.calls import args, call
from tests.support.origin import HTTPSOrigin, Route

ROOT = Path(__file__).resolve().parents[2]
WILD = Path(os.environ.get("SOSOAPI_WILD_DATA", ROOT.parent / "shared" / "data" / "wild-dev"))
GUARD = json.loads((ROOT / "tests" / "data" / "wild" / "settled.json").read_text("utf-8"))


# Skipped before any fixture starts a server: a skip raised inside one's task group reads
# only "unhandled errors in a TaskGroup".
NEEDS_WILD = pytest.mark.skipif(
    not (WILD / "manifest.json").is_file(),
    reason=f"no wild dev set at {WILD} (set SOSOAPI_WILD_DATA)",
)
pytestmark = NEEDS_WILD


def _manifest() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((WILD / "manifest.json").read_text("utf-8"))
    return rows


def test_every_page_is_guarded_or_listed() -> None:
    """A page added to the set is either asserted below or named as not settling yet."""
    names = {row["name"] for row in _manifest()}
    assert names == set(GUARD["settled"]) | set(GUARD["not_yet"])
    assert not set(GUARD["settled"]) & set(GUARD["not_yet"])


async def test_pages_that_settle_right_keep_settling_right_over_egress(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    rows = [row for row in _manifest() if row["name"] in set(GUARD["settled"])]
    for row in rows:
        body = gzip.decompress((WILD / row["file"]).read_bytes())
        origin.routes[row["path"]] = Route(
            body, status=row["status"], content_type=row["content_type"], headers=row["headers"]
        )
    receipts: dict[str, dict[str, Any]] = {}

    async def one(row: dict[str, Any]) -> None:
        receipts[row["name"]] = await call(
            application, token, args(workspace_id, origin.url(row["path"]))
        )

    async with anyio.create_task_group() as group:
        for row in rows:
            group.start_soon(one, row)
    wrong = []
    for row in rows:
        result = receipts[row["name"]]["result"]
        settled = [result["status"], result["reason"]]
        if settled not in row["expect"]:
            wrong.append((row["class"], row["name"], settled))
    assert wrong == []
