"""`Egress.fetch`: the one way the service reads the network.

Per hop: judge the URL (policy), resolve the host once, check every address, pin the
first, dial only that address (network.PinnedBackend) with TLS verified for the host name,
then map the response to a contract reason or read a bounded body. Redirects are followed
here, each hop judged afresh. Network and policy conditions never raise: they come back as
`FetchOutcome.reason`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import httpcore

from sosoapi.clock import utcnow
from sosoapi.contract.guidance import advice
from sosoapi.contract.vocabulary import Cause, Reason, State
from sosoapi.egress.body import BoundedBody, UnsupportedEncoding
from sosoapi.egress.errors import cause_of_error, reason_for_error
from sosoapi.egress.network import Pin, PinnedBackend, Proxy, pinned
from sosoapi.egress.policy import Refused, address_cause, is_admitted, judge
from sosoapi.egress.politeness import Politeness, Release, Reservation, Reserve, TurnLate
from sosoapi.egress.pools import OriginPools
from sosoapi.egress.resolver import (
    NameNotFound,
    PinnedResolver,
    Resolver,
    ResolverUnavailable,
    SystemResolver,
)
from sosoapi.egress.response import (
    content_length,
    error_body,
    hop_of,
    media_accepted,
    read_body,
)
from sosoapi.egress.robots import ACCEPT as ROBOTS_ACCEPT
from sosoapi.egress.robots import Robots
from sosoapi.egress.settings import EgressSettings
from sosoapi.egress.statuses import (
    CHALLENGE_STATUSES,
    REDIRECT_STATUSES,
    clamp_retry_after,
    reason_for_status,
)
from sosoapi.egress.tls import build_ssl_context
from sosoapi.egress.types import FetchOutcome, Hop, IPAddress, LateTurn, ResponseHeaders, Spool
from sosoapi.egress.urls import Target, join_location
from sosoapi.progress import Step, listening, report

log = logging.getLogger("sosoapi.egress")


@dataclass
class _Whereabouts:
    """Where one fetch is, so a deadline can be reported honestly, and where its body goes;
    `late_after` is its deadline when its caller waits for late turns itself (None: wait
    inside it)."""

    url: str | None = None
    spool: Spool | None = None
    waiting_for_slot: bool = False
    slot_at: float | None = None  # monotonic time of our reserved start to the origin
    late_after: float | None = None

    def reserved(self, at: float) -> None:
        self.slot_at = at


@dataclass(frozen=True, slots=True)
class _Redirect:
    location: str
    hop: Hop


class Egress:
    """The egress gate. One instance per process: it owns the connection pool and the
    per-origin politeness state that all fetches share."""

    def __init__(
        self,
        settings: EgressSettings,
        *,
        resolver: Resolver | None = None,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
        pacing: Reserve | None = None,
        release: Release | None = None,
    ) -> None:
        """`resolver` replaces DNS (pins from settings still come first); `network_backend`
        is the raw dialler under the pinning layer (tests use it to watch every dial);
        `pacing` reserves per-origin starts across instances (the store's pacing table)
        and `release` gives back one whose read gave up waiting."""
        self._settings = settings
        self._resolver = PinnedResolver(settings.resolve, resolver or SystemResolver())
        context = build_ssl_context(settings.ca_bundle)
        proxy = Proxy.from_url(settings.proxy) if settings.proxy else None
        backend = PinnedBackend(network_backend, proxy=proxy, proxy_ssl_context=context)
        self._pools = OriginPools(
            lambda: httpcore.AsyncConnectionPool(
                ssl_context=context,
                network_backend=backend,
                max_connections=max(4, settings.per_origin_concurrency * 2),
                max_keepalive_connections=max(1, settings.per_origin_concurrency),
                keepalive_expiry=30.0,
                http1=True,
                http2=False,
                retries=0,
            )
        )
        self._politeness = Politeness(
            settings.per_origin_concurrency,
            settings.per_origin_min_interval,
            pacing,
            max_crawl_delay=settings.robots_max_crawl_delay,
            release=release,
        )
        self._robots = (
            Robots(
                settings.user_agent,
                self._fetch_robots,
                cache_seconds=settings.robots_cache_seconds,
                error_seconds=settings.robots_error_seconds,
            )
            if settings.robots_txt == "obey"
            else None
        )
        # Bodies in flight cost up to max_body_bytes each (twice that for a compressed body,
        # whose raw bytes are kept for its capture): bound them process-wide.
        self._capacity = asyncio.Semaphore(settings.max_concurrent_fetches)

    async def aclose(self) -> None:
        await self._pools.aclose()

    async def fetch(
        self,
        url: str,
        *,
        accept: Sequence[str],
        late_turns: bool = False,
        spool: Spool | None = None,
    ) -> FetchOutcome:
        """Fetch `url` within every bound; never raises for network or policy conditions.
        With a `spool`, a 2xx body goes to its sink under its bound (`body` stays empty).

        - `reason` None: a 2xx body was read. `body` is the whole body, or with
          `truncated=True` the first `max_body_bytes` decoded bytes of a larger one (the
          caller decides between partial/`response_too_large` and unavailable). With
          `short_body=True` the origin closed before Content-Length (or the last chunk)
          was sent: `body` is the prefix received and the caller reports `source_partial`.
        - `headers` are the final response's, its media type parsed once (None when
          absent: sniff); a 2xx whose media type is outside `accept` is
          `unsupported_media`.
        - `final_url` is the canonical percent-encoded URL the answer came from (fragment
          dropped); `retrieved_at` is when that response's headers arrived (UTC).
        - More than `max_redirects` redirects: `unavailable`. https -> http: `unsafe_url`.
        - With `late_turns`, a hop whose origin's turn comes after the deadline is not
          waited for: `rate_limited` with `late_turn` (types.LateTurn) at once, and the
          caller decides to `resume` it at the turn or `forgo` it.
        """
        return await self._bounded(url, tuple(a.lower() for a in accept), late_turns, None, spool)

    async def resume(self, turn: LateTurn, spool: Spool | None = None) -> FetchOutcome:
        """Go on with a fetch at its late turn: the hop it stopped before, with the start
        it kept and a whole deadline (the wait was not the fetch's)."""
        return await self._bounded(turn.url, turn.accept, True, turn, spool)

    async def forgo(self, turn: LateTurn) -> FetchOutcome:
        """Give a late turn's start back (the read will not wait for it): `rate_limited`,
        retry at the turn."""
        await turn.start.give_back()
        return replace(turn.answer(), late_turn=None)

    async def _bounded(
        self,
        url: str,
        accept: tuple[str, ...],
        late_turns: bool,
        turn: LateTurn | None,
        spool: Spool | None,
    ) -> FetchOutcome:
        """One fetch (or its late turn) inside the total deadline."""
        where = _Whereabouts(spool=spool)
        try:
            async with asyncio.timeout(self._settings.total_timeout) as timeout:
                where.late_after = (timeout.when() or None) if late_turns else None
                outcome = await self._follow(url, accept, where, turn=turn)
        except TimeoutError:
            if where.waiting_for_slot:  # politeness or process capacity: retry later
                # Never earlier than the origin's real next start (the one we gave back).
                free_in = (where.slot_at or 0.0) - time.monotonic()
                retry = clamp_retry_after(max(self._settings.per_origin_min_interval, free_in))
                return FetchOutcome(
                    Reason.RATE_LIMITED, final_url=where.url, retry_after_seconds=retry
                )
            return FetchOutcome(Reason.TIMEOUT, final_url=where.url)
        if outcome.cause is not None:  # an operator sees what failed, not just the reason
            log.warning(
                "fetch failed reason=%s cause=%s host=%s: %s",
                outcome.reason,
                outcome.cause,
                _host_of(outcome.final_url or url),
                advice(outcome.reason, State.COMPLETED, cause=outcome.cause),
            )
        return outcome

    async def _fetch_robots(self, url: str) -> FetchOutcome:
        """robots.txt through this same gate, inside the asking fetch's deadline; its own
        connection and bytes are not the source's, so they are not reported as progress."""
        with listening(_unreported):
            return await self._follow(url, ROBOTS_ACCEPT, _Whereabouts(), robots=False)

    async def _follow(
        self,
        url: str,
        accept: tuple[str, ...],
        where: _Whereabouts,
        *,
        robots: bool = True,
        turn: LateTurn | None = None,
    ) -> FetchOutcome:
        """The hops of one fetch; a late `turn` goes on from the hop it stopped before."""
        hops: list[Hop] = list(turn.hops) if turn else []
        start = turn.start if turn else None
        for _hop in range(len(hops), self._settings.max_redirects + 1):
            judged = judge(url, self._settings)
            if isinstance(judged, Refused):
                return FetchOutcome(judged.reason, final_url=where.url, cause=judged.cause)
            where.url = judged.url
            crawl_delay = None
            if robots and self._robots is not None:
                report("robots")
                verdict = await self._robots.verdict(f"https://{judged.authority}", judged.url)
                if not verdict.allowed:
                    if verdict.failure is None:
                        log.info("fetch refused robots_txt=disallow agent=%s", self._robots.agent)
                    return FetchOutcome(
                        verdict.failure or Reason.ACCESS_DENIED,
                        final_url=judged.url,
                        robots_disallowed=verdict.failure is None,
                        cause=verdict.cause,
                    )
                crawl_delay = verdict.crawl_delay
            report("connecting")
            answer = await self._hop(judged, accept, where, crawl_delay, start)
            start = None
            if isinstance(answer, FetchOutcome) and answer.late_turn is not None:
                return replace(answer.late_turn, hops=tuple(hops)).answer()
            if isinstance(answer, FetchOutcome):
                return replace(answer, hops=(*hops, *answer.hops)) if hops else answer
            hops.append(answer.hop)
            url = join_location(judged, answer.location)
        return FetchOutcome(Reason.UNAVAILABLE, final_url=where.url, cause=Cause.TOO_MANY_REDIRECTS)

    async def _hop(
        self,
        target: Target,
        accept: tuple[str, ...],
        where: _Whereabouts,
        crawl_delay: float | None = None,
        start: Reservation | None = None,
    ) -> FetchOutcome | _Redirect:
        """One hop; `start` is the origin's start a late turn kept for it."""
        admitted = await self._admit(target)
        if isinstance(admitted, Refused):
            return FetchOutcome(admitted.reason, final_url=target.url, cause=admitted.cause)
        origin = f"{target.host}:{target.port}"
        try:
            where.waiting_for_slot = True
            async with (
                self._politeness.slot(
                    origin, crawl_delay, where.reserved, late_after=where.late_after, reserved=start
                ),
                self._capacity,
            ):
                where.waiting_for_slot = False
                with pinned(Pin(target.host, target.port, admitted)):
                    return await self._request(target, accept, admitted, where.spool)
        except TurnLate as late:  # the caller decides whether the read waits that long
            return LateTurn(target.url, accept, late.start).answer()
        except Exception as exc:
            reason = reason_for_error(exc)
            if reason is None:
                raise
            return FetchOutcome(reason, final_url=target.url, cause=cause_of_error(exc, reason))

    async def _admit(self, target: Target) -> IPAddress | Refused:
        """The checked address to dial, or why there is none."""
        if target.ip is not None:
            return target.ip
        try:
            addresses = await self._resolver.resolve(target.host, target.port)
        except NameNotFound:
            return Refused(Reason.NOT_FOUND)
        except (ResolverUnavailable, OSError):
            return Refused(Reason.EGRESS_UNAVAILABLE)
        if not addresses:
            return Refused(Reason.NOT_FOUND)
        refused = [ip for ip in addresses if not is_admitted(ip, target.port, self._settings)]
        if refused:
            return Refused(Reason.UNSAFE_URL, address_cause(refused[0]))
        return addresses[0]

    async def _request(
        self, target: Target, accept: tuple[str, ...], ip: IPAddress, spool: Spool | None
    ) -> FetchOutcome | _Redirect:
        settings = self._settings
        url = httpcore.URL(
            scheme=b"https",
            host=target.host.encode("ascii"),
            port=target.port,
            target=target.request_target.encode("ascii"),
        )
        headers = [
            (b"Host", target.authority.encode("ascii")),
            (b"User-Agent", settings.user_agent.encode("ascii", "replace")),
            (b"Accept", ", ".join(accept).encode("ascii", "replace") or b"*/*"),
            (b"Accept-Encoding", b"identity"),
        ]
        timeouts = {
            "connect": settings.connect_timeout,
            "read": settings.read_timeout,
            "write": settings.read_timeout,
            "pool": settings.total_timeout,
        }
        async with self._pools.stream(
            (target.host, target.port),
            "GET",
            url,
            headers=headers,
            extensions={"timeout": timeouts},
        ) as response:
            retrieved_at = utcnow()
            hop = hop_of(target, ip, retrieved_at, headers, response)
            return await self._answer(target, accept, response, hop, spool)

    async def _answer(
        self,
        target: Target,
        accept: tuple[str, ...],
        response: httpcore.Response,
        hop: Hop,
        spool: Spool | None,
    ) -> FetchOutcome | _Redirect:
        status = response.status
        retrieved_at = hop.at
        headers = ResponseHeaders.of((name, value.strip()) for name, value in hop.response_headers)
        header = headers.get
        location = header("location")
        if status in REDIRECT_STATUSES and location:
            return _Redirect(location, hop)
        common: dict[str, Any] = {
            "final_url": target.url,
            "status_code": status,
            "retrieved_at": retrieved_at,
            "headers": headers,
            "hops": (hop,),
        }
        if not 200 <= status < 300:
            reason, retry_after = reason_for_status(status, header("retry-after"))
            cause = None
            if reason == Reason.UNAVAILABLE:
                cause = Cause.ORIGIN_ERROR if status >= 500 else Cause.ORIGIN_STATUS
            error_page = await error_body(response, header) if status in CHALLENGE_STATUSES else b""
            return FetchOutcome(
                reason, retry_after_seconds=retry_after, body=error_page, cause=cause, **common
            )
        if not media_accepted(headers.media_type, accept):
            return FetchOutcome(Reason.UNSUPPORTED_MEDIA, **common)
        try:
            cap = spool.max_bytes if spool else self._settings.max_body_bytes
            body = BoundedBody(header("content-encoding"), cap, spool.sink if spool else None)
        except UnsupportedEncoding:
            return FetchOutcome(Reason.UNAVAILABLE, cause=Cause.UNSUPPORTED_ENCODING, **common)
        short = await read_body(response, body, content_length(header("content-length")))
        common["hops"] = (replace(hop, body=body.raw_body, body_truncated=body.truncated),)
        return FetchOutcome(
            None, body=body.body, truncated=body.truncated, short_body=short, **common
        )


def _unreported(step: Step) -> None:
    return None


def _host_of(url: str) -> str:
    """The host of a URL for the log (never its path or query, which may carry secrets)."""
    return url.split("://", 1)[-1].split("/", 1)[0].split("?", 1)[0].rsplit("@", 1)[-1]
