"""`sosoapi corpora export` and GET /research-api/corpora/export, as real processes."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import httpx
import pytest

from tests.support.origin import HTTPSOrigin
from tests.support.services import ServeProcess, cli
from tests.support.wacz_check import fixity, records, validate

EXPORT = "/research-api/corpora/export"


def _json(args: list[str], env: dict[str, str]) -> dict:
    done = cli([*args, "--json"], env)
    assert done.returncode == 0, done.stderr
    parsed: dict = json.loads(done.stdout)
    return parsed


def _sealed(env: dict[str, str], origin: HTTPSOrigin, pages: dict[str, bytes]) -> str:
    ids = []
    for path in list(pages)[:2]:
        receipt = _json(["retrieve", origin.url(path)], env)
        ids.append(receipt["retrieval"]["evidence"]["evidence_id"])
    project = _json(["projects", "create", "Harbour"], env)["project"]["id"]
    _json(["projects", "add-sources", project, *[f"--evidence={e}" for e in ids]], env)
    corpus_id: str = _json(["corpora", "seal", project], env)["snapshot"]["id"]
    return corpus_id


def test_cli_export_writes_a_valid_package_and_refuses_a_missing_corpus(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict[str, bytes], tmp_path: Path
) -> None:
    corpus_id = _sealed(initialised, origin, pages)
    target = tmp_path / "out.wacz"
    summary = _json(["corpora", "export", corpus_id, "-o", str(target)], initialised)
    assert summary["revisions"] == 2 and summary["path"] == str(target)
    assert validate(target).returncode == 0
    with zipfile.ZipFile(target) as package:
        fixity(package)
        assert sum(r["type"] == "response" for r in records(package)) == 2
    missing = tmp_path / "missing.wacz"
    done = cli(["corpora", "export", initialised["WORKSPACE_ID"], "-o", str(missing)], initialised)
    assert done.returncode == 2 and "not_found" in done.stderr and "corpora_list" in done.stderr
    assert not missing.exists() and not missing.with_name("missing.wacz.partial").exists()


@pytest.mark.slow(reason="a server of its own (the CLI seals on its home) and an export process")
def test_http_export_streams_the_package_under_the_read_permission(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict[str, bytes], tmp_path: Path
) -> None:
    corpus_id = _sealed(initialised, origin, pages)
    ws = initialised["WORKSPACE_ID"]
    viewer = _json(["tokens", "create", "--workspace", ws, "--role", "viewer"], initialised)
    scopeless = _json(["tokens", "create", "--workspace", ws, "--role", "viewer", "--no-scope"],
                      initialised)  # fmt: skip
    query = {"workspace_id": ws, "corpus_id": corpus_id}
    with ServeProcess(initialised) as served, httpx.Client(base_url=served.base) as client:

        def get(token: str | None, **extra: str) -> httpx.Response:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            return client.get(EXPORT, params={**query, **extra}, headers=headers, timeout=60)

        answer = get(viewer["token"])
        assert answer.status_code == 200, answer.text
        assert answer.headers["content-type"] == "application/wacz"
        assert f"corpus-{corpus_id}.wacz" in answer.headers["content-disposition"]
        target = tmp_path / "http.wacz"
        target.write_bytes(answer.content)
        assert validate(target).returncode == 0
        assert get(viewer["token"], revision="1").status_code == 200
        refusals = {
            "no token": (get(None), 401),
            "no scope": (get(scopeless["token"]), 403),
            "unknown revision": (get(viewer["token"], revision="7"), 404),
            "bad revision": (get(viewer["token"], revision="x"), 400),
            "bad corpus id": (get(viewer["token"], corpus_id="nope"), 400),
        }
        for name, (response, status) in refusals.items():
            assert response.status_code == status, (name, response.text)
            assert response.headers["content-type"].startswith("application/problem+json")
        assert refusals["bad revision"][0].json()["field"] == "revision"
        assert client.post(EXPORT, params=query).status_code == 405
