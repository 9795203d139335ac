"""A forged number is the caller's clear error on every surface and both stores, never a
500: `²` and `٣` (which `str.isdigit()` accepts), thousands of digits (which `int()`
refuses after reading them), signs, spaces and numbers past the contract's bound, in the
export's `?revision=`, MCP `resources/read` URIs (`/revisions/N`, `?offset=N`), the
console's `?revision=` and the Host header's port."""

from __future__ import annotations

import logging
import uuid

import httpx
import mcp.types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.shared.exceptions import MCPError

from sosoapi.application import Application
from sosoapi.contract.numbers import MAX_SAFE_INT, whole_number
from tests.research.test_forged_cursors import BASE, surfaces
from tests.support.mcp_http import streamable
from tests.web.conftest import console_app, sign_in

FORGED = ["²", "٣", "1²", "９", "9" * 5000, "0" * 5000 + "²", "-1", "+1", " 1", "1 ", "",
          "1.0", "0x10", str(MAX_SAFE_INT + 1), "0"]  # fmt: skip
# `0` is a whole number but no revision; the offset's forgeries leave it out.
OFFSETS = [f for f in FORGED if f not in ("0", "")]


def no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert "Traceback" not in caplog.text


async def test_a_forged_export_revision_is_a_400_problem_naming_revision(
    application: Application, owner: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    ws, token = owner
    api, _ = surfaces(application)
    headers = {"Authorization": f"Bearer {token}"}
    query = {"workspace_id": ws, "corpus_id": str(uuid.uuid4())}
    transport = httpx.ASGITransport(app=api, raise_app_exceptions=False)
    with caplog.at_level(logging.INFO, logger="sosoapi"):
        async with httpx.AsyncClient(transport=transport, base_url=BASE, headers=headers) as http:
            for forged in FORGED:
                answer = await http.get(
                    "/research-api/corpora/export", params={**query, "revision": forged}
                )
                assert answer.status_code == 400, (forged[:20], answer.text[:300])
                assert answer.headers["content-type"].startswith("application/problem+json")
                problem = answer.json()
                assert problem["field"] == "revision" and "ASCII digits" in problem["detail"]
                assert len(problem["detail"]) < 300  # the value is quoted cut short
            # the largest revision the contract allows is read as a number: not found
            at_bound = await http.get(
                "/research-api/corpora/export", params={**query, "revision": str(MAX_SAFE_INT)}
            )
            assert at_bound.status_code == 404, at_bound.text
    no_traceback(caplog)


async def test_a_forged_resource_number_is_invalid_params_over_streamable_http(
    application: Application, owner: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    ws, token = owner
    _, served = surfaces(application)
    base = f"sosoapi://workspaces/{ws}/evidence/{uuid.uuid4()}"
    uris = [f"{base}/revisions/{f}" for f in FORGED if f] + [f"{base}?offset={f}" for f in OFFSETS]
    headers = {"Authorization": f"Bearer {token}"}
    with caplog.at_level(logging.INFO, logger="sosoapi"):
        async with streamable(served, headers) as client:
            for uri in uris:
                with pytest.raises(MCPError) as refused:
                    await client.read_resource(uri)
                assert refused.value.code == types.INVALID_PARAMS, (uri[:120], refused.value)
                assert "ASCII digits" in refused.value.message
                assert len(refused.value.message) < 400
            # a number at the bound is read, and is simply not there
            with pytest.raises(MCPError) as missing:
                await client.read_resource(f"{base}/revisions/{MAX_SAFE_INT}")
            assert missing.value.code == -32002
    no_traceback(caplog)


async def test_a_forged_console_revision_is_a_400_naming_it(
    application: Application, owner: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    ws, token = owner
    transport = httpx.ASGITransport(app=console_app(application), raise_app_exceptions=False)
    page = f"/console/workspaces/{ws}/evidence/{uuid.uuid4()}"
    with caplog.at_level(logging.INFO, logger="sosoapi"):
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            await sign_in(http, token)
            for forged in [f for f in FORGED if f]:
                answer = await http.get(page, params={"revision": forged})
                assert answer.status_code == 400, (forged[:20], answer.text[:300])
                assert "`revision`" in answer.text and "ASCII digits" in answer.text
                diff = await http.get(page + "/diff", params={"from": "1", "to": forged})
                assert diff.status_code == 400, (forged[:20], diff.text[:300])
    no_traceback(caplog)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_forged_host_port_is_refused_not_a_500(application: Application) -> None:
    api, _ = surfaces(application)
    transport = httpx.ASGITransport(app=api, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
        for port in (b"\xb2", b"9" * 5000, b"0", b"65536"):
            answer = await http.get("/healthz", headers={"Host": b"127.0.0.1:" + port})
            assert 400 <= answer.status_code < 500, (port[:20], answer.status_code)


@given(st.text(max_size=30))
def test_whole_number_takes_only_ascii_digits_within_bounds(text: str) -> None:
    value = whole_number(text, least=1, most=65535)
    ascii_digits = text != "" and all("0" <= c <= "9" for c in text)
    if value is None:
        assert not ascii_digits or not 1 <= int(text) <= 65535
    else:
        assert ascii_digits and value == int(text) and 1 <= value <= 65535


def test_whole_number_refuses_thousands_of_digits_before_int_reads_them() -> None:
    assert whole_number("9" * 100_000) is None
    assert whole_number("0" * 100_000 + "7") == 7
    assert whole_number(str(MAX_SAFE_INT)) == MAX_SAFE_INT
    assert whole_number(b"12") == 12 and whole_number(b"\xb2") is None
