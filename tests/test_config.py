"""The one environment reader: strict booleans and named errors, never a silent default."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sosoapi.config import Settings, log_level


def _settings(tmp_path: Path, **env: str) -> Settings:
    return Settings.from_env({"SOSOAPI_HOME": str(tmp_path), **env})


@pytest.mark.parametrize("value", ["1", "true", "TRUE", "yes", "on", " On "])
def test_output_schemas_reads_every_true_spelling(tmp_path: Path, value: str) -> None:
    assert _settings(tmp_path, SOSOAPI_OUTPUT_SCHEMAS=value).output_schemas is True


@pytest.mark.parametrize("value", ["", "0", "false", "No", "off"])
def test_output_schemas_reads_every_false_spelling(tmp_path: Path, value: str) -> None:
    assert _settings(tmp_path, SOSOAPI_OUTPUT_SCHEMAS=value).output_schemas is False


@pytest.mark.parametrize("value", ["ture", "2", "enabled", "y es"])
def test_a_misspelt_boolean_is_an_error_naming_the_variable(tmp_path: Path, value: str) -> None:
    with pytest.raises(ValueError) as raised:
        _settings(tmp_path, SOSOAPI_OUTPUT_SCHEMAS=value)
    message = str(raised.value)
    assert f"SOSOAPI_OUTPUT_SCHEMAS={value.strip()!r}" in message and "set it to 1 or 0" in message


def test_public_url_and_log_level_are_read_here(tmp_path: Path) -> None:
    settings = _settings(tmp_path, SOSOAPI_PUBLIC_URL="https://research.example/")
    assert settings.public_url == "https://research.example/"
    assert log_level({}) == "INFO" and log_level({"SOSOAPI_LOG_LEVEL": "debug"}) == "DEBUG"
    with pytest.raises(ValueError, match="SOSOAPI_LOG_LEVEL='LOUD' is not a log level"):
        log_level({"SOSOAPI_LOG_LEVEL": "loud"})


def test_no_other_module_reads_the_environment() -> None:
    src = Path(__file__).resolve().parents[1] / "src" / "sosoapi"
    readers = sorted(
        str(p.relative_to(src))
        for p in src.rglob("*.py")
        if any(k in p.read_text("utf-8") for k in ("os.environ", "os.getenv", "envvar="))
        # sosoapi.testing starts `sosoapi` processes for tests with the caller's environment
        # passed on; it reads no setting of the product
        and p.parent.name != "testing"
    )
    assert readers == ["config.py"]


def test_the_evidence_text_bound_is_read_and_checked(tmp_path: Path) -> None:
    assert _settings(tmp_path).receipts.evidence_text_max == 500_000
    assert (
        _settings(tmp_path, SOSOAPI_EVIDENCE_TEXT_MAX="60000").receipts.evidence_text_max == 60_000
    )
    for value, says in (
        ("19999", "use a number >= 20000"),
        ("lots", "use a number >= 20000"),
        ("1000001", "use a number from 20000 to 1000000"),
    ):
        with pytest.raises(ValueError) as raised:
            _settings(tmp_path, SOSOAPI_EVIDENCE_TEXT_MAX=value)
        assert "SOSOAPI_EVIDENCE_TEXT_MAX" in str(raised.value) and says in str(raised.value)


@pytest.mark.parametrize(("value", "kept"), [("", True), ("1", True), ("0", False), ("off", False)])
def test_keep_captures_is_on_unless_turned_off(tmp_path: Path, value: str, kept: bool) -> None:
    assert _settings(tmp_path, SOSOAPI_KEEP_CAPTURES=value).receipts.keep_captures is kept
    assert Settings.from_env({"SOSOAPI_HOME": str(tmp_path)}).receipts.keep_captures is True


def test_the_heavy_read_pool_is_read_and_checked(tmp_path: Path) -> None:
    default = _settings(tmp_path).heavy_reads
    assert (default.slots, default.per_workspace, default.max_queued_per_workspace) == (2, 1, 64)
    chosen = _settings(
        tmp_path,
        SOSOAPI_HEAVY_READ_SLOTS="6",
        SOSOAPI_HEAVY_READ_SLOTS_PER_WORKSPACE="9",
        SOSOAPI_HEAVY_READ_MAX_QUEUED_PER_WORKSPACE="3",
    ).heavy_reads
    assert (chosen.slots, chosen.per_workspace, chosen.max_queued_per_workspace) == (6, 6, 3)
    with pytest.raises(ValueError) as raised:
        _settings(tmp_path, SOSOAPI_HEAVY_READ_SLOTS="0")
    assert "SOSOAPI_HEAVY_READ_SLOTS" in str(raised.value) and ">= 1" in str(raised.value)


def test_the_export_slots_are_read_and_checked(tmp_path: Path) -> None:
    default = _settings(tmp_path).exports
    assert (default.slots, default.per_workspace, default.max_queued_per_workspace) == (4, 2, 8)
    chosen = _settings(
        tmp_path,
        SOSOAPI_EXPORT_SLOTS="3",
        SOSOAPI_EXPORT_SLOTS_PER_WORKSPACE="5",
        SOSOAPI_EXPORT_MAX_QUEUED_PER_WORKSPACE="1",
    ).exports
    assert (chosen.slots, chosen.per_workspace, chosen.max_queued_per_workspace) == (3, 3, 1)
    with pytest.raises(ValueError) as raised:
        _settings(tmp_path, SOSOAPI_EXPORT_MAX_QUEUED_PER_WORKSPACE="0")
    assert "SOSOAPI_EXPORT_MAX_QUEUED_PER_WORKSPACE" in str(raised.value)


def test_the_oauth_rate_limits_are_read_and_checked(tmp_path: Path) -> None:
    def rates(settings: Settings) -> tuple[int, ...]:
        return (
            settings.oauth_register_burst,
            settings.oauth_register_per_minute,
            settings.oauth_authorize_burst,
            settings.oauth_authorize_per_minute,
        )

    assert rates(_settings(tmp_path)) == (10, 10, 30, 60)
    chosen = _settings(
        tmp_path,
        SOSOAPI_OAUTH_REGISTER_BURST="100",
        SOSOAPI_OAUTH_REGISTER_PER_MINUTE="120",
        SOSOAPI_OAUTH_AUTHORIZE_BURST="300",
        SOSOAPI_OAUTH_AUTHORIZE_PER_MINUTE="600",
    )
    assert rates(chosen) == (100, 120, 300, 600)
    names = ("REGISTER_BURST", "REGISTER_PER_MINUTE", "AUTHORIZE_BURST", "AUTHORIZE_PER_MINUTE")
    for name in names:
        for value in ("0", "-3", "2.5", "many"):
            with pytest.raises(ValueError) as raised:
                _settings(tmp_path, **{f"SOSOAPI_OAUTH_{name}": value})
            said = str(raised.value)
            assert f"SOSOAPI_OAUTH_{name}={value!r}" in said and "use a number >= 1" in said


def test_a_postgresql_url_without_its_driver_names_the_extra_not_the_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """psycopg is the `postgres` extra: without it a PostgreSQL URL is refused at start,
    with the fix, and the URL's password is not repeated; SQLite needs nothing."""
    monkeypatch.setitem(sys.modules, "psycopg", None)  # not installed
    url = "postgresql+psycopg://research:s3cret-pw@db.internal/sosoapi"
    with pytest.raises(ValueError, match=r"pip install 'sosoapi\[postgres\]'") as refused:
        Settings.from_env({"SOSOAPI_HOME": str(tmp_path), "SOSOAPI_DATABASE_URL": url})
    assert "s3cret-pw" not in str(refused.value)
    settings = Settings.from_env({"SOSOAPI_HOME": str(tmp_path)})
    assert settings.database_url.startswith("sqlite")
