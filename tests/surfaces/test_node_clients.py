"""The real Node MCP clients against real `sosoapi` processes, over stdio and streamable HTTP.

- The MCP Inspector CLI: tools/list (with `--strict` schema checks), a retrieve,
  resources/templates/list, resources/read of the retrieved evidence, prompts/list and get.
- The official TypeScript SDK client (tests/node/sdk_client.mjs), which validates every
  `structuredContent` against the listed `outputSchema` itself.
- The MCP conformance suite's server scenarios that apply to a server with its own tools
  and no resources, prompts, logging or completion. Its `server` command sends no
  `Authorization`, so it talks to `sosoapi serve` through `HeaderProxy`, which adds the
  bearer header and forwards `Host` and `Origin` as sent.

The versions are pinned in tests/node/package-lock.json; scripts/install-node-tools.sh
installs them into .node-tools/. One `sosoapi serve` and one HTTPS origin per module.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.calls import RETRIEVE
from tests.support.contract import assert_valid_output
from tests.support.header_proxy import HeaderProxy
from tests.support.node_tools import ROOT, NodeTools, node_tools
from tests.support.origin import HTTPSOrigin, Route
from tests.support.pages import real_pages
from tests.support.services import SOSOAPI, STARTUP_SECONDS, ServeProcess, cli

pytestmark = pytest.mark.slow
WHOAMI = "sosoapi_whoami"
UPLOAD = "sosoapi_research_evidence_upload"
SDK_CLIENT = ROOT / "tests" / "node" / "sdk_client.mjs"
TRANSPORTS = ["stdio", "http"]
# The server scenarios of the suite that apply here (the others need its own test tools,
# or resources, prompts, logging or completion, which this server does not offer).
SCENARIOS = [
    "server-initialize",
    "ping",
    "tools-list",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
]
PASSED = {"SUCCESS", "INFO"}


@pytest.fixture(scope="module")
def tools() -> NodeTools:
    return node_tools()


@pytest.fixture(scope="module")
def site() -> Iterator[HTTPSOrigin]:
    """The origin; each test adds its own page, so it can count that page's reads."""
    with HTTPSOrigin() as origin:
        yield origin


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory, site: HTTPSOrigin) -> dict[str, str]:
    """A SQLite home with the local workspace, its owner's token, and output schemas listed
    (so the TypeScript client has a schema to check every result against)."""
    base = {
        "SOSOAPI_HOME": str(tmp_path_factory.mktemp("node-clients") / "home"),
        "SOSOAPI_LOG_LEVEL": "WARNING",
        "SOSOAPI_OUTPUT_SCHEMAS": "1",
        **site.egress_env(),
    }
    done = cli(["init", "--json"], base)
    assert done.returncode == 0, done.stderr
    created = json.loads(done.stdout)
    return {**base, "SOSOAPI_TOKEN": created["token"], "WORKSPACE_ID": created["workspace_id"]}


@pytest.fixture(scope="module")
def served(tools: NodeTools, env: dict[str, str]) -> Iterator[ServeProcess]:
    with ServeProcess(env) as server:
        yield server


@pytest.fixture
def page(request: pytest.FixtureRequest, site: HTTPSOrigin) -> str:
    """A page of its own for this test on the origin."""
    path = f"/{request.node.name}".replace("[", "-").rstrip("]")
    site.routes[path] = Route(real_pages()[0].html)
    return path


def server_env(env: dict[str, str]) -> dict[str, str]:
    """What a stdio client passes to `sosoapi mcp`: the server's settings and token."""
    return {k: v for k, v in env.items() if k.startswith("SOSOAPI_")}


def retrieve_args(env: dict[str, str], url: str) -> dict[str, str]:
    return {
        "url": url,
        "kind": "url_text",
        "workspace_id": env["WORKSPACE_ID"],
        "mutation_id": str(uuid.uuid4()),
    }


def assert_ready(result: dict[str, Any], site: HTTPSOrigin, path: str) -> None:
    assert result["isError"] is False, result
    assert_valid_output(RETRIEVE, result["structuredContent"])
    assert result["structuredContent"]["retrieval"]["result"]["status"] == "ready"
    assert site.hits[path] == 1


def assert_whoami(result: dict[str, Any], env: dict[str, str]) -> None:
    assert result["isError"] is False, result
    assert_valid_output(WHOAMI, result["structuredContent"])
    workspaces = result["structuredContent"]["workspaces"]
    assert [w["id"] for w in workspaces] == [env["WORKSPACE_ID"]]


# --- the MCP Inspector CLI -----------------------------------------------------------------


def inspector_target(transport: str, env: dict[str, str], served: ServeProcess) -> list[str]:
    if transport == "stdio":
        pairs = [arg for k, v in server_env(env).items() for arg in ("-e", f"{k}={v}")]
        return [*pairs, "--", SOSOAPI, "mcp"]
    header = f"Authorization: Bearer {env['SOSOAPI_TOKEN']}"
    return [f"{served.base}/mcp", "--transport", "http", "--header", header, "--stored-auth-only"]


def inspector(
    tools: NodeTools, tmp_path: Path, target: list[str], *method: str
) -> tuple[int, dict[str, Any], str]:
    """One `inspector --cli` run: exit code, its JSON answer, stderr. Its catalog and
    settings go to `tmp_path`, never to the user's home."""
    launcher = tools.bin("@modelcontextprotocol/inspector", "mcp-inspector")
    options = ["--format", "json", "--connect-timeout", str(STARTUP_SECONDS * 1000)]
    private = {
        "HOME": str(tmp_path),
        "MCP_CATALOG_PATH": str(tmp_path / "catalog.json"),
        "MCP_CLIENT_CONFIG_PATH": str(tmp_path / "client.json"),
    }
    done = tools.run(launcher, ["--cli", *options, *method, *target], private)
    answer = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, answer, done.stderr


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_inspector_cli(
    tools: NodeTools,
    env: dict[str, str],
    served: ServeProcess,
    site: HTTPSOrigin,
    page: str,
    tmp_path: Path,
    transport: str,
) -> None:
    """The tools (`--strict` schema checks), a retrieve, and the MCP-native surface through
    the Inspector: templates, a read of the evidence the retrieve made (fenced text and
    JSON), the link in the retrieve result, the prompts. Each run is a Node process (and
    over stdio a `sosoapi mcp`), so the retrieve is the one tool call: whoami's answer on
    each transport is checked by the TypeScript SDK client below."""
    target = inspector_target(transport, env, served)

    code, listed, stderr = inspector(tools, tmp_path, target, "--method", "tools/list", "--strict")
    assert code == 0, stderr  # --strict exits 6 on a tool schema other clients cannot use
    names = {t["name"]: t for t in listed["result"]["tools"]}
    assert names[RETRIEVE]["outputSchema"] and names[WHOAMI]["outputSchema"]
    assert (UPLOAD in names) is (transport == "stdio")

    code, listed, stderr = inspector(
        tools, tmp_path, target, "--method", "resources/templates/list"
    )
    assert code == 0, stderr
    templates = {t["uriTemplate"] for t in listed["result"]["resourceTemplates"]}
    assert "sosoapi://workspaces/{workspace_id}/evidence/{evidence_id}" in templates
    assert len(templates) == 3

    arguments = json.dumps(retrieve_args(env, site.url(page)))
    call = ["--method", "tools/call", "--tool-name", RETRIEVE, "--tool-args-json", arguments]
    code, retrieved, stderr = inspector(tools, tmp_path, target, *call)
    assert code == 0, stderr
    assert_ready(retrieved["result"], site, page)
    evidence = retrieved["result"]["structuredContent"]["retrieval"]["evidence"]
    uri = (
        f"sosoapi://workspaces/{env['WORKSPACE_ID']}/evidence/{evidence['evidence_id']}"
        f"/revisions/{evidence['revision']}"
    )
    assert [c["uri"] for c in retrieved["result"]["content"] if c["type"] == "resource_link"] == [
        uri
    ]
    code, read, stderr = inspector(
        tools, tmp_path, target, "--method", "resources/read", "--uri", uri
    )
    assert code == 0, stderr
    text, as_json = read["result"]["contents"]
    assert 'untrusted-data nonce="' in text["text"]
    assert_valid_output("sosoapi_research_evidence_get", json.loads(as_json["text"]))

    code, prompts, stderr = inspector(tools, tmp_path, target, "--method", "prompts/list")
    assert code == 0, stderr
    assert {p["name"] for p in prompts["result"]["prompts"]} == {
        "check_quotations",
        "read_and_keep",
    }
    got = [  # the variadic --prompt-args ends at the next option, not at the server URL
        "--method",
        "prompts/get",
        "--prompt-args",
        f"workspace_id={env['WORKSPACE_ID']}",
        "corpus_id=c1",
        "draft=She said 'hello'.",
        "--prompt-name",
        "check_quotations",
    ]
    code, prompt, stderr = inspector(tools, tmp_path, target, *got)
    assert code == 0, stderr
    assert "sosoapi_research_evidence_quote" in prompt["result"]["messages"][0]["content"]["text"]


# --- the official TypeScript SDK client ----------------------------------------------------


def sdk_plan(
    tools: NodeTools,
    transport: str,
    env: dict[str, str],
    served: ServeProcess,
    site: HTTPSOrigin,
    page: str,
) -> dict[str, Any]:
    plan: dict[str, Any] = {
        "tools": str(tools.root),
        "transport": transport,
        "timeout_ms": STARTUP_SECONDS * 1000,
        "workspace_id": env["WORKSPACE_ID"],
        "page": site.url(page),
        "missing": site.url(page + "-missing"),
        "mutation_ids": [str(uuid.uuid4()), str(uuid.uuid4())],
    }
    if transport == "stdio":
        return {**plan, "command": SOSOAPI, "args": ["mcp"], "env": server_env(env)}
    return {**plan, "url": f"{served.base}/mcp", "token": env["SOSOAPI_TOKEN"]}


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_typescript_sdk_client(
    tools: NodeTools,
    env: dict[str, str],
    served: ServeProcess,
    site: HTTPSOrigin,
    page: str,
    transport: str,
) -> None:
    plan = sdk_plan(tools, transport, env, served, site, page)
    done = tools.run(SDK_CLIENT, [json.dumps(plan)], {})
    assert done.returncode == 0, done.stderr  # a schema mismatch is an McpError: exit 1
    report = json.loads(done.stdout)

    assert report["sdk_version"] == tools.version("@modelcontextprotocol/sdk")
    assert report["server"]["name"] == "sosoapi-research"
    listed = {t["name"]: t["output_schema"] for t in report["tools"]}
    assert all(listed.values()), listed  # so the client checked every result below
    assert (UPLOAD in listed) is (transport == "stdio")
    assert_whoami(report["whoami"], env)
    assert_ready(report["retrieved"], site, page)
    assert report["replayed"]["structuredContent"] == report["retrieved"]["structuredContent"]
    missing = report["missing"]
    assert missing["isError"] is False
    assert_valid_output(RETRIEVE, missing["structuredContent"])
    assert missing["structuredContent"]["retrieval"]["result"]["reason"] == "not_found"
    refused = report["refused"]
    assert refused["isError"] is True and "mutation_id" in refused["content"][0]["text"]


# --- the MCP conformance suite -------------------------------------------------------------


@pytest.fixture(scope="module")
def proxied(served: ServeProcess, env: dict[str, str]) -> Iterator[HeaderProxy]:
    with HeaderProxy(served.base, {"Authorization": f"Bearer {env['SOSOAPI_TOKEN']}"}) as proxy:
        yield proxy


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_conformance_server_scenario(
    tools: NodeTools, proxied: HeaderProxy, tmp_path: Path, scenario: str
) -> None:
    suite = tools.bin("@modelcontextprotocol/conformance", "conformance")
    before = proxied.requests
    args = ["server", "--url", f"{proxied.base}/mcp", "--scenario", scenario, "-o", str(tmp_path)]
    done = tools.run(suite, args, {"NO_COLOR": "1"})
    (checks_file,) = tmp_path.glob("*/checks.json")
    checks = json.loads(checks_file.read_text(encoding="utf-8"))
    failed = [c for c in checks if c["status"] not in PASSED]
    assert not failed and done.returncode == 0, json.dumps(failed, indent=1) or done.stdout
    assert checks and proxied.requests > before
    if scenario == "dns-rebinding-protection":  # refused by the Host check, not for a token
        rejected = next(c for c in checks if c["id"] == "localhost-host-rebinding-rejected")
        assert rejected["details"]["statusCode"] == 421
