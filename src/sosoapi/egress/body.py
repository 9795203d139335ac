"""Bounded body reading: raw and decoded bytes are counted as they are produced.

We ask for `Accept-Encoding: identity`, but an origin may still compress. Each content
coding is inflated by a stage that never yields more than it is asked for (zlib's
`max_length`, brotli's `output_buffer_limit`), so a 1 GiB bomb costs one output cap of
memory, not 1 GiB. Stacked codings ("gzip, gzip") are decoded stage by stage under the
same rule.
"""

from __future__ import annotations

import zlib
from typing import Protocol

from sosoapi.contract.errors import SosoapiError
from sosoapi.egress.types import Sink

_STEP = 64 * 1024  # the most one stage hands to the next in one pull


class UnsupportedEncoding(SosoapiError, ValueError):
    """A Content-Encoding we cannot inflate within bounds."""


class DecodingFailed(SosoapiError, ValueError):
    """The body is not valid under its declared Content-Encoding."""


class _Stage(Protocol):
    def push(self, data: bytes) -> None: ...

    def pull(self, limit: int) -> bytes:
        """Up to about `limit` decoded bytes; b"" when it needs more input."""
        ...


class _ZlibStage:
    """gzip (with concatenated members) or deflate (zlib-wrapped or raw)."""

    def __init__(self, coding: str) -> None:
        self._coding = coding
        self._pending = b""
        self._inflater: zlib._Decompress | None = None

    def push(self, data: bytes) -> None:
        self._pending += data

    def pull(self, limit: int) -> bytes:
        while self._pending:
            if self._inflater is None:
                if self._coding == "deflate" and len(self._pending) < 2:
                    return b""
                self._inflater = zlib.decompressobj(self._wbits())
            try:
                out = self._inflater.decompress(self._pending, max(1, limit))
            except zlib.error as exc:
                raise DecodingFailed(f"{self._coding} body is corrupt: {exc}") from None
            stalled = not out and self._inflater.unconsumed_tail == self._pending
            self._pending = self._inflater.unconsumed_tail
            if self._inflater.eof:
                self._pending = self._next_member(self._inflater.unused_data)
                self._inflater = None
            if out:
                return out
            if stalled:
                raise DecodingFailed(f"{self._coding} decoder made no progress")
        return b""

    def _next_member(self, unused: bytes) -> bytes:
        """Concatenated gzip members continue the body; trailing junk is ignored, as browsers do."""
        return unused if self._coding == "gzip" and unused.startswith(b"\x1f\x8b") else b""

    def _wbits(self) -> int:
        if self._coding == "gzip":
            return 16 + zlib.MAX_WBITS
        first, second = self._pending[0], self._pending[1]
        is_zlib = first & 0x0F == 8 and (first << 8 | second) % 31 == 0
        return zlib.MAX_WBITS if is_zlib else -zlib.MAX_WBITS


class _BrotliStage:
    def __init__(self) -> None:
        try:
            import brotli  # type: ignore[import-untyped]  # no stubs or py.typed
        except ImportError:
            raise UnsupportedEncoding("br (brotli is not installed)") from None
        self._error = brotli.error
        self._decoder = brotli.Decompressor()
        self._pending = b""

    def push(self, data: bytes) -> None:
        self._pending += data

    def pull(self, limit: int) -> bytes:
        data, self._pending = self._pending, b""
        if not data and self._decoder.is_finished():
            return b""
        try:
            out: bytes = self._decoder.process(data, output_buffer_limit=max(1, limit))
            return out
        except self._error as exc:
            raise DecodingFailed(f"br body is corrupt: {exc}") from None


def _stage(coding: str) -> _Stage:
    if coding in ("gzip", "x-gzip"):
        return _ZlibStage("gzip")
    if coding == "deflate":
        return _ZlibStage("deflate")
    if coding == "br":
        return _BrotliStage()
    raise UnsupportedEncoding(coding)


class BoundedBody:
    """Collect at most `cap` decoded bytes; `truncated` once the source had more. With a
    `sink` the decoded bytes are written there instead, and nothing is kept in memory."""

    def __init__(self, content_encoding: str | None, cap: int, sink: Sink | None = None) -> None:
        codings = [c.strip().lower() for c in (content_encoding or "").split(",")]
        codings = [c for c in codings if c and c != "identity"]
        if len(codings) > 3:
            raise UnsupportedEncoding(content_encoding or "")
        self._stages = [_stage(c) for c in reversed(codings)]
        self._cap = cap
        self._raw = 0
        self._buffer = bytearray()
        self._raw_buffer = bytearray()
        self._sink = sink
        self._kept = 0
        self._body: bytes | None = None  # `body`, made once until more is kept
        self.truncated = False

    @property
    def body(self) -> bytes:
        if self._body is None:
            self._body = bytes(self._buffer)
        return self._body

    @property
    def raw_body(self) -> bytes:
        """The bytes as received (before content decoding), at most the cap: with no
        coding, the very object `body` is (a page's capture and its read share it, so it
        is neither copied nor sent to the parse worker twice)."""
        return bytes(self._raw_buffer) if self._stages else self.body

    @property
    def raw_bytes(self) -> int:
        return self._raw

    def feed(self, chunk: bytes) -> bool:
        """Take one raw chunk; return True when the cap is reached and reading should stop."""
        self._raw += len(chunk)
        if self._stages and self._sink is None:  # identity: its own raw form, not kept twice
            self._raw_buffer += chunk[: max(0, self._cap - len(self._raw_buffer))]
        if not self._stages:
            self._keep(chunk)
        else:
            self._stages[0].push(chunk)
            self._drain()
        if self._raw > self._cap:
            self.truncated = True
        return self.truncated

    def _drain(self) -> None:
        while not self.truncated:
            out = self._pull(len(self._stages) - 1, self._cap + 1 - self._kept)
            if not out:
                return
            self._keep(out)

    def _pull(self, index: int, limit: int) -> bytes:
        stage = self._stages[index]
        while True:
            out = stage.pull(min(limit, _STEP))
            if out or index == 0:
                return out
            upstream = self._pull(index - 1, _STEP)
            if not upstream:
                return b""
            stage.push(upstream)

    def _keep(self, data: bytes) -> None:
        room = self._cap - self._kept
        if len(data) > room:
            self.truncated = True
            data = data[:room]
        self._kept += len(data)
        if self._sink is None:
            self._buffer += data
            self._body = None
        elif data:
            self._sink.write(data)
