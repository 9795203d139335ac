"""`sosoapi purge` and `sosoapi backup` (issue 10, item 12): real processes, both stores."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from tests.support.contract import assert_valid_output
from tests.support.faults import RETRIEVE, RETRIEVE_TOOL, retrieve_body
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import ServeProcess, cli

PURGE_KEYS = {"receipts", "mutations", "kept_pinned", "captures", "capture_blobs"}


def _ok(args: list[str], env: dict[str, str]) -> dict:
    done = cli([*args, "--json"], env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _sleep_past(*receipts: dict) -> None:
    """Sleep until every receipt's window is over (by its own valid_until, not a guess)."""
    ends = [datetime.fromisoformat(r["retrieval"]["valid_until"]) for r in receipts]
    left = (max(ends) - datetime.now(UTC)).total_seconds()
    time.sleep(max(0.0, left) + 0.2)


@pytest.mark.slow
def test_purge_removes_only_old_settled_unpinned_receipts_and_says_so(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    # A window long enough for a loaded machine to start each read inside it (a read that
    # has not started when its window ends expires instead of completing).
    env = {**initialised, "SOSOAPI_IDEMPOTENCY_WINDOW_SECONDS": "5"}
    paths = list(pages)[:3]
    old, pinned, third = (_ok(["retrieve", origin.url(p)], env) for p in paths)
    assert [r["retrieval"]["state"] for r in (old, pinned, third)] == ["completed"] * 3
    evidence_before = _ok(["evidence", "list"], env)["items"]
    project = _ok(["projects", "create", "Pinned"], env)["project"]
    _ok(
        ["projects", "add-sources", project["id"], "--evidence",
         pinned["retrieval"]["evidence"]["evidence_id"]],
        env,
    )  # fmt: skip
    _ok(["corpora", "seal", project["id"]], env)
    refused = cli(["purge", "--older-than", "thirty days"], env)
    assert refused.returncode == 2 and "--older-than" in refused.stderr
    assert "30d" in refused.stderr  # names the fix
    _sleep_past(old, pinned, third)  # past every valid_until
    young = _ok(["purge", "--older-than", "1d"], env)
    assert young["removed"] == {
        "receipts": 0, "mutations": 0, "kept_pinned": 0, "captures": 0, "capture_blobs": 0
    }  # fmt: skip
    fresh = _ok(  # a day's window (the default)
        ["retrieve", origin.url(paths[2]), "--mutation-id", str(uuid.uuid4())], initialised
    )
    assert fresh["retrieval"]["state"] == "completed"  # inside its window: never purged
    done = _ok(["purge", "--older-than", "0s"], env)
    assert set(done["removed"]) == PURGE_KEYS
    # the first and third receipts (window over, settled, unpinned) go; the pinned one stays;
    # so do the captures of the two unpinned revisions and their bodies
    assert done["removed"] == {
        "receipts": 2, "mutations": 2, "kept_pinned": 1, "captures": 2, "capture_blobs": 2
    }  # fmt: skip
    assert _ok(["evidence", "list"], env)["items"] == evidence_before  # evidence untouched
    replay_pinned = _ok(
        ["retrieve", origin.url(paths[1]), "--mutation-id", pinned["retrieval"]["mutation_id"]],
        env,
    )
    assert replay_pinned == pinned
    kept_fresh = _ok(
        ["retrieve", origin.url(paths[2]), "--mutation-id", fresh["retrieval"]["mutation_id"]],
        env,
    )
    assert kept_fresh == fresh
    assert origin.hits[paths[0]] == 1 and origin.hits[paths[1]] == 1
    # a purged key is free again once its window is over: a new receipt, a new read
    again = _ok(
        ["retrieve", origin.url(paths[0]), "--mutation-id", old["retrieval"]["mutation_id"]], env
    )
    assert again["retrieval"]["id"] != old["retrieval"]["id"]
    assert origin.hits[paths[0]] == 2


@pytest.mark.parametrize("process_env", ["postgres"], indirect=True)
def test_backup_refuses_postgres_and_points_to_the_docs(
    initialised: dict[str, str], tmp_path: Path
) -> None:
    refused = cli(["backup", str(tmp_path / "copy.sqlite3")], initialised)
    assert refused.returncode == 2
    assert "pg_dump" in refused.stderr and "docs/operations.md" in refused.stderr
    assert not (tmp_path / "copy.sqlite3").exists()


@pytest.mark.slow(reason="a server of its own written to while the backup runs")
@pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)
def test_backup_while_writing_holds_every_committed_receipt(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict, tmp_path: Path
) -> None:
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    bodies = list(pages.values())
    committed: list[str] = []  # retrieval ids answered as completed
    stop = threading.Event()
    target = tmp_path / "backup.sqlite3"

    def write(server: ServeProcess) -> None:
        i = 0
        while not stop.is_set():
            path = f"/w/{i}"
            origin.routes[path] = Route(bodies[i % len(bodies)])
            body = retrieve_body(initialised["WORKSPACE_ID"], origin.url(path), str(uuid.uuid4()))
            response = httpx.post(server.base + RETRIEVE, json=body, headers=headers, timeout=60)
            assert response.status_code == 200, response.text
            receipt = response.json()
            assert_valid_output(RETRIEVE_TOOL, receipt)
            if receipt["retrieval"]["state"] == "completed":
                committed.append(receipt["retrieval"]["id"])
            i += 1

    with ServeProcess(initialised) as server:
        writer = threading.Thread(target=write, args=(server,))
        writer.start()
        try:
            deadline = time.monotonic() + 60
            while len(committed) < 5:
                assert writer.is_alive() and time.monotonic() < deadline, "writes did not start"
                time.sleep(0.05)
            before = list(committed)
            done = cli(["backup", str(target), "--json"], initialised)
        finally:
            stop.set()
            writer.join(60)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report == {"path": str(target), "bytes": target.stat().st_size, "integrity": "ok"}
    copy = sqlite3.connect(target)
    try:
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        held = {
            row[0] for row in copy.execute("SELECT id FROM retrievals WHERE state = 'completed'")
        }
        revisions = copy.execute("SELECT count(*) FROM evidence_revisions").fetchone()[0]
    finally:
        copy.close()
    assert set(before) <= held
    assert revisions >= len(before)
    again = cli(["backup", str(target)], initialised)
    assert again.returncode == 2 and "already exists" in again.stderr
