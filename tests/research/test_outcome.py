"""The status/reason/warnings rules of docs/product.md ("Statuses and reasons"), as
properties over any conditions."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from sosoapi.research.retrieval.draft import Draft
from sosoapi.research.retrieval.ranking import Condition, decide
from tests.support.contract import assert_valid_output

# docs/product.md, "Statuses and reasons", written out: statuses in deciding order, and
# within a status the reasons in the order that decides between them.
SPEC_ORDER = ["cancelled", "blocked", "unsupported", "rate_limited", "unavailable", "empty",
              "partial"]  # fmt: skip
SPEC_TABLE = {
    "partial": ["text_limited", "cues_limited", "invalid_cues", "nodes_limited",
                "response_too_large", "source_partial", "language_mismatch"],
    "blocked": ["unsafe_url", "access_denied", "login_required"],
    "unsupported": ["unsupported_source", "unsupported_media", "unsupported_content"],
    "empty": ["no_text", "metadata_only", "no_captions", "invalid_captions",
              "language_mismatch"],
    "rate_limited": ["rate_limited"],
    "unavailable": ["not_found", "timeout", "egress_unavailable", "unavailable",
                    "response_too_large"],
    "cancelled": ["cancelled"],
}  # fmt: skip
CONDITIONS = [
    Condition(status, reason) for status, reasons in SPEC_TABLE.items() for reason in reasons
]


@given(st.lists(st.sampled_from(CONDITIONS), max_size=30))
def test_one_deciding_reason_and_bounded_distinct_warnings(conditions: list[Condition]) -> None:
    status, reason, warnings = decide(conditions)
    if not conditions:
        assert (status, reason, warnings) == ("ready", None, [])
        return
    deciding = min(SPEC_ORDER.index(c.status) for c in conditions)
    assert status == SPEC_ORDER[deciding]
    held = {c.reason for c in conditions if c.status == status}
    assert reason == next(r for r in SPEC_TABLE[status] if r in held)
    assert reason not in warnings
    assert len(warnings) == len(set(warnings)) <= 10
    assert set(warnings) <= {c.reason for c in conditions}


def test_worked_examples_from_the_table() -> None:
    blocked = Condition("blocked", "access_denied")
    limited = Condition("partial", "text_limited")
    assert decide([limited, blocked, Condition("blocked", "unsafe_url")])[:2] == (
        "blocked",
        "unsafe_url",
    )
    assert decide([Condition("empty", "no_text"), limited]) == (
        "empty",
        "no_text",
        ["text_limited"],
    )
    assert decide([Condition("unavailable", "timeout"), Condition("unavailable", "not_found")])[
        :2
    ] == ("unavailable", "not_found")


@given(
    st.sampled_from(["url_text", "published_captions"]),
    st.lists(st.sampled_from(CONDITIONS), max_size=12),
    st.integers(min_value=1, max_value=86_400),
)
def test_every_finished_result_fits_the_contract(
    kind: str, conditions: list[Condition], retry: int
) -> None:
    draft = Draft(kind=kind, text="some text", title="T", retry_after_seconds=retry)
    draft.conditions.extend(conditions)
    result = draft.finish(datetime.now(UTC)).result
    receipt = {
        "retrieval": {
            "id": "30000000-0000-4000-8000-000000000007",
            "workspace_id": "11111111-1111-4111-8111-111111111111",
            "mutation_id": "40000000-0000-4000-8000-000000000001",
            "state": "completed",
            "kind": kind,
            "created_at": "2099-01-15T09:00:00Z",
            "settled_at": "2099-01-15T09:00:01Z",
            "valid_until": "2099-01-16T09:00:00Z",
            "result": result.wire(),
            "evidence": None,
        }
    }
    assert_valid_output("sosoapi_research_evidence_retrieve", receipt)
    assert (result.reason is None) is (result.status == "ready")
    assert (result.retry_after_seconds is not None) is (result.status == "rate_limited")
    if result.status not in ("ready", "partial"):
        assert result.text == "" and result.segments == []
