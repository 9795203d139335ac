"""Many REST clients against several `sosoapi serve` instances sharing one database.

Each mutation is sent to every live instance at the same instant (the claim race the
instances must settle among themselves), then replayed round-robin until its receipt
settles. Every answer is counted by status; anything but a 200 is kept with its body and
incident id, so a test or `bench/instances.py` can name what went wrong.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from sosoapi.testing.origin import HTTPSOrigin

RETRIEVE_PATH = "/research-api/evidence/retrieve"
SETTLED = ("completed", "cancelled", "unconfirmed", "expired")
SLOW_SECONDS = 60.0  # far past any wait budget a test sets: the call was stuck somewhere
SETTLE_SECONDS = 300.0


class Load:
    """The clients' side of the load, and what it saw."""

    def __init__(self, http: httpx.AsyncClient, workspace_id: str, origin: HTTPSOrigin) -> None:
        self.http = http
        self.workspace_id = workspace_id
        self.origin = origin
        self.statuses: Counter[int | str] = Counter()
        self.states: Counter[str] = Counter()
        self.receipts: dict[str, dict[str, Any]] = {}  # path -> its settled receipt
        self.failures: list[str] = []
        self.incidents: list[str] = []
        self.latencies: list[float] = []
        self.down: set[str] = set()

    async def post(self, base: str, path: str, mutation_id: str) -> dict[str, Any] | None:
        """One retrieve call; its receipt, or None (counted and kept as a failure)."""
        request = {
            "url": self.origin.url(path),
            "kind": "url_text",
            "workspace_id": self.workspace_id,
            "mutation_id": mutation_id,
        }
        sent = time.monotonic()
        try:
            answer = await self.http.post(base + RETRIEVE_PATH, json=request)
        except httpx.TransportError as exc:
            self.statuses[type(exc).__name__] += 1
            if base not in self.down:
                self.failures.append(f"{type(exc).__name__} from live {base}")
            return None
        took = time.monotonic() - sent
        self.statuses[answer.status_code] += 1
        self.latencies.append(took)
        if took > SLOW_SECONDS:
            self.failures.append(f"slow {took:.0f} s {base} {path}")
        if answer.status_code != 200:
            self.failures.append(f"{answer.status_code} {base} {path} {answer.text[:500]}")
            json = "json" in answer.headers.get("content-type", "")
            if incident := (answer.json() if json else {}).get("incident_id"):
                self.incidents.append(incident)
            return None
        receipt: dict[str, Any] = answer.json()["retrieval"]
        return receipt

    async def settle(self, bases: Sequence[str], path: str, index: int) -> None:
        """Send one new mutation to every live instance at once, then replay until settled."""
        mutation_id = str(uuid.uuid4())
        live = [base for base in bases if base not in self.down]
        firsts = await asyncio.gather(*(self.post(base, path, mutation_id) for base in live))
        ids = {receipt["id"] for receipt in firsts if receipt}
        turn, deadline = index, time.monotonic() + SETTLE_SECONDS
        while time.monotonic() < deadline:
            base = bases[turn % len(bases)]
            turn += 1
            if base in self.down:
                continue
            receipt = await self.post(base, path, mutation_id)
            if receipt is None:
                await asyncio.sleep(0.2)
                continue
            ids.add(receipt["id"])
            if receipt["state"] in SETTLED:
                self.states[receipt["state"]] += 1
                self.receipts[path] = receipt
                break
        else:
            self.failures.append(f"never settled {path}")
        if len(ids) > 1:
            self.failures.append(f"{len(ids)} receipts for one mutation of {path}")

    async def run(self, bases: Sequence[str], paths: Sequence[str], clients: int) -> None:
        """`clients` concurrent clients share `paths`, one new mutation each."""
        queue: asyncio.Queue[tuple[int, str]] = asyncio.Queue()
        for item in enumerate(paths):
            queue.put_nowait(item)

        async def client() -> None:
            while not queue.empty():
                index, path = queue.get_nowait()
                await self.settle(bases, path, index)

        await asyncio.gather(*(client() for _ in range(clients)))


def client(token: str) -> httpx.AsyncClient:
    """One client for every simulated caller; each call on a connection of its own.

    Without keep-alive no request is ever sent on a connection the server is closing as
    idle (a transport failure no server can prevent), so any transport error from a live
    instance is the server's.
    """
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    return httpx.AsyncClient(
        timeout=SETTLE_SECONDS, limits=limits, headers={"Authorization": f"Bearer {token}"}
    )


def logged_trouble(logs: Sequence[Path], incidents: Sequence[str]) -> list[str]:
    """Server log lines naming one of `incidents`, any error, or a store fault."""
    found = []
    for log in logs:
        for line in log.read_text(errors="replace").splitlines():
            if (
                any(incident in line for incident in incidents)
                or "level=error" in line
                or "database unavailable" in line
            ):
                found.append(f"{log.name}: {line[:4000]}")
    return found
