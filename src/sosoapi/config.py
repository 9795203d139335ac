"""Settings from flags and SOSOAPI_* environment variables: the one reader of the environment.

Every variable is read here and nowhere else (the README's configuration table lists them).
It builds the settings types each layer declares (`egress/settings.py`,
`research/retrieval/settings.py`, `store/settings.py`) and imports nothing else of the
project. A value that
cannot be read is an error naming the variable, the value and the fix, never a silent
default: `SOSOAPI_OUTPUT_SCHEMAS=ture` stops the start instead of meaning "off".
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from sosoapi.egress.settings import (
    ROBOTS_MODES,
    EgressSettings,
    ca_bundle,
    hosts,
    parse_allow,
    parse_resolve,
    ports,
    proxy,
    user_agent_for,
)
from sosoapi.research.corpora.settings import ExportSettings
from sosoapi.research.evidence.settings import HeavyReadSettings
from sosoapi.research.retrieval.settings import (
    PAGES_CEILING,
    TEXT_MAX,
    WHOLE_TEXT_CEILING,
    WHOLE_TEXT_DEFAULT,
    ParseBounds,
    ReceiptSettings,
)
from sosoapi.store.settings import (
    DEFAULT_POOL_SIZE,
    DEFAULT_WORKSPACE_STORAGE_MAX_MB,
    MIB,
    database_url,
)

PROFILES = ("full", "core")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")
T = TypeVar("T", int, float)
Environ = Mapping[str, str]


def number(environ: Environ, name: str, default: T, kind: Callable[[str], T], minimum: T) -> T:
    """A number of `kind` at least `minimum`; `default` when unset or empty."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or value < minimum:
        raise ValueError(
            f"{name}={raw!r} is not a valid {kind.__name__}: use a number >= {minimum}"
        )
    return value


def seconds(environ: Environ, name: str, default: float) -> float:
    """A positive number of seconds; `default` when unset or empty."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a number; set it to seconds, e.g. 30") from None
    if not value > 0:
        raise ValueError(f"{name}={raw!r} must be positive; set it to seconds, e.g. 30")
    return value


def flag(environ: Environ, name: str, *, default: bool = False) -> bool:
    """A strict boolean: 1/true/yes/on or 0/false/no/off (any case); unset is `default`."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    if raw.lower() in TRUE:
        return True
    if raw.lower() in FALSE:
        return False
    raise ValueError(f"{name}={raw!r} is not a boolean; set it to 1 or 0 (or true/false)")


def log_level(environ: Environ | None = None) -> str:
    """SOSOAPI_LOG_LEVEL, INFO when unset."""
    env = os.environ if environ is None else environ
    level = (env.get("SOSOAPI_LOG_LEVEL") or "INFO").strip().upper()
    if level not in LOG_LEVELS:
        raise ValueError(
            f"SOSOAPI_LOG_LEVEL={level!r} is not a log level; use one of {', '.join(LOG_LEVELS)}"
        )
    return level


def _roots(environ: Environ) -> tuple[Path, ...]:
    """SOSOAPI_UPLOAD_ROOTS (os.pathsep list); default the directory the server starts in.

    A root that does not exist is not checked here: the server starts, and the upload tool
    names the variable and the missing directory (a client shows a server that will not
    start only as "Connection closed")."""
    raw = environ.get("SOSOAPI_UPLOAD_ROOTS", "")
    roots = [Path(item).expanduser() for item in raw.split(os.pathsep) if item.strip()]
    return tuple(roots) or (Path.cwd(),)


def egress_from_env(environ: Environ) -> EgressSettings:
    """The gate's settings from SOSOAPI_EGRESS_* (and SOSOAPI_UNSUPPORTED_SOURCES)."""
    defaults = EgressSettings()
    get = environ.get
    contact = get("SOSOAPI_EGRESS_CONTACT_URL", "").strip()
    if contact and not contact.startswith(("https://", "http://", "mailto:")):
        raise ValueError(
            f"SOSOAPI_EGRESS_CONTACT_URL={contact!r} is not a URL: give an https:// page "
            "or a mailto: address where site operators can reach you"
        )
    return EgressSettings(
        allow=parse_allow(get("SOSOAPI_EGRESS_ALLOW", "")),
        resolve=parse_resolve(get("SOSOAPI_EGRESS_RESOLVE", "")),
        ca_bundle=ca_bundle(get("SOSOAPI_EGRESS_CA_BUNDLE", "")),
        ports=ports(get("SOSOAPI_EGRESS_PORTS", "")) or defaults.ports,
        unsupported_sources=hosts(get("SOSOAPI_UNSUPPORTED_SOURCES"))
        or defaults.unsupported_sources,
        proxy=proxy(get("SOSOAPI_EGRESS_PROXY", "")),
        max_body_bytes=number(
            environ, "SOSOAPI_EGRESS_MAX_BODY_BYTES", defaults.max_body_bytes, int, 1
        ),
        total_timeout=number(
            environ, "SOSOAPI_EGRESS_TOTAL_TIMEOUT", defaults.total_timeout, float, 0.001
        ),
        connect_timeout=number(
            environ, "SOSOAPI_EGRESS_CONNECT_TIMEOUT", defaults.connect_timeout, float, 0.001
        ),
        read_timeout=number(
            environ, "SOSOAPI_EGRESS_READ_TIMEOUT", defaults.read_timeout, float, 0.001
        ),
        max_redirects=number(
            environ, "SOSOAPI_EGRESS_MAX_REDIRECTS", defaults.max_redirects, int, 0
        ),
        user_agent=user_agent_for(contact) if contact else defaults.user_agent,
        per_origin_concurrency=number(
            environ,
            "SOSOAPI_EGRESS_PER_ORIGIN_CONCURRENCY",
            defaults.per_origin_concurrency,
            int,
            1,
        ),
        per_origin_min_interval=number(
            environ,
            "SOSOAPI_EGRESS_PER_ORIGIN_MIN_INTERVAL",
            defaults.per_origin_min_interval,
            float,
            0.0,
        ),
        max_concurrent_fetches=number(
            environ, "SOSOAPI_EGRESS_MAX_CONCURRENCY", defaults.max_concurrent_fetches, int, 1
        ),
        robots_txt=_robots_mode(get("SOSOAPI_ROBOTS_TXT", "")) or defaults.robots_txt,
        robots_cache_seconds=number(
            environ, "SOSOAPI_ROBOTS_CACHE_SECONDS", defaults.robots_cache_seconds, float, 1.0
        ),
        robots_error_seconds=number(
            environ, "SOSOAPI_ROBOTS_ERROR_SECONDS", defaults.robots_error_seconds, float, 1.0
        ),
        robots_max_crawl_delay=number(
            environ, "SOSOAPI_ROBOTS_MAX_CRAWL_DELAY", defaults.robots_max_crawl_delay, float, 0.0
        ),
    )


def _robots_mode(value: str) -> str | None:
    mode = value.strip().lower()
    if mode and mode not in ROBOTS_MODES:
        raise ValueError(
            f"SOSOAPI_ROBOTS_TXT={value!r} is unknown; use `obey` (default) or "
            "`user_triggered` (only when every fetch is a person's explicit request)"
        )
    return mode or None


@dataclass(frozen=True)
class Settings:
    database_url: str
    home: Path
    database_pool_size: int = DEFAULT_POOL_SIZE  # PostgreSQL connections per process
    # what one workspace may store, in bytes (0: no limit; store/usage.py)
    workspace_storage_max_bytes: int = DEFAULT_WORKSPACE_STORAGE_MAX_MB * MIB
    profile: str = "full"
    output_schemas: bool = False
    token: str | None = None
    public_url: str | None = None
    allowed_hosts: tuple[str, ...] = ()  # more Host names to answer to (api/hosts.py)
    egress: EgressSettings = field(default_factory=EgressSettings)
    receipts: ReceiptSettings = field(default_factory=ReceiptSettings)
    heavy_reads: HeavyReadSettings = field(default_factory=HeavyReadSettings)
    exports: ExportSettings = field(default_factory=ExportSettings)
    upload_roots: tuple[Path, ...] = ()
    parse_workers: int = 0  # processes for CPU-bound parsing; 0: threads (research/offload.py)
    parse_bounds: ParseBounds = field(default_factory=ParseBounds)
    max_request_bytes: int = 1 << 20
    mcp_sessions_per_user: int = 100
    mcp_session_idle_seconds: float = 600.0
    # OAuth /register and /authorize per client address: at once, then a minute
    # (oauth/registration.py; behind a proxy every caller shares the proxy's address)
    oauth_register_burst: int = 10
    oauth_register_per_minute: int = 10
    oauth_authorize_burst: int = 30
    oauth_authorize_per_minute: int = 60

    @classmethod
    def from_env(
        cls, environ: Environ | None = None, *, profile: str | None = None, one_shot: bool = False
    ) -> Settings:
        """The settings the environment gives; `one_shot` for a command that reads one
        source and exits (its parsing default is threads: `_workers`)."""
        env = os.environ if environ is None else environ
        home = Path(env.get("SOSOAPI_HOME") or Path.home() / ".local/share/sosoapi").expanduser()
        chosen = profile or env.get("SOSOAPI_PROFILE") or "full"
        if chosen not in PROFILES:
            raise ValueError(f"SOSOAPI_PROFILE={chosen!r} is unknown; use `full` or `core`")
        receipts = ReceiptSettings(
            idempotency_window_seconds=seconds(env, "SOSOAPI_IDEMPOTENCY_WINDOW_SECONDS", 86400),
            wait_budget_seconds=seconds(env, "SOSOAPI_WAIT_BUDGET_SECONDS", 25),
            lease_seconds=seconds(env, "SOSOAPI_LEASE_SECONDS", 30),
            sweep_interval_seconds=seconds(env, "SOSOAPI_SWEEP_INTERVAL_SECONDS", 10),
            shutdown_grace_seconds=seconds(env, "SOSOAPI_SHUTDOWN_GRACE_SECONDS", 10),
            max_concurrent_retrievals=number(env, "SOSOAPI_RETRIEVAL_SLOTS", 16, int, 1),
            slots_per_workspace=number(env, "SOSOAPI_SLOTS_PER_WORKSPACE", 0, int, 1),
            max_queued_per_workspace=number(env, "SOSOAPI_MAX_QUEUED_PER_WORKSPACE", 500, int, 1),
            evidence_text_max=_evidence_text_max(env),
            document_max_bytes=number(env, "SOSOAPI_DOCUMENT_MAX_BYTES", 50 * MIB, int, 1024),
            document_max_pages=_document_max_pages(env),
            keep_captures=flag(env, "SOSOAPI_KEEP_CAPTURES")
            if env.get("SOSOAPI_KEEP_CAPTURES", "").strip()
            else True,
        )
        return cls(
            database_url=database_url(env.get("SOSOAPI_DATABASE_URL"), home),
            home=home,
            database_pool_size=number(env, "SOSOAPI_DATABASE_POOL_SIZE", DEFAULT_POOL_SIZE, int, 1),
            workspace_storage_max_bytes=MIB
            * number(
                env, "SOSOAPI_WORKSPACE_STORAGE_MAX_MB", DEFAULT_WORKSPACE_STORAGE_MAX_MB, int, 0
            ),
            profile=chosen,
            output_schemas=flag(env, "SOSOAPI_OUTPUT_SCHEMAS"),
            token=env.get("SOSOAPI_TOKEN") or None,
            public_url=env.get("SOSOAPI_PUBLIC_URL") or None,
            allowed_hosts=tuple(
                h.strip() for h in env.get("SOSOAPI_ALLOWED_HOSTS", "").split(",") if h.strip()
            ),
            egress=egress_from_env(env),
            receipts=receipts,
            heavy_reads=HeavyReadSettings(
                slots=number(env, "SOSOAPI_HEAVY_READ_SLOTS", 2, int, 1),
                per_workspace=number(env, "SOSOAPI_HEAVY_READ_SLOTS_PER_WORKSPACE", 0, int, 1),
                max_queued_per_workspace=number(
                    env, "SOSOAPI_HEAVY_READ_MAX_QUEUED_PER_WORKSPACE", 64, int, 1
                ),
            ),
            exports=ExportSettings(
                slots=number(env, "SOSOAPI_EXPORT_SLOTS", 4, int, 1),
                per_workspace=number(env, "SOSOAPI_EXPORT_SLOTS_PER_WORKSPACE", 0, int, 1),
                max_queued_per_workspace=number(
                    env, "SOSOAPI_EXPORT_MAX_QUEUED_PER_WORKSPACE", 8, int, 1
                ),
            ),
            upload_roots=_roots(env),
            parse_workers=_workers(env, one_shot),
            parse_bounds=ParseBounds(
                deadline_seconds=seconds(env, "SOSOAPI_PARSE_DEADLINE_SECONDS", 10.0),
                memory_mb=number(env, "SOSOAPI_PARSE_MEMORY_MB", 1024, int, 64),
            ),
            max_request_bytes=number(env, "SOSOAPI_MAX_REQUEST_BYTES", 1 << 20, int, 1),
            mcp_sessions_per_user=number(env, "SOSOAPI_MCP_SESSIONS_PER_USER", 100, int, 1),
            mcp_session_idle_seconds=seconds(env, "SOSOAPI_MCP_SESSION_IDLE_SECONDS", 600),
            **_oauth_rates(env),
        )


def _oauth_rates(environ: Environ) -> dict[str, int]:
    """SOSOAPI_OAUTH_{REGISTER,AUTHORIZE}_{BURST,PER_MINUTE}, each at least 1; unset, the
    defaults `Settings` declares."""
    fields = ("register_burst", "register_per_minute", "authorize_burst", "authorize_per_minute")
    rates: dict[str, int] = {}
    for name in fields:
        default: int = getattr(Settings, f"oauth_{name}")
        variable = f"SOSOAPI_OAUTH_{name.upper()}"
        rates[f"oauth_{name}"] = number(environ, variable, default, int, 1)
    return rates


def _evidence_text_max(environ: Environ) -> int:
    """SOSOAPI_EVIDENCE_TEXT_MAX: code points of whole text an evidence revision keeps,
    from the receipt's 20,000 up to the contract's offset ceiling."""
    value = number(environ, "SOSOAPI_EVIDENCE_TEXT_MAX", WHOLE_TEXT_DEFAULT, int, TEXT_MAX)
    if value > WHOLE_TEXT_CEILING:
        raise ValueError(
            f"SOSOAPI_EVIDENCE_TEXT_MAX={value} is above {WHOLE_TEXT_CEILING:,}, the "
            "furthest offset the contract carries; use a number from 20000 to 1000000"
        )
    return value


def _document_max_pages(environ: Environ) -> int:
    """SOSOAPI_DOCUMENT_MAX_PAGES: pages of one PDF read, from 1 to the contract's bound."""
    value = number(environ, "SOSOAPI_DOCUMENT_MAX_PAGES", 2_000, int, 1)
    if value > PAGES_CEILING:
        raise ValueError(
            f"SOSOAPI_DOCUMENT_MAX_PAGES={value} is above {PAGES_CEILING:,}, the most pages "
            f"a document result may list; set it from 1 to {PAGES_CEILING}"
        )
    return value


def default_workers() -> int:
    """One parsing process per core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _workers(environ: Environ, one_shot: bool = False) -> int:
    """SOSOAPI_PARSE_WORKERS: parsing processes; default one per core for a server, one
    for a one-shot command.

    Every parse runs in a worker that is killed at its deadline or memory cap
    (research/offload.py), so even one core, or a command that reads one source, parses
    in a process: a thread cannot be killed. 0 (threads) is the operator's explicit
    choice: the deadline then only stops the waiting, and memory is not capped."""
    raw = environ.get("SOSOAPI_PARSE_WORKERS", "").strip()
    if not raw:
        return 1 if one_shot else default_workers()
    if not raw.isdigit():
        raise ValueError(
            f"SOSOAPI_PARSE_WORKERS={raw!r} is not a whole number; set the number of "
            "parsing processes, e.g. the number of cores (0 parses in threads, unbounded)"
        )
    return int(raw)


_SERVE_OPTIONS = "SOSOAPI_SERVE_WORKER_OPTIONS"


def parse_workers_per_process(processes: int, cores: int) -> int:
    """Parsing processes each of `serve --workers N`'s server processes gets by default.

    The cores shared out, at least one each: parsing in a server's own threads holds the
    GIL its event loop needs, which cost about a third of the throughput of two server
    processes on two cores (bench/README.md, "Load"), and a thread cannot be killed at
    a parse's bounds.
    """
    return max(1, cores // max(processes, 1))


def hand_to_serve_workers(options: list[object], processes: int) -> None:
    """Leave `serve --workers` options where uvicorn's fresh worker processes read them,
    with each process's share of parsing processes unless SOSOAPI_PARSE_WORKERS is set."""
    share = parse_workers_per_process(processes, default_workers())
    os.environ.setdefault("SOSOAPI_PARSE_WORKERS", str(share))
    os.environ[_SERVE_OPTIONS] = json.dumps(options)


def serve_worker_options() -> list[Any]:
    """The options `hand_to_serve_workers` left for this worker process."""
    return list(json.loads(os.environ[_SERVE_OPTIONS]))
