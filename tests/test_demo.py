"""`make demo` keeps working: the script runs offline and shows a replayed receipt."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow(reason="runs scripts/demo.py: a server and a whole research session")

ROOT = Path(__file__).resolve().parent.parent


def test_demo_runs_offline_and_replays() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "demo.py")],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "same receipt on replay: True" in done.stdout
    assert '"coverage": "partial"' in done.stdout
    assert "Ada: Welcome, everyone" in done.stdout
    assert "Council approved health budget [0:75] The city council approved" in done.stdout
    assert (
        "misquotation caught: approximate; the source says: The city council approved the "
        "budget for public health after a long debate." in done.stdout
    )
    assert "replace 'approved' -> 'postponed'" in done.stdout
    assert "review console: http://127.0.0.1:" in done.stdout and "/console\n" in done.stdout
    assert "viewer token (read-only, 8 hours): sosoapi_" in done.stdout
