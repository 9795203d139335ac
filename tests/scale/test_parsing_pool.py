"""CPU-bound parsing in a pool of worker processes: results equal to parsing in threads."""

from __future__ import annotations

import os
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from sosoapi.application import Application
from sosoapi.config import (
    Settings,
    default_workers,
    hand_to_serve_workers,
    parse_workers_per_process,
)
from sosoapi.research.offload import Offload
from tests.support.calls import RETRIEVE
from tests.support.contract import assert_valid_output
from tests.support.lifespan import held_open
from tests.support.origin import HTTPSOrigin
from tests.support.services import make_settings, owner_token


async def test_the_pool_runs_work_in_other_processes() -> None:
    offload = Offload(2)
    offload.start()
    try:
        pids = {await offload.run(os.getpid) for _ in range(8)}
    finally:
        offload.close()
    assert pids and os.getpid() not in pids


async def test_without_workers_parsing_stays_in_this_process() -> None:
    assert await Offload(0).run(os.getpid) == os.getpid()


def _usable_cores() -> int:
    """This process's cores, read here from the OS, not from the code under test."""
    return len(os.sched_getaffinity(0))


def test_the_default_is_one_worker_per_usable_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOSOAPI_PARSE_WORKERS", raising=False)
    cores = _usable_cores()
    assert default_workers() == cores
    assert Settings.from_env({}).parse_workers == cores  # one core too: a thread is unkillable
    assert Settings.from_env({"SOSOAPI_PARSE_WORKERS": "3"}).parse_workers == 3
    # a one-shot command parses in one killable process unless the operator says otherwise
    assert Settings.from_env({}, one_shot=True).parse_workers == 1
    assert Settings.from_env({"SOSOAPI_PARSE_WORKERS": "0"}, one_shot=True).parse_workers == 0
    assert Settings.from_env({"SOSOAPI_PARSE_WORKERS": "3"}, one_shot=True).parse_workers == 3
    with pytest.raises(ValueError, match=r"SOSOAPI_PARSE_WORKERS='two' is not a whole number"):
        Settings.from_env({"SOSOAPI_PARSE_WORKERS": "two"})


@pytest.mark.parametrize(
    ("processes", "cores", "share"),
    [(2, 2, 1), (2, 8, 4), (3, 8, 2), (4, 2, 1), (2, 1, 1)],
)
def test_serve_workers_share_the_cores_as_parsing_processes(
    processes: int, cores: int, share: int
) -> None:
    assert parse_workers_per_process(processes, cores) == share


def test_serve_workers_parse_in_processes_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SOSOAPI_PARSE_WORKERS", "SOSOAPI_SERVE_WORKER_OPTIONS"):
        monkeypatch.setenv(name, "")  # restored after the test, whatever this one sets
        monkeypatch.delenv(name)
    hand_to_serve_workers(["127.0.0.1", 0, "full", None, os.getpid()], 2)
    cores = _usable_cores()  # two server processes share them, at least one each
    expected = max(1, cores // 2)
    assert Settings.from_env(dict(os.environ)).parse_workers == expected
    monkeypatch.setenv("SOSOAPI_PARSE_WORKERS", "0")  # the operator's choice stands
    hand_to_serve_workers(["127.0.0.1", 0, "full", None, os.getpid()], 2)
    assert Settings.from_env(dict(os.environ)).parse_workers == 0


async def _results(settings: Settings, urls: list[str]) -> list[dict]:
    app = Application(settings)
    results = []
    async with held_open(app.running()):
        workspace_id, token = owner_token(app)
        for url in urls:
            arguments = {
                "url": url,
                "kind": "url_text",
                "workspace_id": workspace_id,
                "mutation_id": str(uuid.uuid4()),  # a fresh read, never a replay
            }
            outcome = await app.research.call(RETRIEVE, token, arguments, transport="http")
            data = outcome.output.wire()
            assert_valid_output(RETRIEVE, data)
            results.append(data["retrieval"]["result"])
    app.store.close()
    return results


async def test_pages_parsed_in_the_pool_equal_pages_parsed_in_threads(
    database_url: str, tmp_path: Path, origin: HTTPSOrigin, pages: dict[str, bytes]
) -> None:
    urls = [origin.url(path) for path in list(pages)[:4]]
    base = make_settings(database_url, tmp_path / "threads", origin.egress_env())
    threads = await _results(base, urls)
    pooled = await _results(
        replace(base, home=tmp_path / "pool", parse_workers=2),
        urls,
    )
    drop = {"retrieved_at": None}
    for one, two in zip(threads, pooled, strict=True):
        assert one["status"] == "ready" and one["text"]
        assert {**one, "provenance": one["provenance"] | drop} == {
            **two,
            "provenance": two["provenance"] | drop,
        }
