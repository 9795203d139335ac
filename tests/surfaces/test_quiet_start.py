"""`sosoapi serve` and `sosoapi mcp` start without warnings; every line they log, the SDK's
DNS-rebinding refusal included, is in the project's key=value format."""

from __future__ import annotations

import json
import os
import re
import subprocess

import httpx
import pytest

from tests.support.oauth import INITIALIZE
from tests.support.services import SOSOAPI, ServeProcess

pytestmark = pytest.mark.slow
LINE = re.compile(r"^ts=\S+ level=(debug|info|warning|error|critical) logger=\S+ msg='.*'$")


@pytest.fixture
def process_env(tmp_path) -> dict[str, str]:
    return {"SOSOAPI_HOME": str(tmp_path / "home"), "SOSOAPI_LOG_LEVEL": "INFO"}


def assert_quiet(stderr: str) -> None:
    assert "Warning" not in stderr, stderr
    for line in stderr.splitlines():
        assert LINE.match(line), line


def test_serve_starts_quietly_and_logs_rebinding_refusal(initialised: dict[str, str]) -> None:
    server = ServeProcess(initialised).start()
    try:
        refused = httpx.post(
            f"{server.base}/mcp",
            json={},
            headers={
                "Host": "evil.example",
                "Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}",
                "Accept": "application/json, text/event-stream",
            },
        )
        assert refused.status_code == 421
    finally:
        server.stop()
    stderr = server.stderr_text
    assert_quiet(stderr)
    refusal = [line for line in stderr.splitlines() if "evil.example" in line]
    assert len(refusal) == 1 and "level=warning logger=sosoapi.api" in refusal[0]


def test_stdio_starts_quietly(initialised: dict[str, str]) -> None:
    done = subprocess.run(
        [SOSOAPI, "mcp"],
        input=json.dumps(INITIALIZE) + "\n",
        env={**os.environ, **initialised},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(done.stdout.splitlines()[0])["result"]["serverInfo"]["name"]
    assert_quiet(done.stderr)
