"""What a process loads as it starts, each in a new Python process. `sosoapi --help` (and
any verb's help) loads only click and the CLI's own words: the store (SQLAlchemy,
Alembic), the contract's pydantic models and the application are imported by the verb
that runs, so a shell's first touch stays quick (bench/startup.py). A server builds its
app with the collector paused and without loading a parser."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HEAVY = {"sqlalchemy", "alembic", "pydantic", "fastapi", "mcp", "uvicorn", "trafilatura"}
HEAVY_OURS = {
    "sosoapi.application",
    "sosoapi.auth.admin",
    "sosoapi.contract.models",
    "sosoapi.store.store",
    "sosoapi.store.database",
}

HELP_EVERYWHERE = """
import sys
from click.testing import CliRunner
from sosoapi.cli import main
runner = CliRunner()
for verb in ([], *([name] for name in main.commands)):
    assert runner.invoke(main, [*verb, "--help"]).exit_code == 0, verb
    group = main.commands.get(verb[0]) if verb else None
    for sub in getattr(group, "commands", {}):
        assert runner.invoke(main, [*verb, sub, "--help"]).exit_code == 0, (verb, sub)
print(*sys.modules)
"""


def test_help_of_every_verb_loads_neither_the_store_nor_the_models() -> None:
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", HELP_EVERYWHERE], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    assert not {name.split(".")[0] for name in loaded} & HEAVY
    assert not loaded & HEAVY_OURS


def _run_python(script: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`script` in a new Python process, as a server would start, with `home` as its home."""
    env = {**os.environ, "SOSOAPI_HOME": str(home)}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)


def test_the_collector_is_paused_while_a_server_starts_and_back_after(tmp_path: Path) -> None:
    """serve's app is imported and built with the collector off (sosoapi/startup.py), and
    the collector is on again once it is built; a caller that had it off keeps it off."""
    script = """
import gc
import sosoapi.app
from sosoapi.cli import servers
seen = []
real = sosoapi.app.http_app
sosoapi.app.http_app = lambda *a, **k: seen.append(gc.isenabled()) or real(*a, **k)
servers._http_app("127.0.0.1", 8080, "full", None)
assert seen == [False] and gc.isenabled(), (seen, gc.isenabled())
gc.disable()
servers._http_app("127.0.0.1", 8080, "full", None)
assert seen == [False, False] and not gc.isenabled()
"""
    done = _run_python(script, tmp_path)
    assert done.returncode == 0, done.stderr


PARSERS = {"selectolax", "lxml", "trafilatura", "pypdfium2", "charset_normalizer"}
PARSERS_OURS = {
    "sosoapi.extract.html",
    "sosoapi.extract.page",
    "sosoapi.extract.captions",
    "sosoapi.extract.tracks",
    "sosoapi.extract.pdf",
    "sosoapi.extract.walls",
}


def test_a_server_builds_its_app_without_loading_a_parser(tmp_path: Path) -> None:
    """`serve` builds its app, and `mcp` imports its own, with no extractor loaded: parses
    run in the pool's workers, whose forkserver preloads them (research/offload.py), so
    each server start is spared their imports (docs/testing.md, "Lighter starts")."""
    script = """
import sys
from sosoapi.cli import servers
servers._http_app("127.0.0.1", 8080, "full", None)
import sosoapi.app_stdio
print(*sys.modules)
"""
    done = _run_python(script, tmp_path)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert "sosoapi.application" in loaded and "sosoapi.research.retrieval.reading" in loaded
    assert not {name.split(".")[0] for name in loaded} & PARSERS
    assert not loaded & PARSERS_OURS
