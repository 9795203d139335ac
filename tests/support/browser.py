"""Debian's chromium driven by Playwright: the one launch recipe for tests and scripts."""

from __future__ import annotations

import os
from pathlib import Path

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


def launch_options() -> dict[str, object]:
    return {"executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}
