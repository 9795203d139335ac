"""A killed server leaves no corrupt state; the CLI administers and calls the operations."""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from pathlib import Path

import httpx
import pytest

from sosoapi.testing.processes import shared_verify
from tests.support.calls import RETRIEVE_PATH
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import ServeProcess, cli, cli_process


@pytest.mark.exclusive
def test_sigkill_during_a_slow_read_is_unconfirmed_after_the_lease(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    origin.routes["/stall"] = Route(next(iter(pages.values())), delay=60)
    env = {**initialised, "SOSOAPI_LEASE_SECONDS": "2", "SOSOAPI_WAIT_BUDGET_SECONDS": "0.5"}
    request = {
        "url": origin.url("/stall"),
        "kind": "url_text",
        "workspace_id": initialised["WORKSPACE_ID"],
        "mutation_id": str(uuid.uuid4()),
    }
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    server = ServeProcess(env).start()
    try:
        deadline = time.monotonic() + 10
        with httpx.Client(headers=headers, timeout=30, verify=shared_verify()) as http:
            while True:  # wait until the read holds its lease, then kill mid-read
                first = http.post(server.base + RETRIEVE_PATH, json=request).json()
                if first["retrieval"]["state"] != "pending" or time.monotonic() > deadline:
                    break
        assert first["retrieval"]["state"] == "running"
    finally:
        server.kill()
    home = Path(initialised["SOSOAPI_HOME"]) / "sosoapi.sqlite3"
    if "SOSOAPI_DATABASE_URL" not in initialised:
        assert sqlite3.connect(home).execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with (
        ServeProcess(env) as restarted,
        httpx.Client(headers=headers, timeout=30, verify=shared_verify()) as http,
    ):
        deadline = time.monotonic() + 20
        while True:
            replay = http.post(restarted.base + RETRIEVE_PATH, json=request).json()
            if replay["retrieval"]["state"] != "running" or time.monotonic() > deadline:
                break
            time.sleep(0.3)
    assert_valid_output("sosoapi_research_evidence_retrieve", replay)
    assert replay["retrieval"]["id"] == first["retrieval"]["id"]
    assert replay["retrieval"]["state"] == "unconfirmed"
    assert replay["retrieval"]["result"] is None
    assert origin.hits["/stall"] == 1


def test_init_makes_one_workspace_and_says_so_when_run_again(
    process_env: dict[str, str],
) -> None:
    """The first `init` runs `sosoapi` as a real process: the CLI's smoke test (the other
    commands here and elsewhere run in process)."""
    one = json.loads(cli_process(["init", "--json"], process_env).stdout)
    assert len(one["token"]) >= 43 and one["existed"] is False  # 256 random bits, url-safe
    again = cli(["init"], process_env)
    assert again.returncode == 0, again.stderr
    assert f"the local workspace {one['workspace_id']} exists" in again.stdout
    assert "no token minted" in again.stdout and "sosoapi_" not in again.stdout
    two = json.loads(cli(["init", "--json"], process_env).stdout)
    assert two == {"workspace_id": one["workspace_id"], "token": None, "existed": True}
    assert len(json.loads(cli(["tokens", "list", "--json"], process_env).stdout)) == 1
    three = json.loads(cli(["init", "--json", "--new-token"], process_env).stdout)
    assert three["workspace_id"] == one["workspace_id"] and three["token"] != one["token"]
    listed = json.loads(cli(["workspaces", "list", "--json"], process_env).stdout)
    assert [w["id"] for w in listed] == [one["workspace_id"]]


def test_cli_retrieve_prints_its_mutation_id_and_tokens_can_be_revoked(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    path = next(iter(pages))
    done = cli(["retrieve", origin.url(path), "--json"], initialised)
    assert done.returncode == 0, done.stderr
    receipt = json.loads(done.stdout)
    assert_valid_output("sosoapi_research_evidence_retrieve", receipt)
    mutation_id = receipt["retrieval"]["mutation_id"]
    assert f"mutation_id: {mutation_id}" in done.stderr
    replay = cli(
        ["retrieve", origin.url(path), "--mutation-id", mutation_id, "--json"], initialised
    )
    assert json.loads(replay.stdout) == receipt
    assert origin.hits[path] == 1

    minted = json.loads(
        cli(
            [
                "tokens",
                "create",
                "--workspace",
                initialised["WORKSPACE_ID"],
                "--role",
                "editor",
                "--json",
            ],
            initialised,
        ).stdout
    )
    as_editor = {**initialised, "SOSOAPI_TOKEN": minted["token"]}
    assert cli(["retrieve", origin.url(path)], as_editor).returncode == 0
    listed = json.loads(cli(["tokens", "list", "--json"], initialised).stdout)
    assert minted["token"] not in json.dumps(listed)  # only hashes are stored
    assert cli(["tokens", "revoke", minted["id"]], initialised).returncode == 0
    refused = cli(["retrieve", origin.url(path)], as_editor)
    assert refused.returncode == 2 and "unauthenticated" in refused.stderr


def test_cli_refusals_name_the_problem(initialised: dict[str, str]) -> None:
    no_scope = json.loads(
        cli(
            [
                "tokens",
                "create",
                "--workspace",
                initialised["WORKSPACE_ID"],
                "--role",
                "owner",
                "--no-scope",
                "--json",
            ],
            initialised,
        ).stdout
    )
    refused = cli(
        ["retrieve", "https://example.com/"], {**initialised, "SOSOAPI_TOKEN": no_scope["token"]}
    )
    assert refused.returncode == 2 and "agent:research" in refused.stderr
    expired = json.loads(
        cli(
            [
                "tokens",
                "create",
                "--workspace",
                initialised["WORKSPACE_ID"],
                "--role",
                "owner",
                "--expires-in",
                "0.001",
                "--json",
            ],
            initialised,
        ).stdout
    )
    time.sleep(0.05)
    refused = cli(
        ["retrieve", "https://example.com/"], {**initialised, "SOSOAPI_TOKEN": expired["token"]}
    )
    assert refused.returncode == 2 and "expired" in refused.stderr
    other = json.loads(cli(["workspaces", "create", "elsewhere", "--json"], initialised).stdout)
    refused = cli(["retrieve", "https://example.com/", "--workspace", other["id"]], initialised)
    assert refused.returncode == 2 and "not_found" in refused.stderr
    cli(["workspaces", "disable-research", initialised["WORKSPACE_ID"]], initialised)
    refused = cli(["retrieve", "https://example.com/"], initialised)
    assert refused.returncode == 2 and "not enabled" in refused.stderr


@pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)
def test_the_loop_from_a_shell(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict, tmp_path: Path
) -> None:
    env = {**initialised, "SOSOAPI_UPLOAD_ROOTS": str(tmp_path)}

    def run(*args: str) -> dict:
        done = cli([*args, "--json"], env)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    receipt = run("retrieve", origin.url(next(iter(pages))))
    evidence_id = receipt["retrieval"]["evidence"]["evidence_id"]
    captions = tmp_path / "talk.srt"
    captions.write_text("1\n00:00:01,000 --> 00:00:02,000\nHello from a local file\n")
    uploaded = run("evidence", "upload", str(captions), "--kind", "published_captions")
    assert uploaded["retrieval"]["result"]["segments"][0]["text"] == "Hello from a local file"
    project = run("projects", "create", "From a shell")["project"]
    run(
        "projects",
        "add-sources",
        project["id"],
        "--evidence",
        evidence_id,
        "--note",
        "one was paywalled",
    )
    removed = run("projects", "remove-sources", project["id"], "--note", "one was paywalled")
    assert removed["project"]["revision"] == 3
    sealed = run("corpora", "seal", project["id"])
    assert sealed["snapshot"]["coverage"] == "supplied_set"
    got = run("corpora", "get", sealed["snapshot"]["id"])
    assert got["snapshot"] == sealed["snapshot"]
    assert run("evidence", "get", evidence_id)["evidence"]["id"] == evidence_id
    assert [i["id"] for i in run("corpora", "list")["items"]] == [sealed["snapshot"]["id"]]
    assert len(run("evidence", "list")["items"]) == 2
    assert run("whoami")["workspaces"][0]["role"] == "owner"


@pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)
def test_a_one_shot_command_parses_in_one_killable_process_unless_told(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    """`sosoapi retrieve` reads one source in one bounded worker process (a thread
    cannot be killed at a parse's bounds); SOSOAPI_PARSE_WORKERS=0 keeps it in threads."""
    url = origin.url(next(iter(pages)))
    env = {**initialised, "SOSOAPI_LOG_LEVEL": "INFO"}
    env.pop("SOSOAPI_PARSE_WORKERS", None)
    plain = cli(["retrieve", url, "--json"], env)
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)["retrieval"]["result"]["status"] == "ready"
    assert "parsing pool started workers=1" in plain.stderr
    threads = cli(["retrieve", url, "--json"], {**env, "SOSOAPI_PARSE_WORKERS": "0"})
    assert threads.returncode == 0, threads.stderr
    assert json.loads(threads.stdout)["retrieval"]["result"]["status"] == "ready"
    assert "parsing pool started" not in threads.stderr
