"""A record's values for an insert are the record's own: the same keys and values
`dataclasses.asdict` gave, without its deep copy of each one (the claim of every
receipt built them)."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime

from sosoapi.store.records import RetrievalRecord
from sosoapi.store.retrievals_repo import row_values


def test_row_values_are_the_records_own() -> None:
    now = datetime(2026, 12, 5, 17, 30, tzinfo=UTC)
    record = RetrievalRecord(
        id="r",
        workspace_id="w",
        mutation_id="m",
        kind="url_text",
        url="https://example.test/",
        language="en",
        state="running",
        created_at=now,
        settled_at=None,
        valid_until=now,
        lease_owner="instance",
        lease_expires_at=None,
        result=None,
        evidence_id=None,
        evidence_revision=None,
        source="url",
        cause="because",
    )
    values = row_values(record)
    assert values == asdict(record)
    assert list(values) == list(asdict(record))
    assert values["created_at"] is record.created_at  # not a copy
