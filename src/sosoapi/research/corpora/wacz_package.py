"""The WACZ's ZIP, made from the parts `wacz.py` spooled, chunk by chunk as it is read.

zipfile writes to a sink with no `tell` or `seek` (`_Drain`), so it makes a streaming ZIP
(sizes in data descriptors) in one pass; each step copies one chunk of a part and hands
its bytes on. Nothing is spooled a second time: the scratch stays the parts' size.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Protocol

from sosoapi import __version__
from sosoapi.contract.projects import Snapshot
from sosoapi.research.corpora.citations import iso

WACZ_VERSION = "1.1.1"
WARC_NAME = "data.warc.gz"
CHUNK = 1 << 16


@dataclass
class Counts:
    revisions: int = 0
    captures: int = 0
    records: int = 0
    revisits: int = 0
    seen: dict[str, tuple[str, str]] = field(default_factory=dict)  # sha256 -> (uri, date)


@dataclass(frozen=True, slots=True)
class ExportSummary:
    revisions: int
    captures: int
    warc_records: int
    revisits: int
    bytes: int


class Package(Protocol):
    """A WACZ ready to be read: built in this process (`WaczPackage`) or in a process of
    its own (`export_process.ProcessPackage`). `close` removes its scratch."""

    counts: Counts

    @property
    def summary(self) -> ExportSummary: ...
    def chunks(self) -> Generator[bytes, None, None]: ...
    def write_to(self, out: IO[bytes]) -> None: ...
    def close(self) -> None: ...


class _Drain:
    """Where the ZIP writer puts its bytes until the reader takes them: no `tell` or
    `seek`, so zipfile writes a streaming ZIP (sizes in data descriptors) in one pass."""

    def __init__(self) -> None:
        self._held = bytearray()

    def write(self, data: bytes) -> int:
        self._held += data
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass

    def take(self) -> bytes:
        taken = bytes(self._held)
        self._held.clear()
        return taken


def _zip_file(
    package: zipfile.ZipFile, source: Path, path: str, stored: bool, into: list[dict[str, Any]]
) -> Iterator[None]:
    """Copy one part into the package in chunks, pausing after each; its datapackage
    resource is appended to `into` once it is whole."""
    info = zipfile.ZipInfo(path, datetime.now(UTC).timetuple()[:6])
    info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    digest, size = hashlib.sha256(), 0
    with open(source, "rb") as reading, package.open(info, "w", force_zip64=True) as writing:
        while chunk := reading.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
            writing.write(chunk)
            yield
    into.append(
        {
            "name": path.rsplit("/", 1)[-1].lower(),
            "path": path,
            "hash": "sha256:" + digest.hexdigest(),
            "bytes": size,
        }
    )


PARTS = (
    (WARC_NAME, "archive/" + WARC_NAME, True),
    ("index.cdx.gz", "indexes/index.cdx.gz", True),
    ("index.idx", "indexes/index.idx", False),
    ("pages.jsonl", "pages/pages.jsonl", False),
    ("corpus.json", "corpus/corpus.json", False),
    ("bibliography.json", "corpus/bibliography.json", False),
    ("bibliography.bib", "corpus/bibliography.bib", False),
)


class WaczPackage:
    """A corpus's parts built in a scratch directory (owned: `close` removes it), made into
    the WACZ's ZIP chunk by chunk as the reader asks."""

    def __init__(
        self, scratch: Path, snapshot: Snapshot, corpus_revision: int, counts: Counts
    ) -> None:
        self.scratch = scratch
        self.snapshot = snapshot
        self.corpus_revision = corpus_revision
        self.counts = counts
        self.written = 0

    @property
    def summary(self) -> ExportSummary:
        c = self.counts
        return ExportSummary(c.revisions, c.captures, c.records, c.revisits, self.written)

    def chunks(self) -> Generator[bytes, None, None]:
        """The package's bytes, at most about `CHUNK` at a time (blocking file reads: run
        each step off the event loop)."""
        drain = _Drain()
        resources: list[dict[str, Any]] = []
        with zipfile.ZipFile(drain, "w", allowZip64=True) as package:
            for source, path, stored in PARTS:
                for _ in _zip_file(package, self.scratch / source, path, stored, resources):
                    if taken := drain.take():
                        yield taken
            self.written = sum(r["bytes"] for r in resources)
            data = json.dumps(self._datapackage(resources), indent=2).encode("utf-8")
            package.writestr("datapackage.json", data, zipfile.ZIP_DEFLATED)
            digest = {
                "path": "datapackage.json",
                "hash": "sha256:" + hashlib.sha256(data).hexdigest(),
            }
            package.writestr("datapackage-digest.json", json.dumps(digest), zipfile.ZIP_DEFLATED)
        yield drain.take()  # the rest, and the central directory

    def _datapackage(self, resources: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "profile": "data-package",
            "resources": resources,
            "title": f"Corpus {self.snapshot.id} revision {self.corpus_revision}",
            "description": "A sealed SosoAPI Research corpus: the captures its evidence "
            "revisions were read from, their extracted text and a bibliography.",
            "created": iso(datetime.now(UTC)),
            "mainPageDate": iso(self.snapshot.sealed_at),
            "wacz_version": WACZ_VERSION,
            "software": f"sosoapi {__version__}",
        }

    def write_to(self, out: IO[bytes]) -> None:
        """The whole package into `out` (blocking)."""
        for chunk in self.chunks():
            out.write(chunk)

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)
