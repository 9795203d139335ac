"""/mcp's door during a store outage: sessions ride it out, tool calls answer `isError`.

Every /mcp request authenticates its bearer token, and while the database is down no token
can be checked. A 401 would tell a client its token is bad (and close its sessions), so a
token this instance verified within the last few minutes passes the door on that earlier
verdict; the tool call behind it authenticates again and answers `isError` naming the
outage. A token not seen recently gets a 503 problem+json naming the outage.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import OrderedDict

from starlette.types import Send

from sosoapi.auth.tokens import Principal
from sosoapi.contract.errors import ServiceError

REMEMBER_SECONDS = 300.0
REMEMBER_AT_MOST = 10_000


def _key(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class RecentTokens:
    """Verdicts of the last few minutes, keyed by the token's hash, bounded in number."""

    def __init__(self) -> None:
        self._seen: OrderedDict[str, tuple[float, Principal]] = OrderedDict()

    def remember(self, token: str, principal: Principal) -> None:
        key = _key(token)
        self._seen.pop(key, None)
        self._seen[key] = (time.monotonic(), principal)
        while len(self._seen) > REMEMBER_AT_MOST:
            self._seen.popitem(last=False)

    def during_outage(self, token: str | None) -> Principal | None:
        """The recent verdict on `token`, if there is one."""
        seen = self._seen.get(_key(token)) if token else None
        if seen is not None and time.monotonic() - seen[0] <= REMEMBER_SECONDS:
            return seen[1]
        return None


async def send_unavailable(send: Send, error: ServiceError, instance: str) -> None:
    """503 problem+json with `Retry-After`: the same body the REST API gives the outage."""
    problem = {
        "type": error.problem_type,
        "title": error.title,
        "status": error.http_status,
        "detail": error.message,
        "instance": instance,
    }
    body = json.dumps(problem).encode()
    headers = [
        (b"content-type", b"application/problem+json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if error.retry_after_seconds is not None:
        headers.append((b"retry-after", str(error.retry_after_seconds).encode()))
    await send({"type": "http.response.start", "status": error.http_status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
