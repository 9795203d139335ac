"""The composition root: settings -> store -> services -> surfaces, wired in one place.

Nothing else builds a service or a surface: `api/`, `mcp/` and `web/` take what they need
as arguments and never import this module; `cli/` (the program's entry) asks it for a
running application, the HTTP app, or the stdio server.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

import anyio
from fastapi import FastAPI

from sosoapi.api.http import create_http_app, public_base
from sosoapi.auth.oauth import OAuthGrants
from sosoapi.auth.permission import Guard
from sosoapi.clock import utcnow
from sosoapi.config import Settings
from sosoapi.egress.gate import Egress
from sosoapi.mcp.http import McpAuth, McpLimits, mcp_http
from sosoapi.mcp.stdio import serve_stdio
from sosoapi.research.heavy import HeavyReads
from sosoapi.research.offload import Offload, install
from sosoapi.research.retrieval.captures import Captured
from sosoapi.research.retrieval.reading import read_captured
from sosoapi.research.retrieval.receipts import ReceiptService
from sosoapi.research.review.sessions import ConsoleSessions
from sosoapi.research.review.views import Review
from sosoapi.research.service import ResearchService
from sosoapi.store.database import exposed_files
from sosoapi.store.records import StoreUnavailable
from sosoapi.store.store import Store
from sosoapi.web.client_secrets import ClientSecretHasher
from sosoapi.web.console import add_console
from sosoapi.web.oauth import oauth_server
from sosoapi.web.registration import RegistrationGate

log = logging.getLogger("sosoapi")


class Application:
    """Everything one server instance runs, wired once."""

    def __init__(self, settings: Settings, *, egress: Egress | None = None) -> None:
        self.settings = settings
        self.store = Store(settings.database_url, pool_size=settings.database_pool_size)
        self.guard = Guard(self.store.auth)
        self.oauth = OAuthGrants(self.store.oauth, self.guard)
        self.egress = egress or Egress(
            settings.egress,
            pacing=self.store.pacing.reserve_slot,
            release=self.store.pacing.release,
        )
        self.offload = Offload(settings.parse_workers)
        reader = partial(_read, self.egress, settings.receipts.evidence_text_max)
        self.receipts = ReceiptService(self.store.retrievals, reader, settings.receipts)
        self.research = ResearchService(
            self.store,
            self.guard,
            self.receipts,
            max_upload_bytes=settings.egress.max_body_bytes,
            upload_roots=settings.upload_roots,
            heavy=HeavyReads(settings.heavy_reads),
        )

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Application]:
        """Start workers and the sweeper; on exit drain, then close egress and the store."""
        warn_exposed_files(self.settings.database_url)
        self.offload.start()
        install(self.offload)
        try:
            async with self.receipts.running(), anyio.create_task_group() as sweepers:
                sweepers.start_soon(self._sweep_oauth)
                freeze_startup_heap()
                yield self
                sweepers.cancel_scope.cancel()
        finally:
            await self.egress.aclose()
            self.offload.close()

    async def _sweep_oauth(self) -> None:
        """Every sweep interval: what open registration leaves behind (auth/oauth.py)."""
        while True:
            try:
                swept = await anyio.to_thread.run_sync(self.oauth.sweep, utcnow())
                if swept.requests or swept.clients:
                    log.info("oauth sweep requests=%d clients=%d", swept.requests, swept.clients)
            except StoreUnavailable:
                log.warning("oauth sweep skipped: store unavailable")
            except Exception:
                log.exception("oauth sweep failed")
            await anyio.sleep(self.settings.receipts.sweep_interval_seconds)


def warn_exposed_files(database_url: str) -> None:
    """Say on start which data files other local users can read, and the fix.

    New files are made private (store/database.py); files an older version or another
    tool made may not be, and they hold every evidence and every token and secret hash.
    """
    for path, mode in exposed_files(database_url):
        fix = "chmod 700" if path.is_dir() else "chmod 600"
        log.warning(
            "%s is open to other local users (mode %s): it holds the evidence and every "
            "token and secret hash; fix it with `%s %s`",
            path,
            oct(mode),
            fix,
            path,
        )


def freeze_startup_heap() -> None:
    """Move everything built at start-up out of the collector's view.

    The extractors' modules make a large, long-lived heap; without this, every full
    collection walks it (about 65 ms here, a p99 spike every ~70 calls; bench/README.md).
    """
    gc.collect()
    gc.freeze()


async def _read(
    egress: Egress, whole_max: int, kind: str, url: str, language: str | None
) -> Captured:
    return await read_captured(egress.fetch, kind, url, language, whole_max=whole_max)


def http_app(settings: Settings, *, host: str, port: int, public_url: str | None = None) -> FastAPI:
    """`sosoapi serve`'s app: the HTTP API, MCP at /mcp, OAuth, the docs and the console."""
    application = Application(settings)
    base = public_base(host, port, public_url or settings.public_url)
    oauth = oauth_server(application.oauth, base)
    mcp = mcp_http(
        application.research,
        McpAuth(
            oauth.settings, oauth.provider, lambda sdk: RegistrationGate(ClientSecretHasher(sdk))
        ),
        host=host,
        base=base,
        profile=settings.profile,
        output_schemas=settings.output_schemas,
        limits=McpLimits(settings.mcp_sessions_per_user, settings.mcp_session_idle_seconds),
    )
    app = create_http_app(
        application.research,
        running=application.running(),
        mcp=mcp,
        host=host,
        port=port,
        profile=settings.profile,
        base=base,
        max_request_bytes=settings.max_request_bytes,
        pages=oauth.routes,
        allowed_hosts=settings.allowed_hosts,
    )
    add_console(
        app,
        ConsoleSessions(application.research),
        Review(application.research),
        secure_cookie=base.startswith("https://"),
    )
    return app


async def stdio_main(settings: Settings) -> None:
    """`sosoapi mcp`: the MCP server over stdio, identity from SOSOAPI_TOKEN."""
    application = Application(settings)
    async with application.running():
        await serve_stdio(
            application.research,
            profile=settings.profile,
            output_schemas=settings.output_schemas,
            token=settings.token,
            database_url=settings.database_url,
        )
