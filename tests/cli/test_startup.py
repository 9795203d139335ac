"""`sosoapi --help` (and any verb's help) loads only click and the CLI's own words: the
store (SQLAlchemy, Alembic), the contract's pydantic models and the application are
imported by the verb that runs, so a shell's first touch stays quick (bench/startup.py)."""

from __future__ import annotations

import subprocess
import sys

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
