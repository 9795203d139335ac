"""The TLS context every egress connection verifies with."""

from __future__ import annotations

import functools
import os
import ssl

import certifi


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
