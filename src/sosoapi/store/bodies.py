"""How capture bodies are stored: packed once when a capture is built, inflated on read."""

from __future__ import annotations

import hashlib
import threading
import zlib
from dataclasses import dataclass

import zstandard

# How capture bodies are stored: zstandard at level 3 (on 60 dev-set pages, 0.28 ms a page
# and 0.197 of the size, where zlib at level 6 took 1.51 ms for 0.194); blobs written as
# zlib by the first version still read.
BODY_CODEC = "zstd"
# A compressor is one zstd context, not safe to share: two threads compressing with one
# at once (it releases the interpreter) corrupt each other's frames and can crash the
# process. Bodies are packed in parse threads and store threads, so each thread has its own.
_PACKERS = threading.local()


def pack_body(body: bytes) -> bytes:
    packer = getattr(_PACKERS, "packer", None)
    if packer is None:
        packer = _PACKERS.packer = zstandard.ZstdCompressor(level=3)
    return packer.compress(body)


@dataclass(frozen=True, slots=True)
class PackedBody:
    """A capture body's digest and stored form. Packing a page costs about 0.9 ms (zstd
    and SHA-256 of 154 KB), so a page's is made in the parse worker that reads the same
    bytes (research/retrieval/reading.py), off the server process, not on its event loop."""

    sha256: str
    packed: bytes

    @classmethod
    def of(cls, body: bytes) -> PackedBody:
        return cls(hashlib.sha256(body).hexdigest(), pack_body(body))


def inflate_body(codec: str, data: bytes) -> bytes:
    """A stored blob's bytes as they arrived, whatever codec the version that wrote it used."""
    if codec == BODY_CODEC:
        return zstandard.ZstdDecompressor().decompress(data)
    if codec == "zlib":  # blobs written before zstandard
        return zlib.decompress(data)
    raise ValueError(f"capture blob codec {codec!r} is unknown to this version")
