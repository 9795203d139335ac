"""One rule for tests whose prerequisite is missing: skip with the reason locally, fail under
CI (CI=true, as .ci/run sets), where the prerequisite is installed on purpose."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def missing(problem: str, under_ci: str) -> NoReturn:
    """Skip naming `problem`; under CI fail with `problem` and `under_ci` (what CI does)."""
    if IN_CI:
        pytest.fail(f"{problem}; {under_ci}")
    pytest.skip(problem)
