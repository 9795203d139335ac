"""Which tools a client sees: by profile and transport, with output schemas on request.

Schemas are published verbatim from the package's contract JSON, never regenerated.
"""

from __future__ import annotations

from typing import Any, Literal

import mcp.types as types

from sosoapi.contract.schemas import all_tools

Transport = Literal["stdio", "http"]


def visible(contract: dict[str, Any], profile: str, transport: Transport) -> bool:
    return profile in contract["profiles"] and transport in contract["transports"]


def visible_tools(profile: str, transport: Transport) -> dict[str, dict[str, Any]]:
    return {n: c for n, c in all_tools().items() if visible(c, profile, transport)}


def tool_definition(contract: dict[str, Any], *, output_schemas: bool) -> types.Tool:
    return types.Tool(
        name=contract["name"],
        title=contract.get("title"),
        description=contract["description"],
        input_schema=contract["inputSchema"],
        output_schema=contract["outputSchema"] if output_schemas else None,
        annotations=types.ToolAnnotations.model_validate(contract["annotations"]),
    )


def list_tools(profile: str, transport: Transport, *, output_schemas: bool) -> list[types.Tool]:
    return [
        tool_definition(c, output_schemas=output_schemas)
        for c in visible_tools(profile, transport).values()
    ]
