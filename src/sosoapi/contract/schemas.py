"""The published tool contracts, loaded verbatim from the package's JSON files.

The JSON is published as it is (never regenerated from models), and every tool input is
validated against its `inputSchema` with format checks on, so `language: null`,
`revision: true` and an unhyphenated UUID are refused exactly as the contract says.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, cast

from jsonschema import Draft7Validator, FormatChecker
from jsonschema.exceptions import ValidationError

from sosoapi.contract.errors import ErrorCode, ServiceError
from sosoapi.contract.inputs import normalise

_FORMATS = FormatChecker()


@cache
def all_tools() -> dict[str, dict[str, Any]]:
    """Every tool contract in the package, by tool name."""
    tools: dict[str, dict[str, Any]] = {}
    for entry in sorted((resources.files("sosoapi.contract") / "published").iterdir(), key=str):
        if entry.name.endswith(".json"):
            data = json.loads(entry.read_text(encoding="utf-8"))
            tools[data["name"]] = data
    return tools


def tool(name: str) -> dict[str, Any]:
    return all_tools()[name]


@cache
def _input_validator(name: str) -> Draft7Validator:
    return Draft7Validator(tool(name)["inputSchema"], format_checker=_FORMATS)


def _field_of(error: ValidationError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "required":
        return str(error.message).split("'")[1]
    if error.validator == "additionalProperties":
        instance: Any = error.instance
        schema: Any = error.schema
        extra = sorted(set(instance) - set(schema.get("properties", {})))
        return ",".join(extra) or path or "(arguments)"
    return path or "(arguments)"


def _describe(error: ValidationError) -> str:
    name = _field_of(error)
    kind = error.validator
    if kind == "required":
        return f"`{name}` is required but missing; add it."
    if kind == "additionalProperties":
        return f"`{name}` is not an argument of this tool; remove it."
    if kind == "format":
        wanted = error.validator_value
        return f"`{name}` is not a valid {wanted}: {error.instance!r}; send a valid {wanted}."
    if kind == "type":
        got = json.dumps(error.instance)[:80]
        return (
            f"`{name}` must be of type {error.validator_value}, got {got}; send a "
            f"{error.validator_value} (omit optional fields instead of sending null)."
        )
    if kind == "enum":
        values: Any = error.validator_value
        allowed = ", ".join(map(str, values))
        return f"`{name}` must be one of {allowed}; got {error.instance!r}."
    if kind in ("maxLength", "minLength"):
        return (
            f"`{name}` has length {len(cast(str, error.instance))}, outside the bound "
            f"({kind} {error.validator_value}); shorten or fix it."
        )
    if kind == "pattern":
        return (
            f"`{name}` value {str(error.instance)[:80]!r} does not match "
            f"{error.validator_value}; send a BCP 47 tag such as `en` or `en-US`."
        )
    return f"`{name}`: {error.message}; fix the value to match the contract."


def validate_input(name: str, arguments: Any) -> dict[str, Any]:
    """Validate tool arguments against the contract; raise `invalid_input` naming each field."""
    if not isinstance(arguments, dict):
        raise ServiceError(
            ErrorCode.INVALID_INPUT, "arguments must be a JSON object; send an object.", None
        )
    checked: dict[str, Any] = normalise(arguments)
    errors = sorted(_input_validator(name).iter_errors(checked), key=lambda e: list(e.path))
    if not errors:
        return checked
    described = [{"field": _field_of(e), "detail": _describe(e)} for e in errors]
    message = " ".join(d["detail"] for d in described)
    return _raise(message, described)


def _raise(message: str, described: list[dict[str, str]]) -> dict[str, Any]:
    raise ServiceError(ErrorCode.INVALID_INPUT, message, described[0]["field"], described)
