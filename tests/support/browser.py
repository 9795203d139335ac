"""Debian's chromium driven by Playwright (its own browser download cannot work here)."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def need_chromium() -> None:
    """Skip without chromium, except in CI, where `.ci/run` installs it: there it fails."""
    if shutil.which(CHROMIUM) is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{CHROMIUM} is missing; .ci/run installs it with apt-get")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install -y chromium)")


@asynccontextmanager
async def browser_page() -> AsyncIterator[object]:
    """A fresh page in a fresh headless chromium; no network beyond what the test serves."""
    need_chromium()
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            context = await browser.new_context()
            yield await context.new_page()
        finally:
            await browser.close()
