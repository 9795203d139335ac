"""Debian's chromium driven by Playwright: the one launch recipe for tests and scripts.

Playwright's own browser download cannot work on these machines; `.ci/run` installs
Debian's chromium when it is missing.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from tests.support.ci import missing

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_problem() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing; install it with `apt-get install -y chromium`"
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} is not executable"
    return None


def need_chromium() -> None:
    """Skip without chromium, except in CI, where `.ci/run` installs it: there it fails."""
    problem = chromium_problem()
    if problem is not None:
        missing(problem, ".ci/run installs it with apt-get")


def launch_options() -> dict[str, object]:
    return {"executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


@asynccontextmanager
async def browser_page() -> AsyncIterator[object]:
    """A fresh page in a fresh headless chromium; no network beyond what the test serves."""
    need_chromium()
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(headless=True, **launch_options())
        try:
            context = await browser.new_context()
            yield await context.new_page()
        finally:
            await browser.close()
