"""WACZ export of a 500-revision corpus: time and peak RSS, bounded memory, both stores.

Seeds 500 evidence revisions, each with one captured response of `--body-kib` KiB of
poorly compressible bytes (so the archive is about 500 x that), seals them into a corpus,
then runs `sosoapi corpora export` as a fresh process and reads its peak RSS
(`ru_maxrss` of the finished child). The floor is `sosoapi corpora get` of the same corpus
in a fresh process: same imports, same start-up, no export. Memory is bounded when the
export's peak stays near the floor however large the archive is.

    .venv/bin/python bench/export.py [--body-kib 256] [--postgres URL]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import zipfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from corpora import ITEMS  # noqa: E402
from sosoapi.application import Application  # noqa: E402
from sosoapi.config import Settings  # noqa: E402
from sosoapi.research.evidence.identity import canonical_json, sha256_hex  # noqa: E402
from sosoapi.store.evidence_repo import record_revision  # noqa: E402
from sosoapi.store.records import CaptureWrite, EvidenceWrite  # noqa: E402
from sosoapi.store.settings import sqlite_url  # noqa: E402
from sosoapi.testing.postgres import private_schema  # noqa: E402

SOSOAPI = Path(sys.executable).with_name("sosoapi")


def body(i: int, size: int) -> bytes:
    """An HTML page of `size` bytes that zlib barely shrinks (random words)."""
    rng = random.Random(i)
    words = [rng.randbytes(6).hex() for _ in range(size // 13 + 1)]
    page = f"<html><head><title>Page {i}</title></head><body><p>{' '.join(words)}</p>"
    return page.encode()[:size]


def seed_revisions(app: Application, size: int) -> tuple[str, list[str]]:
    """(token, evidence ids) of 500 revisions with one capture each."""
    from sosoapi.auth.admin import Admin

    now = datetime.now(UTC)
    workspace, minted = Admin(app.store.auth).init_local(now)
    ids = []
    for i in range(ITEMS):
        url = f"https://bench.example/{i}"
        raw = body(i, size)
        content = canonical_json(
            {
                "kind": "url_text",
                "text": f"evidence {i}",
                "title": f"Page {i}",
                "provenance": {"source_url": url, "retrieved_at": now.isoformat()},
            }
        )
        meta = canonical_json(
            {
                "request": {"method": "GET", "url": url, "headers": [["Host", "bench.example"]]},
                "credentials": "none",
                "response": {
                    "http_version": "HTTP/1.1",
                    "status": 200,
                    "reason": "OK",
                    "headers": [["Content-Type", "text/html"], ["Content-Length", str(len(raw))]],
                    "body_truncated": False,
                },
            }
        )
        capture = CaptureWrite("response", url, now, "192.0.2.1", 200, meta, raw)
        item = EvidenceWrite(
            workspace.id, sha256_hex(url), "url_text", url, "en", sha256_hex(content), content,
            captures=(capture,),
        )  # fmt: skip
        with app.store.db.write() as conn:
            ids.append(record_revision(app.store.db, conn, item, now)[0])
    return minted.token, ids


def seal(env: dict[str, str], ids: list[str]) -> str:
    def run(*args: str) -> dict:
        done = subprocess.run([SOSOAPI, *args, "--json"], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        parsed: dict = json.loads(done.stdout)
        return parsed

    project = run("projects", "create", "bench")["project"]["id"]
    run("projects", "add-sources", project, *[f"--evidence={e}" for e in ids])
    corpus: str = run("corpora", "seal", project)["snapshot"]["id"]
    return corpus


def measured(env: dict[str, str], *args: str) -> tuple[float, float]:
    """(seconds, peak RSS MiB) of one fresh `sosoapi` process."""
    code = (
        "import resource, subprocess, sys, time; t = time.perf_counter(); "
        "done = subprocess.run(sys.argv[1:], capture_output=True); "
        "assert done.returncode == 0, done.stderr; "
        "print(time.perf_counter() - t, "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(SOSOAPI), *args], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    seconds, rss = out.stdout.split()
    return float(seconds), float(rss)


def run_store(label: str, env: dict[str, str], size: int, home: Path) -> list[tuple]:
    app = Application(Settings.from_env(env))
    token, ids = seed_revisions(app, size)
    app.store.close()
    env = {**env, "SOSOAPI_TOKEN": token}
    corpus = seal(env, ids)
    target = home / f"{label}.wacz"
    floor_s, floor_rss = measured(env, "corpora", "get", corpus)
    export_s, export_rss = measured(env, "corpora", "export", corpus, "-o", str(target))
    with zipfile.ZipFile(target) as package:
        warc = package.getinfo("archive/data.warc.gz").file_size
    return [
        (label, "corpora get (floor)", f"{floor_s:.2f}", f"{floor_rss:.1f}", "", ""),
        (
            label,
            f"corpora export ({ITEMS} revisions)",
            f"{export_s:.2f}",
            f"{export_rss:.1f}",
            f"{export_rss - floor_rss:+.1f}",
            f"{target.stat().st_size / 2**20:.1f} (WARC {warc / 2**20:.1f})",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--body-kib", type=int, default=256)
    parser.add_argument("--postgres", default=os.environ.get("SOSOAPI_TEST_POSTGRES_URL"))
    options = parser.parse_args()
    size = options.body_kib * 1024
    rows: list[tuple] = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        base = {**os.environ, "SOSOAPI_HOME": str(home / "sqlite"), "SOSOAPI_LOG_LEVEL": "WARNING"}
        base["SOSOAPI_DATABASE_URL"] = sqlite_url(home / "sqlite")
        rows += run_store("sqlite", base, size, home)
        if options.postgres:
            with private_schema(options.postgres) as url:
                env = {**base, "SOSOAPI_HOME": str(home / "pg"), "SOSOAPI_DATABASE_URL": url}
                rows += run_store("postgres", env, size, home)
    head = ("store", "command", "seconds", "peak RSS MiB", "vs floor MiB", "package MiB")
    print(" | ".join(head))
    for row in rows:
        print(" | ".join(row))


if __name__ == "__main__":
    main()
