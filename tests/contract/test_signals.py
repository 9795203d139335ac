"""What our own tools tell a model: every input property described (the two seed tools
stay as published), examples with real, distinct values, and /docs showing them."""

from __future__ import annotations

import uuid

from jsonschema import Draft7Validator, FormatChecker

from sosoapi.contract.schemas import all_tools

SEEDS = ("sosoapi_research_evidence_retrieve", "sosoapi_research_corpora_get")


def test_every_input_property_of_our_own_tools_is_described() -> None:
    undescribed = [
        f"{name}.{prop}"
        for name, contract in all_tools().items()
        if name not in SEEDS
        for prop, schema in contract["inputSchema"].get("properties", {}).items()
        if not str(schema.get("description", "")).strip()
    ]
    assert undescribed == []
    described = sum(
        len(c["inputSchema"].get("properties", {}))
        for n, c in all_tools().items()
        if n not in SEEDS
    )
    assert described >= 60


def test_the_seed_tools_gain_no_description() -> None:
    for name in SEEDS:
        properties = all_tools()[name]["inputSchema"]["properties"]
        assert not any("description" in p for p in properties.values())


def test_examples_are_valid_and_name_each_thing_by_its_own_id() -> None:
    for name, contract in all_tools().items():
        arguments = contract["example"]["arguments"]
        Draft7Validator(contract["inputSchema"], format_checker=FormatChecker()).validate(arguments)
        if name in SEEDS:
            continue
        ids = {k: v for k, v in arguments.items() if k.endswith("_id") and k != "workspace_id"}
        ids |= {f"{k}[0]": v[0] for k, v in arguments.items() if k.endswith("_ids") and v}
        singles = {k: v for k, v in ids.items() if not k.endswith("[0]")}
        assert len(set(singles.values())) == len(singles), (name, ids)  # one UUID per thing
        for value in ids.values():
            uuid.UUID(value)
        if "evidence_ids[0]" in ids and "project_id" in ids:
            assert ids["evidence_ids[0]"] != ids["project_id"], name


def test_openapi_operations_carry_the_contract_examples() -> None:
    from sosoapi.api.http import _openapi_extra

    for contract in all_tools().values():
        extra = _openapi_extra(contract)
        body = extra["requestBody"]["content"]["application/json"]
        assert body["example"] == contract["example"]["arguments"]
        if "structuredContent" in contract["example"]:
            answer = extra["responses"]["200"]["content"]["application/json"]
            assert answer["example"] == contract["example"]["structuredContent"]
