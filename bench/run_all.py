"""`make bench`: every benchmark in turn, each printing its ratios against peers or floors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = [
    "replay.py",
    "corpora.py",
    "export.py",
    "search.py",
    "console.py",
    "captions.py",
    "diff.py",
    "egress.py",
    "extraction.py",
    "documents.py",
    "hostile.py",
    "offload.py",
    "walls_wild.py",
    "load.py",
    "memory.py",
    "floods.py",
    "instances.py",
    "startup.py",
]


def main() -> int:
    failed = []
    for name in BENCHES:
        print(f"\n===== bench/{name} =====", flush=True)
        if subprocess.run([sys.executable, str(HERE / name)], check=False).returncode != 0:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
