"""Hostile pages through the real path (HTTPS origin, egress, the parsing pool, the store):
a page past the node bound is read cut to it (`partial` / `nodes_limited`); a parse past
its deadline or memory cap settles `unsupported_content`, and another workspace's plain
read completes while the long parse is still running (tests/data/hostile/README.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest

from sosoapi.application import Application
from sosoapi.auth.admin import Admin
from sosoapi.contract.vocabulary import Cause
from sosoapi.research.retrieval.settings import ParseBounds
from tests.support.calls import args, call
from tests.support.lifespan import held_open
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import make_settings, owner_token

HOSTILE = Path(__file__).resolve().parents[1] / "data" / "hostile"
# Unbounded, the pages past the parse bounds took seconds to minutes of CPU and gigabytes;
# plain pages parse in far under a tenth of these bounds.
TIGHT = ParseBounds(deadline_seconds=2.0, memory_mb=128)
# The slowest page within every bound (60,000 paragraphs, 5 MB) takes about 1.4 s of CPU:
# six times this deadline, which a plain page meets with as much to spare.
SHORT_DEADLINE = replace(TIGHT, deadline_seconds=0.25, memory_mb=1024)


def _serve_hostile(origin: HTTPSOrigin) -> None:
    for page in HOSTILE.glob("*.html.gz"):
        route = Route(page.read_bytes(), headers={"Content-Encoding": "gzip"})
        origin.routes[f"/hostile/{page.name.removesuffix('.gz')}"] = route


@pytest.fixture
def bounds() -> ParseBounds:
    return TIGHT


@pytest.fixture
async def bounded(
    database_url: str, tmp_path: Path, origin: HTTPSOrigin, bounds: ParseBounds
) -> AsyncIterator[Application]:
    """The application with two bounded parsing workers (the `application` fixture's
    parse in threads)."""
    _serve_hostile(origin)
    settings = make_settings(database_url, tmp_path, origin.egress_env(), wait_budget_seconds=60)
    app = Application(replace(settings, parse_workers=2, parse_bounds=bounds))
    async with held_open(app.running()):
        yield app
    app.store.close()


def _plain_path(pages: dict[str, bytes]) -> str:
    return min(pages, key=lambda path: len(pages[path]))


def _cause(app: Application, retrieval_id: str) -> str | None:
    record = app.store.retrievals.retrieval_by_id(retrieval_id)
    assert record is not None
    return record.cause


# Each page meets the bound it tests while the other is far off, so a loaded machine
# (a slower parse) cannot make the memory page hit its deadline first.
LATE_DEADLINE = replace(TIGHT, deadline_seconds=45.0)


@pytest.mark.parametrize(
    ("page", "cause", "bounds"),
    [
        ("heavy_prose.html", Cause.PARSE_DEADLINE, SHORT_DEADLINE),
        ("embedded_objects.html", Cause.PARSE_MEMORY, LATE_DEADLINE),
    ],
)
async def test_a_hostile_page_settles_unsupported_content_at_its_bound(
    bounded: Application, origin: HTTPSOrigin, pages: dict[str, bytes], page: str, cause: Cause
) -> None:
    workspace_id, token = owner_token(bounded)
    receipt = await call(bounded, token, args(workspace_id, origin.url(f"/hostile/{page}")))
    assert receipt["state"] == "completed"  # settled, not left running
    result = receipt["result"]
    assert (result["status"], result["reason"]) == ("unsupported", "unsupported_content")
    assert result["text"] == "" and result["provenance"]["source_url"] is None
    assert _cause(bounded, receipt["id"]) == cause
    # the killed worker was replaced: the next read parses
    plain = await call(bounded, token, args(workspace_id, origin.url(_plain_path(pages))))
    assert (plain["state"], plain["result"]["status"]) == ("completed", "ready")


def _kill_the_running_parse(app: Application) -> None:
    """Kill the worker that is parsing (the one not idle), as the kernel would."""
    [busy] = app.offload._all - set(app.offload._idle)
    busy.kill()


# The long parse runs until the test ends it (no deadline reached): the point is the other
# read, not the bound (test_a_hostile_page_settles_unsupported_content_at_its_bound).
@pytest.mark.parametrize("bounds", [replace(TIGHT, deadline_seconds=300.0)])
async def test_another_workspaces_read_completes_while_a_hostile_parse_runs(
    bounded: Application, origin: HTTPSOrigin, pages: dict[str, bytes]
) -> None:
    workspace_id, token = owner_token(bounded)
    now = datetime.now(UTC)
    other = bounded.store.auth.create_workspace("other", now).id
    admin = Admin(bounded.store.auth)
    other_token = admin.mint(admin.create_member(other, "b", "editor", now), now).token
    hostile: dict[str, Any] = {}

    async def read_hostile() -> None:
        url = origin.url("/hostile/heavy_prose.html")
        hostile.update(await call(bounded, token, args(workspace_id, url)))

    async with anyio.create_task_group() as tg:
        tg.start_soon(read_hostile)
        with anyio.fail_after(60):
            while bounded.offload.parsing == 0:  # noqa: ASYNC110 (the pool's state, no event)
                await anyio.sleep(0.01)
        with anyio.fail_after(60):  # a pool that made it wait would wait minutes
            plain = await call(bounded, other_token, args(other, origin.url(_plain_path(pages))))
        assert (plain["state"], plain["result"]["status"]) == ("completed", "ready")
        assert not hostile and bounded.offload.parsing == 1  # the hostile parse runs on
        _kill_the_running_parse(bounded)
    # a worker that dies mid-parse is judged as over its memory cap: settled, not running
    assert hostile["state"] == "completed"
    assert hostile["result"]["reason"] == "unsupported_content"
    assert _cause(bounded, hostile["id"]) == Cause.PARSE_MEMORY


NODE_BOUND = ["formatting_clones.html", "stray_end_tags.html", "foreign_raw_text.html"]


@pytest.mark.parametrize(
    "page", ["deep_nesting.html", "self_closing.html", "many_attributes.html", *NODE_BOUND]
)
@pytest.mark.parametrize("bounds", [replace(TIGHT, deadline_seconds=20.0)])
async def test_a_page_past_the_prescan_bounds_is_read_cut_within_the_deadline(
    bounded: Application, origin: HTTPSOrigin, page: str
) -> None:
    """Depth, elements and attributes past extract/html_bounds' bounds, counted as the tree
    builder makes them, are cut before any parser sees them: the read settles by what the
    cut page holds, `partial` / `nodes_limited` where text came before the cut, with no
    parse bound reached (unbounded, each page takes seconds to minutes of CPU; cut, under a
    second: the deadline leaves room for a loaded machine)."""
    workspace_id, token = owner_token(bounded)
    receipt = await call(bounded, token, args(workspace_id, origin.url(f"/hostile/{page}")))
    assert receipt["state"] == "completed"
    result = receipt["result"]
    assert result["reason"] != "unsupported_content"
    assert _cause(bounded, receipt["id"]) is None
    if page in NODE_BOUND:
        assert (result["status"], result["reason"]) == ("partial", "nodes_limited")
        assert result["text"].startswith(("One sentence at the top", "The first paragraph"))
