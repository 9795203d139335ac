"""Settings from flags and SOSOAPI_* environment variables (DESIGN.md fixes the names)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sosoapi.egress.settings import EgressSettings
from sosoapi.research.offload import default_workers
from sosoapi.research.settings import ReceiptSettings
from sosoapi.store.database import sqlite_url

PROFILES = ("full", "core")


def _float(environ: Mapping[str, str], name: str, default: float) -> float:
    raw = environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a number; set it to seconds, e.g. 30") from None
    if value <= 0:
        raise ValueError(f"{name}={raw!r} must be positive; set it to seconds, e.g. 30")
    return value


def _roots(environ: Mapping[str, str]) -> tuple[Path, ...]:
    """SOSOAPI_UPLOAD_ROOTS (os.pathsep list); default the directory the server starts in."""
    raw = environ.get("SOSOAPI_UPLOAD_ROOTS", "")
    roots = [Path(item).expanduser() for item in raw.split(os.pathsep) if item.strip()]
    for root in roots:
        if not root.is_dir():
            raise ValueError(
                f"SOSOAPI_UPLOAD_ROOTS names {str(root)!r}, which is not a directory; "
                "list existing directories separated by ':'"
            )
    return tuple(roots) or (Path.cwd(),)


def _flag(environ: Mapping[str, str], name: str) -> bool:
    return environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class Settings:
    database_url: str
    home: Path
    profile: str = "full"
    output_schemas: bool = False
    token: str | None = None
    egress: EgressSettings = field(default_factory=EgressSettings)
    receipts: ReceiptSettings = field(default_factory=ReceiptSettings)
    upload_roots: tuple[Path, ...] = ()
    parse_workers: int = 0  # processes for CPU-bound parsing; 0: threads (research/offload.py)

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, *, profile: str | None = None
    ) -> Settings:
        env = os.environ if environ is None else environ
        home = Path(env.get("SOSOAPI_HOME") or Path.home() / ".local/share/sosoapi").expanduser()
        chosen = profile or env.get("SOSOAPI_PROFILE") or "full"
        if chosen not in PROFILES:
            raise ValueError(f"SOSOAPI_PROFILE={chosen!r} is unknown; use `full` or `core`")
        receipts = ReceiptSettings(
            idempotency_window_seconds=_float(env, "SOSOAPI_IDEMPOTENCY_WINDOW_SECONDS", 86400),
            wait_budget_seconds=_float(env, "SOSOAPI_WAIT_BUDGET_SECONDS", 25),
            lease_seconds=_float(env, "SOSOAPI_LEASE_SECONDS", 30),
            sweep_interval_seconds=_float(env, "SOSOAPI_SWEEP_INTERVAL_SECONDS", 10),
            shutdown_grace_seconds=_float(env, "SOSOAPI_SHUTDOWN_GRACE_SECONDS", 10),
        )
        return cls(
            database_url=env.get("SOSOAPI_DATABASE_URL") or sqlite_url(home),
            home=home,
            profile=chosen,
            output_schemas=_flag(env, "SOSOAPI_OUTPUT_SCHEMAS"),
            token=env.get("SOSOAPI_TOKEN") or None,
            egress=EgressSettings.from_env(env),
            receipts=receipts,
            upload_roots=_roots(env),
            parse_workers=_workers(env),
        )


def _workers(environ: Mapping[str, str]) -> int:
    """SOSOAPI_PARSE_WORKERS: parsing processes; default one per core (0 on one core)."""
    raw = environ.get("SOSOAPI_PARSE_WORKERS", "").strip()
    if not raw:
        cores = default_workers()
        return cores if cores > 1 else 0
    if not raw.isdigit():
        raise ValueError(
            f"SOSOAPI_PARSE_WORKERS={raw!r} is not a whole number; set 0 (parse in threads) "
            "or the number of parsing processes, e.g. the number of cores"
        )
    return int(raw)
