"""An exported corpus of PDFs replays in pywb with the publisher gone: each PDF byte for
byte, as `application/pdf`, the gzip-sent one without a coding it no longer has."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from sosoapi.application import Application
from sosoapi.testing.processes import shared_verify
from tests.archive.test_export_pdf import PAPER, ZEN, pdf_corpus
from tests.archive.test_replay import Wayback, collection
from tests.archive.test_replay import origin as origin  # the test stops its own origin
from tests.support.origin import HTTPSOrigin


@pytest.mark.slow(reason="reads real PDFs through the gate, exports, and runs pywb")
async def test_exported_pdfs_replay_in_pywb_byte_for_byte(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, tmp_path: Path
) -> None:
    ws, token = owner
    snapshot, _ = await pdf_corpus(application, token, ws, origin)
    await collection(application, token, ws, snapshot["id"], tmp_path)
    urls = {name: origin.url(name) for name in ("/latest.pdf", "/paper.pdf", "/zen.pdf")}
    origin.stop()  # the publisher is gone: only the archive can answer now
    with Wayback(tmp_path) as wayback:
        base = f"http://127.0.0.1:{wayback.port}/c/id_/"
        async with httpx.AsyncClient(verify=shared_verify()) as http:
            paper = await http.get(base + urls["/paper.pdf"])
            zen = await http.get(base + urls["/zen.pdf"])
            moved = await http.get(base + urls["/latest.pdf"])
    assert paper.status_code == 200 and paper.content == PAPER.read_bytes()
    assert paper.headers["content-type"] == "application/pdf"
    assert zen.status_code == 200 and zen.content == ZEN.read_bytes()
    assert "content-encoding" not in zen.headers
    assert moved.status_code == 302 and moved.headers["location"].endswith("/paper.pdf")
