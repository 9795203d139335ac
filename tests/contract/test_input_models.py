"""The published input schemas and the pydantic input models say the same thing.

A tool's input is judged twice: against its published `inputSchema` at the door, then
parsed into the operation's pydantic model. If the two drift, an input the contract admits
is refused by the model (or a field the contract dropped still parses), so each tool's
properties and required fields are compared here, on the operations the service serves.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from sosoapi.auth.permission import Guard
from sosoapi.contract.models import RetrieveResult
from sosoapi.contract.schemas import all_tools
from sosoapi.research.operation import Operation
from sosoapi.research.retrieval.receipts import ReceiptService
from sosoapi.research.retrieval.settings import ReceiptSettings
from sosoapi.research.service import ResearchService
from tests.support.fake_storage import FakeStorage

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


async def _never_read(url: str, kind: str, language: str | None, _: object) -> RetrieveResult:
    raise AssertionError("no test here reads a source")


def _operations() -> dict[str, Operation]:
    storage = FakeStorage(lambda: START)
    receipts = ReceiptService(storage.retrievals, _never_read, ReceiptSettings(), lambda: START)
    service = ResearchService(storage, Guard(storage.auth), receipts, max_upload_bytes=1)
    return service.operations


OPERATIONS = _operations()


def test_every_published_tool_is_served_and_every_served_tool_published() -> None:
    assert set(OPERATIONS) == set(all_tools())


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_the_input_model_has_the_published_fields(name: str) -> None:
    schema: dict[str, Any] = all_tools()[name]["inputSchema"]
    model = OPERATIONS[name].input_model
    fields = {info.alias or field: info for field, info in model.model_fields.items()}
    assert set(fields) == set(schema.get("properties", {})), name
    required = {field for field, info in fields.items() if info.is_required()}
    assert required == set(schema.get("required", [])), name
    assert schema.get("additionalProperties") is False, name
    assert model.model_config.get("extra") == "forbid", name
