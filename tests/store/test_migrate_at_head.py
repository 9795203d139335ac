"""A start on a schema already at the newest migration runs no Alembic (its import and
the scripts' load were most of a second of every start), and one behind still migrates."""

from __future__ import annotations

from importlib import resources

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text

from sosoapi.store.database import Database, head_revision
from tests.support.migrations import at_revision


def test_the_head_read_from_the_scripts_is_alembics() -> None:
    config = Config()
    config.set_main_option("script_location", str(resources.files("sosoapi.store") / "migrations"))
    assert head_revision() == ScriptDirectory.from_config(config).get_current_head()


def _version(db: Database) -> str:
    with db.read() as conn:
        return str(conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one())


def test_a_schema_at_head_is_left_alone_and_one_behind_is_migrated(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    behind = at_revision(database_url, "0016")
    behind.migrate()  # 0016 -> head: Alembic runs
    assert _version(behind) == head_revision()
    behind.engine.dispose()

    def no_alembic(*args: object, **kwargs: object) -> None:
        raise AssertionError("Alembic ran on a schema at head")

    import alembic.command

    monkeypatch.setattr(alembic.command, "upgrade", no_alembic)
    at_head = Database(database_url)
    at_head.migrate()  # at head: nothing imported, nothing run
    assert _version(at_head) == head_revision()
    at_head.engine.dispose()
