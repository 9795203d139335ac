"""Reading a WACZ package back the way an archive user would, checking what it claims."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

from warcio.archiveiterator import ArchiveIterator

WACZ = Path(sys.executable).with_name("wacz")


def validate(path: Path) -> subprocess.CompletedProcess[str]:
    """`wacz validate`, the format's own checker (frictionless, hashes, layout)."""
    return subprocess.run(
        [str(WACZ), "validate", "-f", str(path)], capture_output=True, text=True, timeout=120
    )


def records(package: zipfile.ZipFile) -> list[dict[str, Any]]:
    """Every WARC record: type, URI, IP, payload digest (SHA-256 of the body read back)."""
    read: list[dict[str, Any]] = []
    with package.open("archive/data.warc.gz") as stream:
        for record in ArchiveIterator(stream):
            body = record.raw_stream.read()  # as archived: no content decoding
            read.append(
                {
                    "type": record.rec_type,
                    "uri": record.rec_headers.get_header("WARC-Target-URI"),
                    "ip": record.rec_headers.get_header("WARC-IP-Address"),
                    "sha256": hashlib.sha256(body).hexdigest(),
                    "status": record.http_headers.get_statuscode() if record.http_headers else None,
                    "warc_digest": record.rec_headers.get_header("WARC-Payload-Digest"),
                }
            )
    return read


def fixity(package: zipfile.ZipFile) -> dict[str, Any]:
    """datapackage.json, after checking every listed file's SHA-256 and size, and the digest."""
    raw = package.read("datapackage.json")
    digest = json.loads(package.read("datapackage-digest.json"))
    assert digest["hash"] == "sha256:" + hashlib.sha256(raw).hexdigest()
    datapackage: dict[str, Any] = json.loads(raw)
    for resource in datapackage["resources"]:
        data = package.read(resource["path"])
        assert resource["hash"] == "sha256:" + hashlib.sha256(data).hexdigest(), resource["path"]
        assert resource["bytes"] == len(data)
    listed = {r["path"] for r in datapackage["resources"]}
    assert listed | {"datapackage.json", "datapackage-digest.json"} == set(package.namelist())
    return datapackage


def cdxj(package: zipfile.ZipFile) -> list[str]:
    """The CDXJ lines of the compressed index, block by block as index.idx points."""
    blocks = package.read("indexes/index.cdx.gz")
    lines: list[str] = []
    for line in package.read("indexes/index.idx").decode().splitlines()[1:]:
        where = json.loads("{" + line.split(" {", 1)[1])
        block = blocks[where["offset"] : where["offset"] + where["length"]]
        lines.extend(gzip.decompress(block).decode().splitlines())
    return lines


def jsonl(package: zipfile.ZipFile, path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in io.TextIOWrapper(package.open(path), "utf-8")]
