"""A PDF is parsed in the bounded parse pool: in worker processes (the server's default),
and past the parse deadline it settles `unsupported` / `unsupported_content` with the
cause `parse_deadline`, keeping nothing; both stores."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sosoapi.application import Application
from sosoapi.research.retrieval.settings import ParseBounds
from tests.documents.support import by_name_path, document_args, retrieve_document
from tests.support.lifespan import held_open
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import make_settings, owner_token


@pytest.fixture
def bounds() -> tuple[int, ParseBounds]:
    return 1, ParseBounds()


@pytest.fixture
async def bounded(
    database_url: str, tmp_path: Path, origin: HTTPSOrigin, bounds: tuple[int, ParseBounds]
) -> AsyncIterator[Application]:
    workers, parse_bounds = bounds
    settings = make_settings(database_url, tmp_path, origin.egress_env())
    settings = dataclasses.replace(settings, parse_workers=workers, parse_bounds=parse_bounds)
    app = Application(settings)
    async with held_open(app.running()):
        yield app
    app.store.close()


def serve(origin: HTTPSOrigin, name: str) -> str:
    body = by_name_path(name).read_bytes()
    origin.routes[f"/{name}.pdf"] = Route(body, content_type="application/pdf")
    return origin.url(f"/{name}.pdf")


@pytest.mark.slow(reason="starts the forkserver and a parse worker process")
async def test_a_pdf_is_read_in_a_parse_worker_process(
    bounded: Application, origin: HTTPSOrigin
) -> None:
    ws, token = owner_token(bounded)
    receipt = await retrieve_document(
        bounded, token, document_args(ws, serve(origin, "docling-normal_4pages"))
    )
    assert receipt["result"]["status"] == "ready" and receipt["result"]["page_count"] == 4
    locked = await retrieve_document(
        bounded, token, document_args(ws, serve(origin, "pypdf-r4-aes-user-password"))
    )
    assert locked["result"]["reason"] == "login_required"


@pytest.mark.parametrize("bounds", [(0, ParseBounds(deadline_seconds=0.001))])
async def test_a_parse_past_its_deadline_is_unsupported_content_and_keeps_nothing(
    bounded: Application, origin: HTTPSOrigin
) -> None:
    ws, token = owner_token(bounded)
    outcome = await bounded.research.call(
        "sosoapi_research_document_retrieve",
        token,
        document_args(ws, serve(origin, "doctor-vector-pdf")),
    )
    receipt = outcome.output.wire()["retrieval"]
    result = receipt["result"]
    assert (result["status"], result["reason"]) == ("unsupported", "unsupported_content")
    assert receipt["evidence"] is None and result["pages"] == []
    assert outcome.cause == "parse_deadline"
