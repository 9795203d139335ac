"""Every tool over MCP, fed random JSON of the right and wrong types: never an internal error.

Hypothesis drives the calls from a worker thread; each call runs on the test's event loop,
where the application and the in-process `mcp.Client` live.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import anyio
import anyio.from_thread
import mcp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.shared.exceptions import MCPError

from sosoapi.application import Application
from sosoapi.contract.errors import ErrorCode
from sosoapi.contract.schemas import all_tools
from sosoapi.mcp.server import build_server
from tests.support.contract import assert_valid_output

REFUSAL = re.compile(
    "^("
    + "|".join(
        re.escape(f"{c.problem_title} ({c}): ") for c in ErrorCode if c != ErrorCode.INTERNAL
    )
    + ")"
)
Strategy = st.SearchStrategy[Any]


def mostly(usual: Strategy, rare: Strategy) -> Strategy:
    """`usual` five times in six, else `rare` (and shrinking goes towards `usual`)."""
    return st.integers(0, 5).flatmap(lambda i: rare if i == 5 else usual)


# Any code point, lone surrogates and NUL included; the two hard ones also on purpose.
TEXT = mostly(
    st.text(st.characters(exclude_categories=()), min_size=1, max_size=40),
    st.sampled_from(["a\x00b", "\ud800", "", "1.0"]),
)
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def right_type(name: str, schema: dict[str, Any], ids: dict[str, list[str]]) -> Strategy:
    """Values of the type the schema names: mostly valid, sometimes just out of bounds."""
    if "enum" in schema:
        return mostly(st.sampled_from(schema["enum"]), st.text(max_size=12))
    kind = schema.get("type")
    if kind == "string" and schema.get("format") == "uuid":
        known = ids["workspace" if name == "workspace_id" else "other"]
        return mostly(st.sampled_from(known), st.uuids().map(str) | TEXT)
    if kind == "string" and schema.get("format") == "uri":
        return mostly(st.sampled_from(["https://10.0.0.1/", "http://example.com/"]), TEXT)
    if kind == "string":
        return mostly(TEXT, st.text(max_size=schema.get("maxLength", 300) + 2))
    if kind == "integer":
        low, high = schema.get("minimum", 1), schema.get("maximum", 2**53 - 1)
        whole = mostly(st.sampled_from([low, low + 1, high]), st.integers(low - 1, high + 1))
        return st.booleans().flatmap(lambda f: whole.map(float) if f else whole)
    if kind == "array":
        return st.lists(right_type("", schema.get("items", {}), ids), min_size=1, max_size=5)
    return JSON


def arguments_for(contract: dict[str, Any], ids: dict[str, list[str]]) -> Strategy:
    properties = contract["inputSchema"].get("properties", {})
    fields = {
        name: mostly(right_type(name, schema, ids), JSON) for name, schema in properties.items()
    }
    required = set(contract["inputSchema"].get("required", []))
    chosen = st.fixed_dictionaries(
        {n: s for n, s in fields.items() if n in required},
        optional={n: s for n, s in fields.items() if n not in required},
    )
    extra = st.dictionaries(st.text(max_size=6), JSON, max_size=2)
    return mostly(chosen, st.builds(lambda a, b: {**b, **a}, chosen, extra))


async def test_random_arguments_never_make_an_internal_error(
    application: Application, owner: tuple[str, str]
) -> None:
    ws, token = owner
    ids = {"workspace": [ws, ws.upper()], "other": [str(uuid.uuid4())]}
    for title in ("one", "two"):  # lists longer than a page, ids that exist
        key = {"workspace_id": ws, "mutation_id": str(uuid.uuid4())}
        made = await application.research.call(
            "sosoapi_research_projects_create", token, {**key, "title": title}
        )
        project_id = made.output.wire()["project"]["id"]
        key["mutation_id"] = str(uuid.uuid4())
        sealed = await application.research.call(
            "sosoapi_research_corpora_seal", token, {**key, "project_id": project_id}
        )
        ids["other"] += [project_id, sealed.output.wire()["snapshot"]["id"]]
    tools = {n: c for n, c in all_tools().items() if "stdio" in c["transports"]}
    calls = st.sampled_from(sorted(tools)).flatmap(
        lambda name: st.tuples(st.just(name), arguments_for(tools[name], ids))
    )
    server = build_server(
        application.research,
        transport="stdio",
        profile="full",
        output_schemas=False,
        token_source=lambda: token,
    )
    outcomes: dict[str, int] = {"ok": 0, "refused": 0}
    async with mcp.Client(server) as client:

        async def call(name: str, arguments: dict) -> None:
            try:
                result = await client.call_tool(name, arguments)
            except MCPError as error:
                raise AssertionError(f"{name} {arguments!r}: JSON-RPC error {error}") from None
            if result.is_error:  # a refusal of ours, never an exception's text
                text = result.content[0].text
                assert REFUSAL.match(text), f"{name} {arguments!r}: {text}"
                outcomes["refused"] += 1
            else:
                assert_valid_output(name, result.structured_content)
                outcomes["ok"] += 1

        @settings(
            max_examples=150,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(calls)
        def drive(case: tuple[str, dict]) -> None:
            anyio.from_thread.run(call, *case)

        await anyio.to_thread.run_sync(drive)
    assert outcomes["ok"] > 10 and outcomes["refused"] > 10, outcomes  # both kinds explored
