"""`Egress.fetch`: the one way the service reads the network.

Per hop: judge the URL (policy), resolve the host once, check every address, pin the
first, dial only that address (network.PinnedBackend) with TLS verified for the host name,
then map the response to a contract reason or read a bounded body. Redirects are followed
here, each hop judged afresh. Network and policy conditions never raise: they come back as
`FetchOutcome.reason`.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import os
import ssl
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import certifi
import httpcore

from sosoapi.clock import utcnow
from sosoapi.contract.guidance import advice
from sosoapi.contract.numbers import whole_number
from sosoapi.contract.vocabulary import Cause, Reason, State
from sosoapi.egress.body import BoundedBody, DecodingFailed, UnsupportedEncoding
from sosoapi.egress.network import Pin, PinnedBackend, Proxy, UnpinnedDial, pinned
from sosoapi.egress.policy import Refused, address_cause, is_admitted, judge
from sosoapi.egress.politeness import Politeness, Release, Reserve, TurnTooLate
from sosoapi.egress.pools import OriginPools
from sosoapi.egress.resolver import (
    NameNotFound,
    PinnedResolver,
    Resolver,
    ResolverUnavailable,
    SystemResolver,
)
from sosoapi.egress.robots import ACCEPT as ROBOTS_ACCEPT
from sosoapi.egress.robots import Robots
from sosoapi.egress.settings import EgressSettings
from sosoapi.egress.statuses import (
    CHALLENGE_STATUSES,
    ERROR_BODY_MAX,
    ERROR_BODY_SECONDS,
    REDIRECT_STATUSES,
    clamp_retry_after,
    reason_for_status,
)
from sosoapi.egress.types import FetchOutcome, Hop, IPAddress
from sosoapi.egress.urls import Target, join_location
from sosoapi.progress import Step, listening, report
from sosoapi.turns import Keeper, keeper

log = logging.getLogger("sosoapi.egress")


@dataclass
class _Progress:
    """Where a fetch is, so a deadline can be reported honestly."""

    url: str | None = None
    waiting_for_slot: bool = False
    slot_at: float | None = None  # monotonic time of our reserved start to the origin

    def reserved(self, at: float) -> None:
        self.slot_at = at


@dataclass(slots=True)
class _Parking:
    """A read's late turn, as its keeper decides: the fetch's deadline stops while the read
    waits parked, and its turn starts a whole deadline (the wait was not the read's)."""

    keeper: Keeper
    timeout: asyncio.Timeout
    total: float

    @property
    def deadline(self) -> float:
        return self.timeout.when() or float("inf")

    async def park(self, seconds: float) -> bool:
        when = self.timeout.when()
        self.timeout.reschedule(None)  # before asking: the keeper's write must not be cut
        try:
            kept = await self.keeper.park(seconds)
        except BaseException:
            self.timeout.reschedule(when)
            raise
        if not kept:
            self.timeout.reschedule(when)
        return kept

    async def resume(self) -> None:
        await self.keeper.resume()
        self.timeout.reschedule(asyncio.get_running_loop().time() + self.total)


# The parking of the fetch this task runs (its robots.txt fetch included).
_parking: contextvars.ContextVar[_Parking | None] = contextvars.ContextVar(
    "sosoapi_parking", default=None
)


@dataclass(frozen=True, slots=True)
class _Redirect:
    location: str
    hop: Hop


def build_ssl_context(ca_bundle: str | None) -> ssl.SSLContext:
    """System trust + certifi, plus the operator's extra CAs (added, never replacing).

    Loading the trust store costs ~50 ms, so contexts are shared per bundle file version.
    """
    version = os.stat(ca_bundle).st_mtime_ns if ca_bundle else 0
    return _ssl_context(ca_bundle, version)


@functools.lru_cache(maxsize=8)
def _ssl_context(ca_bundle: str | None, version: int) -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.load_verify_locations(certifi.where())
    if ca_bundle:
        context.load_verify_locations(ca_bundle)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


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

    async def fetch(self, url: str, *, accept: Sequence[str]) -> FetchOutcome:
        """Fetch `url` within every bound; never raises for network or policy conditions.

        - `reason` None: a 2xx body was read. `body` is the whole body, or with
          `truncated=True` the first `max_body_bytes` decoded bytes of a larger one (the
          caller decides between partial/`response_too_large` and unavailable). With
          `short_body=True` the origin closed before Content-Length (or the last chunk)
          was sent: `body` is the prefix received and the caller reports `source_partial`.
        - `content_type` is the Content-Type header as sent (None when absent: sniff);
          a 2xx whose media type is outside `accept` is `unsupported_media`.
        - `final_url` is the canonical percent-encoded URL the answer came from (fragment
          dropped); `retrieved_at` is when that response's headers arrived (UTC).
        - More than `max_redirects` redirects: `unavailable`. https -> http: `unsafe_url`.
        """
        progress = _Progress()
        owner = keeper()
        try:
            async with asyncio.timeout(self._settings.total_timeout) as timeout:
                parking = _Parking(owner, timeout, self._settings.total_timeout) if owner else None
                token = _parking.set(parking)
                try:
                    outcome = await self._follow(url, tuple(a.lower() for a in accept), progress)
                finally:
                    _parking.reset(token)
        except TimeoutError:
            if progress.waiting_for_slot:  # politeness or process capacity: retry later
                # Never earlier than the origin's real next start (the one we gave back).
                free_in = (progress.slot_at or 0.0) - time.monotonic()
                retry = clamp_retry_after(max(self._settings.per_origin_min_interval, free_in))
                return FetchOutcome(
                    Reason.RATE_LIMITED, final_url=progress.url, retry_after_seconds=retry
                )
            return FetchOutcome(Reason.TIMEOUT, final_url=progress.url)
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
            return await self._follow(url, ROBOTS_ACCEPT, _Progress(), robots=False)

    async def _follow(
        self, url: str, accept: tuple[str, ...], progress: _Progress, *, robots: bool = True
    ) -> FetchOutcome:
        hops: list[Hop] = []
        for _hop in range(self._settings.max_redirects + 1):
            judged = judge(url, self._settings)
            if isinstance(judged, Refused):
                return FetchOutcome(judged.reason, final_url=progress.url, cause=judged.cause)
            progress.url = judged.url
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
            answer = await self._hop(judged, accept, progress, crawl_delay)
            if isinstance(answer, FetchOutcome):
                return replace(answer, hops=(*hops, *answer.hops)) if hops else answer
            hops.append(answer.hop)
            url = join_location(judged, answer.location)
        return FetchOutcome(
            Reason.UNAVAILABLE, final_url=progress.url, cause=Cause.TOO_MANY_REDIRECTS
        )

    async def _hop(
        self,
        target: Target,
        accept: tuple[str, ...],
        progress: _Progress,
        crawl_delay: float | None = None,
    ) -> FetchOutcome | _Redirect:
        admitted = await self._admit(target)
        if isinstance(admitted, Refused):
            return FetchOutcome(admitted.reason, final_url=target.url, cause=admitted.cause)
        try:
            progress.waiting_for_slot = True
            async with (
                self._politeness.slot(
                    f"{target.host}:{target.port}", crawl_delay, progress.reserved, _parking.get()
                ),
                self._capacity,
            ):
                progress.waiting_for_slot = False
                with pinned(Pin(target.host, target.port, admitted)):
                    return await self._request(target, accept, admitted)
        except TurnTooLate as late:  # the read's owner cannot wait that long for the turn
            retry = clamp_retry_after(late.seconds)
            return FetchOutcome(
                Reason.RATE_LIMITED, final_url=target.url, retry_after_seconds=retry
            )
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
        self, target: Target, accept: tuple[str, ...], ip: IPAddress
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
            hop = _hop_of(target, ip, retrieved_at, headers, response)
            return await self._answer(target, accept, response, hop)

    async def _answer(
        self,
        target: Target,
        accept: tuple[str, ...],
        response: httpcore.Response,
        hop: Hop,
    ) -> FetchOutcome | _Redirect:
        status = response.status
        retrieved_at = hop.at
        header = _header_reader(response.headers)
        location = header("location")
        if status in REDIRECT_STATUSES and location:
            return _Redirect(location, hop)
        common: dict[str, Any] = {
            "final_url": target.url,
            "status_code": status,
            "content_type": header("content-type"),
            "content_language": header("content-language"),
            "retrieved_at": retrieved_at,
            "headers": _all_headers(response.headers),
            "hops": (hop,),
        }
        if not 200 <= status < 300:
            reason, retry_after = reason_for_status(status, header("retry-after"))
            cause = None
            if reason == Reason.UNAVAILABLE:
                cause = Cause.ORIGIN_ERROR if status >= 500 else Cause.ORIGIN_STATUS
            error_page = (
                await _error_body(response, header) if status in CHALLENGE_STATUSES else b""
            )
            return FetchOutcome(
                reason, retry_after_seconds=retry_after, body=error_page, cause=cause, **common
            )
        if not media_accepted(header("content-type"), accept):
            return FetchOutcome(Reason.UNSUPPORTED_MEDIA, **common)
        try:
            body = BoundedBody(header("content-encoding"), self._settings.max_body_bytes)
        except UnsupportedEncoding:
            return FetchOutcome(Reason.UNAVAILABLE, cause=Cause.UNSUPPORTED_ENCODING, **common)
        short = await _read_body(response, body, _content_length(header("content-length")))
        common["hops"] = (replace(hop, body=body.raw_body, body_truncated=body.truncated),)
        return FetchOutcome(
            None, body=body.body, truncated=body.truncated, short_body=short, **common
        )


def _unreported(step: Step) -> None:
    return None


def _hop_of(
    target: Target,
    ip: IPAddress,
    at: datetime,
    sent: list[tuple[bytes, bytes]],
    response: httpcore.Response,
) -> Hop:
    """The exchange as it went over the wire (its body is added once read)."""
    extensions = response.extensions
    return Hop(
        url=target.url,
        ip=str(ip),
        at=at,
        request_headers=tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in sent),
        status=response.status,
        reason_phrase=bytes(extensions.get("reason_phrase", b"")).decode("latin-1"),
        http_version=bytes(extensions.get("http_version", b"HTTP/1.1")).decode("latin-1"),
        response_headers=tuple(
            (k.decode("latin-1"), _decode_header(v)) for k, v in response.headers
        ),
    )


async def _read_body(response: httpcore.Response, body: BoundedBody, declared: int | None) -> bool:
    """Stream into `body` until done or capped; True when the origin sent less than it
    promised (connection closed early against Content-Length or chunked framing)."""
    try:
        async for chunk in response.aiter_stream():
            if body.feed(chunk):
                return False
            report("reading", body.raw_bytes, declared)
    except (httpcore.RemoteProtocolError, httpcore.ReadError):
        return True
    return declared is not None and body.raw_bytes < declared


async def _error_body(response: httpcore.Response, header: Callable[[str], str | None]) -> bytes:
    """The first ERROR_BODY_MAX bytes of an error page, within ERROR_BODY_SECONDS; what
    arrived when the origin stalls, breaks or sends an unreadable coding (never raises)."""
    try:
        body = BoundedBody(header("content-encoding"), ERROR_BODY_MAX)
    except UnsupportedEncoding:
        return b""
    try:
        async with asyncio.timeout(ERROR_BODY_SECONDS):
            await _read_body(response, body, None)
    except (
        TimeoutError,
        DecodingFailed,
        httpcore.TimeoutException,
        httpcore.NetworkError,
        httpcore.ProtocolError,
    ):
        pass
    return body.body


def _all_headers(headers: list[tuple[bytes, bytes]]) -> tuple[tuple[str, str], ...]:
    """Every response header once, lower-case name, repeats joined as `_header_reader` does."""
    read = _header_reader(headers)
    names = dict.fromkeys(k.decode("latin-1").lower() for k, _ in headers)
    return tuple((name, read(name) or "") for name in names)


def _header_reader(headers: list[tuple[bytes, bytes]]) -> Callable[[str], str | None]:
    def read(name: str) -> str | None:
        values = [v for k, v in headers if k.decode("latin-1").lower() == name]
        if not values:
            return None
        return ", ".join(_decode_header(v).strip() for v in values)

    return read


def _decode_header(value: bytes) -> str:
    """UTF-8 as browsers read Location, else Latin-1 (HTTP's historical charset)."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")


def _content_length(value: str | None) -> int | None:
    if value is None:
        return None
    first = value.split(",")[0].strip()
    return whole_number(first)


def media_accepted(content_type: str | None, accept: Sequence[str]) -> bool:
    """True when the response's media type is one the caller can use (or is absent, so
    the caller can sniff). `type/*` and `*/*` in `accept` match as wildcards."""
    if content_type is None:
        return True
    media = content_type.split(";")[0].strip().lower()
    if not media:
        return True
    kind = media.split("/")[0]
    return any(a in (media, "*/*", f"{kind}/*") for a in accept)


def reason_for_error(exc: BaseException) -> Reason | None:
    """The contract reason for a network exception; None for anything else (a bug)."""
    for kinds, reason in ERROR_REASONS:
        if isinstance(exc, kinds):
            return reason(exc) if callable(reason) else reason
    return None


def _connect_failure(exc: BaseException) -> Reason:
    """Certificate failures are unsafe; other TLS failures unavailable; the rest
    (refused, unreachable, reset before TLS) mean we cannot get out: egress_unavailable."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return Reason.UNSAFE_URL
        if isinstance(seen, ssl.SSLError):
            return Reason.UNAVAILABLE
        seen = seen.__cause__ or seen.__context__
    if "CERTIFICATE_VERIFY_FAILED" in str(exc):
        return Reason.UNSAFE_URL
    return Reason.EGRESS_UNAVAILABLE


# OpenSSL's X509_V_ERR_* verify codes, grouped by what a person can do about them.
_SELF_SIGNED = {18, 19}  # DEPTH_ZERO_SELF_SIGNED_CERT, SELF_SIGNED_CERT_IN_CHAIN
_UNTRUSTED = {2, 20, 21}  # UNABLE_TO_GET_ISSUER_CERT(_LOCALLY), UNABLE_TO_VERIFY_LEAF_SIGNATURE
_EXPIRED = {9, 10}  # CERT_NOT_YET_VALID, CERT_HAS_EXPIRED
_NAME_MISMATCH = {62, 64}  # HOSTNAME_MISMATCH, IP_ADDRESS_MISMATCH


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def certificate_cause(error: ssl.SSLCertVerificationError) -> Cause:
    """Which certificate failure OpenSSL reported (its verify code)."""
    code = error.verify_code
    if code in _SELF_SIGNED:
        return Cause.CERTIFICATE_SELF_SIGNED
    if code in _UNTRUSTED:
        return Cause.CERTIFICATE_UNTRUSTED
    if code in _EXPIRED:
        return Cause.CERTIFICATE_EXPIRED
    if code in _NAME_MISMATCH:
        return Cause.CERTIFICATE_NAME_MISMATCH
    return Cause.CERTIFICATE_INVALID


def cause_of_error(exc: BaseException, reason: Reason) -> Cause | None:
    """Which cause of `reason` a network exception was (None: the reason says it all)."""
    for seen in _chain(exc):
        if isinstance(seen, ssl.SSLCertVerificationError):
            return certificate_cause(seen)
        if isinstance(seen, ssl.SSLError) and reason == Reason.UNAVAILABLE:
            return Cause.TLS_HANDSHAKE
    if reason == Reason.UNSAFE_URL and "CERTIFICATE_VERIFY_FAILED" in str(exc):
        return Cause.CERTIFICATE_INVALID
    if reason == Reason.UNAVAILABLE and isinstance(exc, DecodingFailed):
        return Cause.UNSUPPORTED_ENCODING
    if reason == Reason.UNAVAILABLE:
        return Cause.CONNECTION_BROKEN
    return None


def _host_of(url: str) -> str:
    """The host of a URL for the log (never its path or query, which may carry secrets)."""
    return url.split("://", 1)[-1].split("/", 1)[0].split("?", 1)[0].rsplit("@", 1)[-1]


# Foreign exceptions to reasons, first match wins (a subclass before its base).
ERROR_REASONS: tuple[
    tuple[
        type[BaseException] | tuple[type[BaseException], ...],
        Reason | Callable[[BaseException], Reason],
    ],
    ...,
] = (
    (UnpinnedDial, Reason.UNSAFE_URL),
    (httpcore.ProxyError, Reason.EGRESS_UNAVAILABLE),
    ((httpcore.ConnectTimeout, httpcore.TimeoutException), Reason.TIMEOUT),
    (httpcore.ConnectError, _connect_failure),
    ((httpcore.NetworkError, httpcore.ProtocolError, DecodingFailed), Reason.UNAVAILABLE),
    (OSError, Reason.EGRESS_UNAVAILABLE),
)
