"""Validate structured outputs against the package's own copy of the contract."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft7Validator, FormatChecker

from sosoapi.contract.schemas import tool

_FORMATS = FormatChecker()
assert "date-time" in _FORMATS.checkers and "uri" in _FORMATS.checkers, (
    "jsonschema[format] extras are missing: date-time and uri would pass unchecked"
)


def assert_valid_output(tool_name: str, value: Any) -> None:
    """Raise with every violation if `value` is not a valid output of `tool_name`."""
    validator = Draft7Validator(tool(tool_name)["outputSchema"], format_checker=_FORMATS)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)
