"""An evidence resource serves what `evidence_get` serves: for a PDF, the pages its window
covers, said in the window's line and in its `sosoapi/window` meta, and kept whole in the
JSON copy of the tool's answer."""

from __future__ import annotations

import json
from typing import Any

from sosoapi.contract.models import Evidence, EvidenceGetOutput, WindowPage
from sosoapi.mcp.resources import WINDOW_META, evidence_uri, read
from sosoapi.research.operation import Outcome
from tests.support.results import page_result

WS = "3f1c2b4a-5d6e-4f70-8a91-b2c3d4e5f607"
EVIDENCE = "0b9f4c1e-6a43-4d3b-9c1e-2f5d7a8b9c10"
TEXT = "Preface.\n\nChapter one."


def _served(pages: list[WindowPage] | None) -> Evidence:
    content = page_result(
        TEXT, source_url="https://papers.example/r.pdf", retrieved_at="2026-01-01T00:00:00Z"
    )
    return Evidence(
        id=EVIDENCE,
        workspace_id=WS,
        revision=1,
        latest_revision=1,
        kind="url_text",
        text=TEXT,
        title="A report",
        description=None,
        segments=[],
        provenance=content.provenance,
        content_digest="0" * 64,
        created_at="2026-01-01T00:00:00Z",
        offset=0,
        total_length=len(TEXT),
        next_offset=None,
        pages=pages,
    )


async def _read(pages: list[WindowPage] | None) -> tuple[str, dict[str, Any], dict[str, Any]]:
    async def call(tool: str, arguments: dict[str, Any]) -> Outcome:
        assert tool == "sosoapi_research_evidence_get"
        return Outcome(EvidenceGetOutput(evidence=_served(pages)))

    result = await read(evidence_uri(WS, EVIDENCE, 1), call)
    text, data = result.contents
    assert text.meta is not None
    return text.text, text.meta[WINDOW_META], json.loads(data.text)  # type: ignore[union-attr]


PAGES = [
    WindowPage(number=1, label="iii", start=0, end=8, has_text=True),
    WindowPage(number=2, label=None, start=8, end=8, has_text=False),
    WindowPage(number=3, label="1", start=10, end=len(TEXT), has_text=True),
]


async def test_a_pdf_window_says_its_pages_in_its_line_its_meta_and_its_json() -> None:
    text, window, data = await _read(PAGES)
    first_line = text.splitlines()[0]
    assert f"characters 0-{len(TEXT)} of {len(TEXT)}, pages 1-3 (printed iii-1); " in first_line
    assert window["pages"] == [p.wire() for p in PAGES]
    assert data["evidence"]["pages"] == [p.wire() for p in PAGES]


async def test_a_one_page_window_names_its_page_and_other_evidence_names_none() -> None:
    text, window, _ = await _read([WindowPage(number=4, label="4", start=0, end=9, has_text=True)])
    assert f"of {len(TEXT)}, page 4; " in text.splitlines()[0]  # a label that is the number
    text, window, data = await _read(None)
    assert "page" not in text.splitlines()[0] and "pages" not in window
    assert data["evidence"]["pages"] is None
