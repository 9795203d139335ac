"""robots.txt by RFC 9309 for our user agent, cached per origin.

The rules are fetched through the egress gate itself (same URL policy, pinning, redirects
and body bound) and parsed by `protego`. What a fetch answer means (RFC 9309 2.3.1):

- 2xx: the file's rules; a body beyond 512 KiB is parsed up to that point (2.5);
- 4xx (unavailable): no rules, everything allowed (a 429 counts as a server error, below);
- 5xx or 429 (unreachable): everything disallowed, for `robots_error_seconds`;
- redirects: followed like any fetch (at most `max_redirects`, each hop judged);
- no answer at all (timeout, DNS, egress down, unsafe address): the page is not fetched
  and its outcome is that failure, since the page's origin is the one that failed.

Rules are kept per origin (scheme, host, port) for `robots_cache_seconds` (RFC 9309
allows 24 h); one fetch per origin at a time, however many requests wait on it.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from protego import Protego

from sosoapi.contract.vocabulary import Cause, Reason
from sosoapi.egress.types import FetchOutcome

PARSE_LIMIT = 512 * 1024
CACHE_ORIGINS = 4096
ACCEPT = ("text/plain", "*/*")


@dataclass(frozen=True, slots=True)
class RobotsVerdict:
    """May the URL be fetched; if not, `failure` is a fetch failure reason or None
    (None: robots.txt disallows it) with its `cause`; `crawl_delay` in seconds when the
    file gives one."""

    allowed: bool
    crawl_delay: float | None = None
    failure: Reason | None = None
    cause: Cause | None = None


@dataclass(frozen=True, slots=True)
class _Rules:
    parser: Protego | None  # None with allow_all / disallow_all
    allow_all: bool
    expires: float


Fetcher = Callable[[str], Awaitable[FetchOutcome]]


class Robots:
    """The robots.txt rules of every origin this process reads, fetched on first need."""

    def __init__(
        self,
        user_agent: str,
        fetch: Fetcher,
        *,
        cache_seconds: float,
        error_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._agent = user_agent.split("/", 1)[0].strip()  # the product token
        self._fetch = fetch
        self._cache_seconds = cache_seconds
        self._error_seconds = error_seconds
        self._clock = clock
        self._rules: OrderedDict[str, _Rules] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}

    @property
    def agent(self) -> str:
        return self._agent

    async def verdict(self, origin: str, url: str) -> RobotsVerdict:
        """The verdict for `url` on `origin` (`https://host[:port]`)."""
        rules = await self._rules_for(origin)
        if isinstance(rules, FetchOutcome):
            return RobotsVerdict(False, failure=rules.reason, cause=rules.cause)
        if rules.parser is None:
            return RobotsVerdict(rules.allow_all)
        allowed = rules.parser.can_fetch(url, self._agent)
        delay = rules.parser.crawl_delay(self._agent)
        return RobotsVerdict(bool(allowed), float(delay) if delay else None)

    async def _rules_for(self, origin: str) -> _Rules | FetchOutcome:
        fresh = self._fresh(origin)
        if fresh is not None:
            return fresh
        lock = self._locks.setdefault(origin, asyncio.Lock())
        try:
            async with lock:  # one fetch per origin; the others wait for its rules
                return self._fresh(origin) or await self._load(origin)
        finally:
            if not lock.locked():
                self._locks.pop(origin, None)

    def _fresh(self, origin: str) -> _Rules | None:
        cached = self._rules.get(origin)
        if cached is None or cached.expires <= self._clock():
            return None
        self._rules.move_to_end(origin)
        return cached

    async def _load(self, origin: str) -> _Rules | FetchOutcome:
        answer = await self._fetch(f"{origin}/robots.txt")
        rules = self._judge(answer)
        if isinstance(rules, _Rules):
            self._remember(origin, rules)
        return rules

    def _judge(self, answer: FetchOutcome) -> _Rules | FetchOutcome:
        """The rules, or the failed answer when robots.txt could not be read at all."""
        now = self._clock()
        code = answer.status_code
        if answer.reason is None:
            text = answer.body[:PARSE_LIMIT].decode("utf-8", "replace")
            return _Rules(Protego.parse(text), True, now + self._cache_seconds)
        if code is not None and 400 <= code < 500 and code != 429:
            return _Rules(None, True, now + self._cache_seconds)
        if code is not None:  # 5xx, 429: unreachable, complete disallow for a while
            return _Rules(None, False, now + self._error_seconds)
        return answer

    def _remember(self, origin: str, rules: _Rules) -> None:
        self._rules[origin] = rules
        self._rules.move_to_end(origin)
        while len(self._rules) > CACHE_ORIGINS:
            self._rules.popitem(last=False)
