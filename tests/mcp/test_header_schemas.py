"""The SDK checks a call's `Mcp-Param-*` headers against the tool's input schema from the
server's lookup, walking that schema twice a call. Our tools declare no `x-mcp-header`,
so the lookup gives none of them: the check had nothing to compare. A tool that declared
one would still be checked."""

from __future__ import annotations

import mcp.types as types
import pytest

from sosoapi.contract.catalog import listed_tools
from sosoapi.mcp.server import header_schemas


@pytest.mark.parametrize("transport", ["http", "stdio"])
@pytest.mark.parametrize("profile", ["full", "core"])
def test_no_tool_of_ours_is_walked_for_headers(profile: str, transport: str) -> None:
    tools = [
        types.Tool.model_validate(entry)
        for entry in listed_tools(profile, transport, output_schemas=True)
    ]
    assert tools
    assert header_schemas(tools) == {}


def test_a_tool_with_a_header_property_keeps_its_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
        },
    }
    plain = {"type": "object", "properties": {"query": {"type": "string"}}}
    tools = [
        types.Tool(name="routed", input_schema=schema),
        types.Tool(name="plain", input_schema=plain),
    ]
    assert header_schemas(tools) == {"routed": schema}
