"""Screenshots of the review console for docs/console.md, taken in Debian's chromium.

Seeds a workspace as the bench does (a page, a hostile page, captions, a missing page, an
unsafe URL, a project, a sealed corpus, second readings of three sources, and 60 bulk
retrievals), serves it, signs in and
saves each main page as a PNG under docs/console/.

    .venv/bin/python scripts/console_screenshots.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from sosoapi.store.settings import sqlite_url  # noqa: E402
from sosoapi.testing.origin import HTTPSOrigin  # noqa: E402
from sosoapi.testing.processes import ServeProcess  # noqa: E402
from tests.support.browser import launch_options  # noqa: E402
from tests.support.console import seed_workspace  # noqa: E402

OUT = ROOT / "docs" / "console"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with HTTPSOrigin() as origin, tempfile.TemporaryDirectory() as home:
        env = {
            "SOSOAPI_HOME": home,
            "SOSOAPI_DATABASE_URL": sqlite_url(Path(home)),
            "SOSOAPI_LOG_LEVEL": "WARNING",
            # the seeded pages are parsed for the pictures, not timed: a busy machine must
            # not turn the plain page or the captions into a deadline's refusal
            "SOSOAPI_PARSE_DEADLINE_SECONDS": "120",
            "PATH": os.environ.get("PATH", ""),
            **origin.egress_env(),
        }
        ws, token, seeded = seed_workspace(env, origin, 60)
        base = f"/console/workspaces/{ws}"
        shots = {
            "overview": base,
            "retrievals": base + "/retrievals",
            "retrievals-failed": base + "/retrievals?state=completed&reason=not_found",
            "retrieval": base + f"/retrievals/{seeded.missing['id']}",
            "evidence-text": base + f"/evidence/{seeded.plain['evidence']['evidence_id']}",
            "evidence-hostile": base + f"/evidence/{seeded.hostile['evidence']['evidence_id']}",
            "evidence-captions": base + f"/evidence/{seeded.captions['evidence']['evidence_id']}",
            "corpus": base + f"/corpora/{seeded.corpus_id}",
            "evidence-diff": base + f"/evidence/{seeded.plain['evidence']['evidence_id']}"
            "/diff?from=1&to=2",
            "evidence-diff-captions": base
            + f"/evidence/{seeded.captions['evidence']['evidence_id']}/diff?from=1&to=2",
            "evidence-diff-hostile": base
            + f"/evidence/{seeded.hostile['evidence']['evidence_id']}/diff?from=1&to=2",
            "search": base + '/search?q=plain+"paragraph+3"',
        }
        with ServeProcess(env, ready_seconds=120) as server, sync_playwright() as p:
            browser = p.chromium.launch(**launch_options())
            page = browser.new_page(base_url=server.base, viewport={"width": 1200, "height": 800})
            page.goto("/console")
            page.screenshot(path=OUT / "sign-in.png")
            page.get_by_label("Token").fill(token)
            page.get_by_role("button", name="Sign in").click()
            page.get_by_role("heading", name="Your workspaces").wait_for()
            for name, path in shots.items():
                page.goto(path)
                page.screenshot(path=OUT / f"{name}.png", full_page=True)
                print(f"docs/console/{name}.png  {path}")
            browser.close()


if __name__ == "__main__":
    main()
