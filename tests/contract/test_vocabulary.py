"""One vocabulary: the contract JSON, the enums, the ranking table and every producer agree.

Like httpx's test that every httpcore exception is mapped: a reason added to the contract
but not ranked, ranked but not in the contract, or produced as a bare string anywhere in
the code fails here, instead of raising `unknown reason code` in a live retrieval.
"""

from __future__ import annotations

import ast
from pathlib import Path

import httpcore
import pytest

from sosoapi.contract.schemas import tool
from sosoapi.contract.vocabulary import OPEN_STATES, SETTLED_STATES, Reason, State, Status
from sosoapi.egress.errors import ERROR_REASONS, reason_for_error
from sosoapi.egress.network import UnpinnedDial
from sosoapi.egress.statuses import reason_for_status
from sosoapi.research.retrieval.ranking import REASONS, STATUS_ORDER, status_of

SRC = Path(__file__).resolve().parents[2] / "src" / "sosoapi"
RESULT = tool("sosoapi_research_evidence_retrieve")["outputSchema"]["properties"]["retrieval"][
    "properties"
]


def _enum(schema: dict) -> set[str]:
    for option in schema.get("anyOf", [schema]):
        if "enum" in option:
            return set(option["enum"])
    raise AssertionError(f"no enum in {schema}")


def test_the_enums_are_the_contracts_lists() -> None:
    result = RESULT["result"]["anyOf"][0]["properties"]
    assert {r.value for r in Reason} == _enum(result["reason"])
    assert {r.value for r in Reason} == _enum(result["warnings"]["items"])
    assert {s.value for s in Status} == _enum(result["status"])
    assert {s.value for s in State} == _enum(RESULT["state"])


def test_open_and_settled_states_split_the_states() -> None:
    assert {"pending", "running"} == OPEN_STATES
    assert set(State) == OPEN_STATES | SETTLED_STATES and not OPEN_STATES & SETTLED_STATES


def test_the_ranking_table_ranks_every_reason_and_status_exactly() -> None:
    ranked = [r for reasons in REASONS.values() for r in reasons]
    assert set(ranked) == set(Reason)
    assert set(STATUS_ORDER) == set(REASONS) == set(Status) - {Status.READY}
    for reasons in REASONS.values():
        assert len(reasons) == len(set(reasons))


@pytest.mark.parametrize("reason", list(Reason))
@pytest.mark.parametrize("usable", [False, True])
@pytest.mark.parametrize("captions", [False, True])
def test_every_reason_has_a_status_in_every_context(
    reason: Reason, usable: bool, captions: bool
) -> None:
    status = status_of(reason, usable=usable, captions=captions)
    assert reason in REASONS[status]


def test_every_http_status_maps_to_a_reason() -> None:
    for code in range(100, 600):
        reason, _ = reason_for_status(code, "120")
        assert isinstance(reason, Reason), code


def test_the_error_table_maps_to_reasons_and_maps_every_network_error() -> None:
    for _, reason in ERROR_REASONS:
        assert isinstance(reason, Reason) or callable(reason)
    network_errors = [
        c
        for c in vars(httpcore).values()
        if isinstance(c, type) and issubclass(c, Exception) and c.__module__.startswith("httpcore")
    ]
    unmapped = [c.__name__ for c in network_errors if reason_for_error(_make(c)) is None]
    # we always dial https through our own pool: these two would be bugs, not reasons
    assert sorted(unmapped) == ["ConnectionNotAvailable", "UnsupportedProtocol"]
    assert reason_for_error(UnpinnedDial("x")) == Reason.UNSAFE_URL
    assert reason_for_error(ValueError("a bug")) is None


def _make(kind: type[Exception]) -> Exception:
    return kind("probe")


# Calls whose reason argument must be a `Reason` member, never a string.
_REASON_CALLS = {"add": 0, "FetchOutcome": 0, "_note": 1, "Condition": 1}


def _stray_strings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"))
    codes = {r.value for r in Reason}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            position = _REASON_CALLS.get(name or "")
            if position is None:
                continue
            arguments = [k.value for k in node.keywords if k.arg == "reason"]
            if len(node.args) > position:
                arguments.append(node.args[position])
            found += [
                f"{path.name}:{a.lineno} {name}({a.value!r})"
                for a in arguments
                if isinstance(a, ast.Constant) and a.value in codes
            ]
        if isinstance(node, ast.FunctionDef) and "Reason" in ast.unparse(node.returns or node):
            found += [
                f"{path.name}:{r.lineno} return {r.value.value!r}"
                for r in ast.walk(node)
                if isinstance(r, ast.Return)
                and isinstance(r.value, ast.Constant)
                and r.value.value in codes
            ]
    return found


def test_no_code_produces_a_reason_as_a_bare_string() -> None:
    stray = [s for p in sorted(SRC.rglob("*.py")) for s in _stray_strings(p)]
    assert stray == []


def test_the_stray_string_check_can_fail(tmp_path: Path) -> None:
    module = tmp_path / "producer.py"
    module.write_text(
        "def judge(draft) -> Reason:\n    draft.add('timeout')\n    return 'unsafe_url'\n"
    )
    assert len(_stray_strings(module)) == 2
