"""The document tool over the HTTP API of a real `sosoapi serve`, and from the CLI
(`sosoapi retrieve URL --kind pdf_text`, `sosoapi evidence upload PATH --kind pdf_text`),
on both stores, every output valid against the package's contract."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import httpx

from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import ServeProcess, cli

TOOL = "sosoapi_research_document_retrieve"
PDF = Path(__file__).resolve().parents[1] / "data" / "pdf"


def serve_pdf(origin: HTTPSOrigin, name: str) -> str:
    body = (PDF / f"{name}.pdf").read_bytes()
    origin.routes[f"/{name}.pdf"] = Route(body, content_type="application/pdf")
    return origin.url(f"/{name}.pdf")


async def test_the_document_tool_over_http(
    served: ServeProcess, initialised: dict[str, str], origin: HTTPSOrigin
) -> None:
    ws = initialised["WORKSPACE_ID"]
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    arguments = {"workspace_id": ws, "mutation_id": str(uuid.uuid4()),
                 "url": serve_pdf(origin, "docling-normal_4pages")}  # fmt: skip
    async with httpx.AsyncClient(base_url=served.base, headers=headers, timeout=60) as http:
        answer = await http.post("/research-api/documents/retrieve", json=arguments)
        assert answer.status_code == 200, answer.text
        assert_valid_output(TOOL, answer.json())
        receipt = answer.json()["retrieval"]
        assert (receipt["kind"], receipt["result"]["status"]) == ("pdf_text", "ready")
        assert receipt["result"]["page_count"] == 4 and len(receipt["result"]["pages"]) == 4
        again = await http.post("/research-api/documents/retrieve", json=arguments)
        assert again.json() == answer.json()
        locked = await http.post("/research-api/documents/retrieve", json={
            **arguments, "mutation_id": str(uuid.uuid4()),
            "url": serve_pdf(origin, "pdfminer-aes-256")})  # fmt: skip
        assert_valid_output(TOOL, locked.json())
        result = locked.json()["retrieval"]["result"]
        assert (result["status"], result["reason"]) == ("blocked", "login_required")
        refused = await http.post("/research-api/documents/retrieve", json={**arguments,
                                  "kind": "pdf_text"})  # fmt: skip
        assert refused.status_code == 400 and "kind" in refused.json()["detail"]
        listed = await http.post("/research-api/evidence/list",
                                 json={"workspace_id": ws, "kind": "pdf_text"})  # fmt: skip
        assert_valid_output("sosoapi_research_evidence_list", listed.json())
        assert [i["id"] for i in listed.json()["items"]] == [receipt["evidence"]["evidence_id"]]


def test_the_cli_reads_a_pdf_url_and_uploads_a_local_pdf(
    initialised: dict[str, str], origin: HTTPSOrigin, tmp_path: Path
) -> None:
    url = serve_pdf(origin, "pypdf-r6-owner-password")
    read = cli(["retrieve", url, "--kind", "pdf_text", "--json"], initialised)
    assert read.returncode == 0, read.stderr
    assert_valid_output(TOOL, json.loads(read.stdout))
    assert json.loads(read.stdout)["retrieval"]["result"]["text"] == (
        "pdf encryption test password: asdfzxcv"
    )
    summary = cli(["retrieve", url, "--kind", "pdf_text"], initialised)
    assert summary.returncode == 0 and "1 pages" in summary.stdout
    scan = cli(["retrieve", serve_pdf(origin, "textract-ocr_text"), "--kind", "pdf_text"],
               initialised)  # fmt: skip
    assert scan.returncode == 3 and "OCR" in scan.stdout  # completed, not usable

    local = tmp_path / "notes.pdf"
    local.write_bytes((PDF / "pypdf-toy.pdf").read_bytes())
    env = {**initialised, "SOSOAPI_UPLOAD_ROOTS": str(tmp_path)}
    uploaded = cli(["evidence", "upload", str(local), "--kind", "pdf_text", "--json"], env)
    assert uploaded.returncode == 0, uploaded.stderr
    data = json.loads(uploaded.stdout)
    assert_valid_output("sosoapi_research_evidence_upload", data)
    assert data["retrieval"]["result"]["kind"] == "pdf_text"
    assert data["retrieval"]["result"]["provenance"]["source_url"] is None
