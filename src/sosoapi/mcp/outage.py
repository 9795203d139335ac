"""/mcp's door during a store outage: sessions ride it out, tool calls answer `isError`.

The SDK verifies the bearer token on every /mcp request. While the database is down no
token can be checked, and a 401 would tell a client its token is bad. A token this
instance verified within the last few minutes is admitted at the door on that earlier
verdict; the tool call behind it authenticates again and answers `isError` naming the
outage. A token not seen recently gets the outage's message (an HTTP 400 from the SDK's
authentication middleware), never a 401.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict

from mcp.server.auth.provider import AccessToken
from starlette.authentication import AuthenticationError

from sosoapi.contract.errors import ServiceError

REMEMBER_SECONDS = 300.0
REMEMBER_AT_MOST = 10_000


def _key(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class RecentTokens:
    """Verdicts of the last few minutes, keyed by the token's hash, bounded in number."""

    def __init__(self) -> None:
        self._seen: OrderedDict[str, tuple[float, AccessToken]] = OrderedDict()

    def remember(self, access: AccessToken) -> None:
        key = _key(access.token)
        self._seen.pop(key, None)
        self._seen[key] = (time.monotonic(), access)
        while len(self._seen) > REMEMBER_AT_MOST:
            self._seen.popitem(last=False)

    def during_outage(self, token: str, error: ServiceError) -> AccessToken:
        """The recent verdict on `token`, else the outage's message to the caller."""
        seen = self._seen.get(_key(token))
        if seen is not None and time.monotonic() - seen[0] <= REMEMBER_SECONDS:
            return seen[1]
        raise AuthenticationError(error.message)
