"""A throwaway PostgreSQL cluster of the test's own, to stop and start under load.

Never the shared server: `initdb` into a temporary directory, a free loopback port and a
private socket directory. As root, the cluster runs as the `postgres` user (initdb
refuses root). `initdb --no-sync`: nothing outlives the cluster, so its files need not
reach the disk before it starts (half of initdb's seconds).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from sosoapi.testing.processes import free_port


def _bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise RuntimeError(f"{name} not found under /usr/lib/postgresql/*/bin")
    return found[-1]


MEMORY = Path("/dev/shm")  # noqa: S108 (a tmpfs on Linux; mkdtemp makes a private 0700 dir)


class ThrowawayCluster:
    """`settings` are server settings (`max_connections`, say) passed to every start.

    `in_memory` keeps the data directory on /dev/shm (when there is one): a test's cluster
    is made and removed in a fraction of the time (removing it from an ext4 disk mounted
    with `discard` took seconds). The benchmarks keep theirs on disk, as a server would.
    """

    def __init__(self, *, in_memory: bool = False, **settings: str | int) -> None:
        self.settings = settings
        memory = in_memory and MEMORY.is_dir() and os.access(MEMORY, os.W_OK)
        self.root = Path(tempfile.mkdtemp(prefix="sosoapi-pg-", dir=MEMORY if memory else None))
        self.data = self.root / "data"
        self.sockets = self.root / "sockets"
        self.port = free_port()
        self.as_root = os.geteuid() == 0

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *argv: str) -> None:
        command = ["runuser", "-u", "postgres", "--", *argv] if self.as_root else list(argv)
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed: {done.stdout}{done.stderr}")

    def create(self) -> ThrowawayCluster:
        self.sockets.mkdir(parents=True)
        if self.as_root:
            shutil.chown(self.root, "postgres")
            shutil.chown(self.sockets, "postgres")
        initdb = _bin("initdb")
        self._run(initdb, "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync")
        return self.start()

    def start(self) -> ThrowawayCluster:
        options = f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1"
        options += "".join(f" -c {name}={value}" for name, value in self.settings.items())
        self._run(
            _bin("pg_ctl"), "-D", str(self.data), "-o", options, "-l",
            str(self.root / "log"), "-w", "start",
        )  # fmt: skip
        return self

    def stop(self, mode: str = "fast") -> None:
        self._run(_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def destroy(self) -> None:
        with contextlib.suppress(RuntimeError):  # already stopped
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> ThrowawayCluster:
        try:
            return self.create()
        except BaseException:
            self.destroy()
            raise

    def __exit__(self, *exc: object) -> None:
        self.destroy()
