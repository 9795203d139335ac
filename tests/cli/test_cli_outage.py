"""A database that cannot be reached: every CLI verb says so in one line, no traceback."""

from __future__ import annotations

import pytest

from tests.support.services import cli, free_port

VERBS = [
    ["init", "--json"],
    ["workspaces", "list"],
    ["tokens", "list"],
    ["evidence", "list"],
]


@pytest.mark.parametrize("args", VERBS, ids=[" ".join(v) for v in VERBS])
def test_an_unreachable_database_is_one_clear_line(args: list[str]) -> None:
    url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/nowhere?connect_timeout=2"
    done = cli(args, {"SOSOAPI_DATABASE_URL": url, "SOSOAPI_TOKEN": "x"})
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "database unavailable" in done.stderr
    assert "SOSOAPI_DATABASE_URL" in done.stderr
