"""Which tools a client sees and may call: by profile and transport, output schemas on request.

A profile chooses what is listed, never what is allowed: every tool of a transport stays
callable (the permission check decides), and a tool of another transport is not. Schemas
are published verbatim from the package's contract JSON, never regenerated; the surfaces
only wrap these dicts in their own types.
"""

from __future__ import annotations

from typing import Any, Literal

from sosoapi.contract.schemas import all_tools

Transport = Literal["stdio", "http"]


def visible(contract: dict[str, Any], profile: str, transport: Transport) -> bool:
    return profile in contract["profiles"] and transport in contract["transports"]


def visible_tools(profile: str, transport: Transport) -> dict[str, dict[str, Any]]:
    return {n: c for n, c in all_tools().items() if visible(c, profile, transport)}


def callable_on(tool: str, transport: Transport) -> bool:
    """Whether `tool` exists and may be called over `transport` (whatever the profile)."""
    contract = all_tools().get(tool)
    return contract is not None and transport in contract["transports"]


def listing(contract: dict[str, Any], *, output_schemas: bool) -> dict[str, Any]:
    """The fields of a `tools/list` entry; `outputSchema` only when the switch is on."""
    return {
        "name": contract["name"],
        "title": contract.get("title"),
        "description": contract["description"],
        "inputSchema": contract["inputSchema"],
        "outputSchema": contract["outputSchema"] if output_schemas else None,
        "annotations": contract["annotations"],
    }


def listed_tools(
    profile: str, transport: Transport, *, output_schemas: bool
) -> list[dict[str, Any]]:
    return [
        listing(c, output_schemas=output_schemas)
        for c in visible_tools(profile, transport).values()
    ]
