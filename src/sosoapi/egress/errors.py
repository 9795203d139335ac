"""Network exceptions to contract reasons and causes: what a failed fetch tells the client.

Kept apart from the gate (gate.py) so the table of foreign exceptions, the TLS failure
rules and OpenSSL's verify codes read in one place; the gate only asks `reason_for_error`
and `cause_of_error`.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable

import httpcore

from sosoapi.contract.vocabulary import Cause, Reason
from sosoapi.egress.body import DecodingFailed
from sosoapi.egress.network import UnpinnedDial


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
