"""`sosoapi connect` prints each client's block; the printed stdio block starts a working
server with nothing but PATH in the environment; a stdio server names its database."""

from __future__ import annotations

import json
import os
import shlex
import uuid
from datetime import datetime, timedelta
from pathlib import Path

import mcp
import pytest
from mcp.client.stdio import StdioServerParameters

from sosoapi.store.settings import sqlite_url
from tests.support.contract import assert_valid_output
from tests.support.services import SOSOAPI, cli

pytestmark = pytest.mark.slow
PATH_ONLY = {"PATH": os.environ["PATH"]}


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """A data folder, and a HOME of its own (connect creates the default upload root)."""
    (tmp_path / "user").mkdir()
    return {
        "SOSOAPI_HOME": str(tmp_path / "home"),
        "SOSOAPI_LOG_LEVEL": "WARNING",
        "HOME": str(tmp_path / "user"),
    }


def connect(env: dict[str, str], *args: str) -> str:
    done = cli(["connect", *args], env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def only_path(command: str, args: list[str], env: dict[str, str]) -> StdioServerParameters:
    """Start `command` as a client would, with PATH and the block's `env`, nothing else
    (`env -i`: the SDK would otherwise add HOME, USER and others)."""
    assignments = [f"{k}={v}" for k, v in {**PATH_ONLY, **env}.items()]
    return StdioServerParameters(
        command="/usr/bin/env", args=["-i", *assignments, command, *args], env=PATH_ONLY, cwd="/"
    )


async def test_printed_stdio_block_runs_with_only_path(home: dict[str, str]) -> None:
    block = json.loads(connect(home, "--client", "claude-desktop"))["mcpServers"]["sosoapi"]
    assert block["command"] == SOSOAPI and Path(block["command"]).is_absolute()
    assert block["args"] == ["mcp"]
    assert block["env"]["SOSOAPI_HOME"] == home["SOSOAPI_HOME"]
    async with mcp.Client(only_path(block["command"], block["args"], block["env"])) as client:
        whoami = await client.call_tool("sosoapi_whoami", {})
    assert whoami.is_error is False, whoami.content
    assert_valid_output("sosoapi_whoami", whoami.structured_content)
    local = json.loads(cli(["workspaces", "list", "--json"], home).stdout)
    assert [w["id"] for w in whoami.structured_content["workspaces"]] == [local[0]["id"]]
    tokens = json.loads(cli(["tokens", "list", "--json"], home).stdout)
    assert tokens[-1]["label"] == "sosoapi connect claude-desktop"
    assert tokens[-1]["last_used_at"] is not None  # the whoami above used it


async def test_the_stdio_block_names_an_upload_root_that_works(
    home: dict[str, str], tmp_path: Path
) -> None:
    """A client starts `sosoapi mcp` in `/`; the block's root makes uploads work there."""
    done = cli(["connect", "--client", "claude-desktop"], home)
    assert done.returncode == 0, done.stderr
    block = json.loads(done.stdout)["mcpServers"]["sosoapi"]
    root = Path(home["HOME"]) / "SosoAPI"  # no Documents folder in this HOME
    assert block["env"]["SOSOAPI_UPLOAD_ROOTS"] == str(root) and root.is_dir()
    assert f"Uploads: the client may read files you put in {root}" in done.stderr
    (root / "notes.txt").write_text("Minutes of the harbour board, read from a local file.")
    async with mcp.Client(only_path(block["command"], block["args"], block["env"])) as client:
        whoami = await client.call_tool("sosoapi_whoami", {})
        uploaded = await client.call_tool(
            "sosoapi_research_evidence_upload",
            {
                "workspace_id": whoami.structured_content["workspaces"][0]["id"],
                "mutation_id": str(uuid.uuid4()),
                "path": str(root / "notes.txt"),
                "kind": "url_text",
            },
        )
    assert uploaded.is_error is False, uploaded.content
    assert uploaded.structured_content["retrieval"]["result"]["status"] == "ready"

    (Path(home["HOME"]) / "Documents").mkdir()
    chosen = tmp_path / "papers"
    chosen.mkdir()
    picked = json.loads(connect(home, "--client", "cursor", "--upload-root", str(chosen)))
    assert picked["mcpServers"]["sosoapi"]["env"]["SOSOAPI_UPLOAD_ROOTS"] == str(chosen)
    default = json.loads(connect(home, "--client", "vscode"))["servers"]["sosoapi"]
    assert default["env"]["SOSOAPI_UPLOAD_ROOTS"] == str(Path(home["HOME"]) / "Documents/SosoAPI")
    for bad, problem in ((home["HOME"], "home directory"), (str(tmp_path / "nope"), "not an")):
        refused = cli(["connect", "--client", "cursor", "--upload-root", bad], home)
        assert refused.returncode == 2 and "--upload-root" in refused.stderr, refused.stderr
        assert problem in refused.stderr


async def test_a_missing_upload_root_is_a_tool_error_not_a_dead_server(
    home: dict[str, str], tmp_path: Path
) -> None:
    block = json.loads(connect(home, "--client", "claude-desktop"))["mcpServers"]["sosoapi"]
    missing = tmp_path / "not-made-yet"
    env = {**block["env"], "SOSOAPI_UPLOAD_ROOTS": str(missing)}
    async with mcp.Client(only_path(block["command"], block["args"], env)) as client:
        whoami = await client.call_tool("sosoapi_whoami", {})  # the server started
        assert whoami.is_error is False, whoami.content
        refused = await client.call_tool(
            "sosoapi_research_evidence_upload",
            {
                "workspace_id": whoami.structured_content["workspaces"][0]["id"],
                "mutation_id": str(uuid.uuid4()),
                "path": str(missing / "notes.txt"),
                "kind": "url_text",
            },
        )
    assert refused.is_error is True
    text = refused.content[0].text
    assert f"SOSOAPI_UPLOAD_ROOTS names '{missing}'" in text and "not an existing directory" in text


def _live(home: dict[str, str], label: str) -> list[dict]:
    listed = json.loads(cli(["tokens", "list", "--json"], home).stdout)
    return [t for t in listed if t["label"] == label and not t["revoked"]]


def test_connect_gives_each_client_one_agent_token(home: dict[str, str]) -> None:
    """An editor with agent:research only, expiring by default; connecting again replaces
    it (the secret is stored hashed, so it cannot be shown twice): tokens do not pile up."""
    first = cli(["connect", "--client", "claude-desktop"], home)
    assert first.returncode == 0, first.stderr
    (token,) = _live(home, "sosoapi connect claude-desktop")
    assert token["scopes"] == ["agent:research"]
    assert token["roles"] == [{"workspace": "local", "role": "editor"}]
    expires = datetime.fromisoformat(token["expires_at"]) - datetime.fromisoformat(
        token["created_at"]
    )
    assert expires == timedelta(days=90)
    assert f"Token {token['id']} for claude-desktop: role editor" in first.stderr

    again = cli(["connect", "--client", "claude-desktop", "--expires-in", "12h"], home)
    assert again.returncode == 0, again.stderr
    (replacement,) = _live(home, "sosoapi connect claude-desktop")
    assert replacement["id"] != token["id"] and f"replaces {token['id']}" in again.stderr
    lasts = datetime.fromisoformat(replacement["expires_at"]) - datetime.fromisoformat(
        replacement["created_at"]
    )
    assert lasts == timedelta(hours=12)
    assert connect(home, "--client", "cursor", "--expires-in", "never")
    (cursor,) = _live(home, "sosoapi connect cursor")
    assert cursor["expires_at"] is None
    assert len(_live(home, "sosoapi connect claude-desktop")) == 1  # cursor's is its own

    refused = cli(["connect", "--client", "cursor", "--expires-in", "soon"], home)
    assert refused.returncode == 2 and "--expires-in" in refused.stderr
    assert len(_live(home, "sosoapi connect cursor")) == 1  # nothing minted or revoked

    table = cli(["tokens", "list"], home)
    assert table.returncode == 0, table.stderr
    header, *rows = table.stdout.splitlines()
    assert header.split() == ["id", "name", "kind", "role", "created", "expires", "last", "used"]
    assert any(r.startswith(replacement["id"]) and "editor (local)" in r for r in rows)
    assert any(r.startswith(token["id"]) and "revoked" in r for r in rows)


async def test_unknown_token_on_stdio_names_the_database(
    home: dict[str, str], tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    env = {"SOSOAPI_HOME": str(elsewhere), "SOSOAPI_TOKEN": "sosoapi_minted-in-another-home"}
    async with mcp.Client(only_path(SOSOAPI, ["mcp"], env)) as client:
        whoami = await client.call_tool("sosoapi_whoami", {})
    assert whoami.is_error is True
    text = whoami.content[0].text
    assert "unknown to this server" in text
    assert f"opened the database {sqlite_url(elsewhere)}" in text
    assert "SOSOAPI_HOME" in text


def test_each_client_gets_its_own_format(home: dict[str, str]) -> None:
    vscode = json.loads(connect(home, "--client", "vscode"))["servers"]["sosoapi"]
    assert vscode["type"] == "stdio" and vscode["command"] == SOSOAPI
    cursor = json.loads(connect(home, "--client", "cursor"))["mcpServers"]["sosoapi"]
    assert cursor["args"] == ["mcp"] and cursor["env"]["SOSOAPI_TOKEN"].startswith("sosoapi_")

    code = shlex.split(connect(home, "--client", "claude-code"))
    assert code[:6] == ["claude", "mcp", "add", "--transport", "stdio", "sosoapi"]
    assert code[-2:] == [SOSOAPI, "mcp"]
    assert f"SOSOAPI_HOME={home['SOSOAPI_HOME']}" in code
    inspector = shlex.split(connect(home, "--client", "inspector"))
    assert inspector[:2] == ["npx", "@modelcontextprotocol/inspector"]
    assert inspector[-3:] == ["--", SOSOAPI, "mcp"]

    url = "http://127.0.0.1:9000/mcp"
    remote = json.loads(connect(home, "--client", "vscode", "--transport", "http", "--url", url))
    server = remote["servers"]["sosoapi"]
    assert server["type"] == "http" and server["url"] == url
    token = server["headers"]["Authorization"].removeprefix("Bearer ")
    minted = json.loads(cli(["tokens", "list", "--json"], home).stdout)
    assert minted[-1]["label"] == "sosoapi connect vscode" and token.startswith("sosoapi_")

    before = len(minted)
    oauth = connect(home, "--client", "cursor", "--transport", "http", "--url", url, "--oauth")
    assert json.loads(oauth) == {"mcpServers": {"sosoapi": {"url": url}}}
    code_oauth = shlex.split(
        connect(home, "--client", "claude-code", "--transport", "http", "--url", url, "--oauth")
    )
    assert code_oauth == ["claude", "mcp", "add", "--transport", "http", "sosoapi", url]
    assert len(json.loads(cli(["tokens", "list", "--json"], home).stdout)) == before  # none minted


def test_oauth_needs_http(home: dict[str, str]) -> None:
    done = cli(["connect", "--client", "cursor", "--oauth"], home)
    assert done.returncode == 2 and "--oauth needs --transport http" in done.stderr
