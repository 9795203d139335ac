"""The composition root's core: settings -> store -> services, wired in one place.

`Application` is what every entry runs: `sosoapi serve` and `sosoapi mcp` put their
surfaces on it (app.py), and a CLI operation calls a tool on it directly. It imports no
surface (no FastAPI, no MCP SDK), so a one-shot CLI command does not pay for them at start.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

import anyio

from sosoapi.auth.permission import Guard
from sosoapi.clock import utcnow
from sosoapi.config import Settings
from sosoapi.contract.documents import DOCUMENT_KIND
from sosoapi.egress.gate import Egress
from sosoapi.extract.html_trafilatura import trafilatura_available
from sosoapi.oauth.grants import OAuthGrants
from sosoapi.research.corpora.export_process import ExportProcesses
from sosoapi.research.corpora.export_slots import ExportSlots
from sosoapi.research.documents.reading import read_document
from sosoapi.research.heavy import HeavyReads
from sosoapi.research.offload import Offload
from sosoapi.research.retrieval.captures import Captured
from sosoapi.research.retrieval.pending_turns import PendingUntilTurn, fetch_in_turn
from sosoapi.research.retrieval.reading import read_captured
from sosoapi.research.retrieval.receipts import ReceiptService
from sosoapi.research.retrieval.settings import ParseBounds, ReceiptSettings
from sosoapi.research.service import ResearchService
from sosoapi.store.database import exposed_files
from sosoapi.store.records import StoreUnavailable
from sosoapi.store.store import Store

log = logging.getLogger("sosoapi")
HEAVY_JOB_SECONDS = 120.0


def _heavy_processes(settings: Settings) -> Offload:
    """Where heavy reads' text work runs: one process per heavy slot wherever parsing runs
    in processes (a server's default), none (the job's thread) otherwise. Their deadline
    is one revision's (or one diff's) work, far past what 1,000,000 characters take."""
    workers = settings.heavy_reads.slots if settings.parse_workers > 0 else 0
    bounds = ParseBounds(HEAVY_JOB_SECONDS, settings.parse_bounds.memory_mb)
    return Offload(workers, bounds)


def _exports(settings: Settings) -> ExportProcesses | None:
    """Served exports in processes of their own wherever parsing runs in processes (a
    server's default); each opens the store on one connection of its own."""
    if settings.parse_workers <= 0:
        return None
    return ExportProcesses(partial(Store, settings.database_url, migrate=False, pool_size=1))


class Application:
    """Everything one server instance runs, wired once."""

    def __init__(self, settings: Settings, *, egress: Egress | None = None) -> None:
        self.settings = settings
        self.store = Store(
            settings.database_url,
            pool_size=settings.database_pool_size,
            storage_limit=settings.workspace_storage_max_bytes,
        )
        self.guard = Guard(self.store.auth)
        self.oauth = OAuthGrants(self.store.oauth, self.guard)
        self.egress = egress or Egress(
            settings.egress,
            pacing=self.store.pacing.reserve_slot,
            release=self.store.pacing.release,
        )
        self.offload = Offload(settings.parse_workers, settings.parse_bounds)
        self.heavy_processes = _heavy_processes(settings)
        reader = partial(
            _read, self.egress, self.offload, settings.receipts, settings.egress.max_body_bytes
        )
        self.receipts = ReceiptService(self.store.retrievals, reader, settings.receipts)
        self.research = ResearchService(
            self.store,
            self.guard,
            self.receipts,
            max_upload_bytes=settings.egress.max_body_bytes,
            upload_roots=settings.upload_roots,
            heavy=HeavyReads(settings.heavy_reads, self.heavy_processes),
            parse_pool=self.offload,
            exports=_exports(settings),
            export_slots=ExportSlots(settings.exports),
        )

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Application]:
        """Start workers and the sweeper; on exit drain, then close egress and the store."""
        warn_exposed_files(self.settings.database_url)
        if not trafilatura_available():
            log.info("trafilatura not installed: unsure pages keep our own main text "
                     "(pip install 'sosoapi[trafilatura]' adds the fallback)")  # fmt: skip
        self.offload.start()
        self.heavy_processes.start()
        try:
            async with self.receipts.running(), anyio.create_task_group() as sweepers:
                sweepers.start_soon(self._sweep_oauth)
                freeze_startup_heap()
                yield self
                sweepers.cancel_scope.cancel()
        finally:
            await self.egress.aclose()
            self.offload.close()
            self.heavy_processes.close()

    async def _sweep_oauth(self) -> None:
        """Every sweep interval: what open registration leaves behind (oauth/grants.py)."""
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
    egress: Egress,
    pool: Offload,
    settings: ReceiptSettings,
    capture_max_bytes: int,
    kind: str,
    url: str,
    language: str | None,
    receipt: PendingUntilTurn,
) -> Captured:
    """A receipt's read: through the gate, waiting `pending` for a late turn if the
    receipt allows it, parsing in this application's pool; a PDF by the document tool's
    reader (its capture keeps at most `capture_max_bytes` of it, a page's body bound), any
    other kind by the seed's."""
    fetch = partial(fetch_in_turn, egress, receipt)
    whole_max = settings.evidence_text_max
    if kind == DOCUMENT_KIND:
        return await read_document(
            fetch, url, language, max_bytes=settings.document_max_bytes,
            max_pages=settings.document_max_pages, whole_max=whole_max,
            capture_max_bytes=capture_max_bytes, pool=pool,
        )  # fmt: skip
    return await read_captured(fetch, kind, url, language, whole_max=whole_max, pool=pool)
