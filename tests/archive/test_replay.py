"""An exported corpus replays in pywb, in chromium, with no network but the replayer.

pywb pulls in `brotlipy`, whose `brotli` module would shadow the `brotli` egress decodes
with, so it lives in its own virtualenv: `make pywb` (or SOSOAPI_TEST_PYWB=<its bin dir>).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
import trustme

from sosoapi.application import Application
from sosoapi.testing.processes import shared_verify
from tests.archive.test_export import VTT, corpus
from tests.support.archive import export_to
from tests.support.browser import browser_page
from tests.support.ci import missing
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import free_port

PYWB = Path(os.environ.get("SOSOAPI_TEST_PYWB") or Path(__file__).parents[2] / ".venv-pywb/bin")


def pywb(tool: str) -> str:
    path = PYWB / tool
    if not path.exists():
        missing(f"pywb is not installed at {PYWB}", "run `make pywb`")
    return str(path)


@pytest.fixture
def origin(ca: trustme.CA, pages: dict[str, bytes]) -> Iterator[HTTPSOrigin]:
    """An origin of this test's own: the test stops it (the publisher goes away), which
    the session's shared origin must never be."""
    with HTTPSOrigin({path: Route(html) for path, html in pages.items()}, ca=ca) as server:
        yield server


async def collection(app: Application, token: str, ws: str, corpus_id: str, root: Path) -> None:
    """The corpus exported and unpacked as pywb collection `c` under `root`."""
    package = root / "corpus.wacz"
    await export_to(app, token, ws, corpus_id, package)
    for args in (["init", "c"], ["add", "--unpack-wacz", "c", str(package)]):
        done = subprocess.run(  # noqa: ASYNC221 (setup before the replay starts)
            [pywb("wb-manager"), *args], cwd=root, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr


class Wayback:
    """`wayback` serving one collection from `root`, killed on exit."""

    def __init__(self, root: Path) -> None:
        self.root, self.port = root, free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Wayback:
        self.proc = subprocess.Popen(
            [pywb("wayback"), "-p", str(self.port), "-b", "127.0.0.1"],
            cwd=self.root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        with httpx.Client(timeout=1, verify=shared_verify()) as http:
            while time.monotonic() < deadline:
                try:
                    if http.get(f"http://127.0.0.1:{self.port}/").status_code == 200:
                        return self
                except httpx.HTTPError:
                    time.sleep(0.2)
        raise RuntimeError("wayback did not start")

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()


async def test_the_exported_corpus_replays_in_pywb_in_chromium_offline(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, tmp_path: Path
) -> None:
    ws, token = owner
    snapshot, _ = await corpus(application, token, ws, origin)
    await collection(application, token, ws, snapshot["id"], tmp_path)
    vtt_url, old_url, copy_url = (origin.url(p) for p in ("/talk.vtt", "/old", "/copy"))
    origin.stop()  # the publisher is gone: only the archive can answer now
    with Wayback(tmp_path) as wayback:
        base = f"http://127.0.0.1:{wayback.port}/c"
        async with httpx.AsyncClient(verify=shared_verify()) as http:
            raw = await http.get(f"{base}/id_/{vtt_url}")
            copy = await http.get(f"{base}/id_/{copy_url}")  # archived as a revisit record
        assert raw.status_code == 200 and raw.content == VTT  # the caption file, byte for byte
        assert copy.status_code == 200 and "harbour wall was rebuilt" in copy.text
        async with browser_page() as page:
            elsewhere: list[str] = []

            async def offline(route: object) -> None:  # nothing leaves the machine
                url = route.request.url  # type: ignore[attr-defined]
                if url.startswith(f"http://127.0.0.1:{wayback.port}/"):
                    await route.continue_()  # type: ignore[attr-defined]
                else:
                    elsewhere.append(url)
                    await route.abort()  # type: ignore[attr-defined]

            await page.route("**/*", offline)  # type: ignore[attr-defined]
            # through the redirect the page was retrieved by, in pywb's replay frame
            await page.goto(f"{base}/{old_url}")  # type: ignore[attr-defined]
            frame = None
            for _ in range(100):
                frame = next((f for f in page.frames if "mp_/" in f.url), None)  # type: ignore[attr-defined]
                if frame is not None and "harbour" in (await frame.content()):
                    break
                await anyio.sleep(0.1)
            assert frame is not None, [f.url for f in page.frames]  # type: ignore[attr-defined]
            text = await frame.inner_text("body")
            title = await frame.title()
            shown = frame.url
    assert "harbour wall was rebuilt in 1998" in text
    assert title == "Harbour report" and shown.endswith("/article")
    assert not [u for u in elsewhere if "origin.test" in u], elsewhere
