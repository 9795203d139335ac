"""Try sosoapi without the internet: serve a folder over HTTPS on loopback.

The egress gate reads only public https addresses with a certificate it trusts, so a
plain local web server is refused (by design). This script serves FOLDER's files over
TLS on 127.0.0.1 with a throwaway CA (trustme, the `demo` extra), and prints the three
settings that admit this origin and nothing else:

    python scripts/loopback_origin.py FOLDER [--port 8443]

Paste the printed `export` lines into the shell that runs `sosoapi` (or the `env` of an
MCP client's config), then retrieve the printed URLs. Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import contextlib
import mimetypes
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from sosoapi.testing.origin import HTTPSOrigin, Route  # noqa: E402

HOSTNAME = "origin.test"
TYPES = {".vtt": "text/vtt", ".srt": "application/x-subrip", ".txt": "text/plain"}


def routes(folder: Path) -> dict[str, Route]:
    """Every regular file under `folder` at its relative path, with its media type."""
    served: dict[str, Route] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            guessed = TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0]
            media = guessed or "application/octet-stream"
            charset = "; charset=utf-8" if media.startswith("text/") else ""
            served["/" + path.relative_to(folder).as_posix()] = Route(
                path.read_bytes(), content_type=media + charset
            )
    return served


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the files to serve (an .html, .vtt, ...)")
    parser.add_argument("--port", type=int, default=8443, help="0 picks a free port")
    args = parser.parse_args()
    served = routes(args.folder)
    if not served:
        parser.error(f"{args.folder} has no files to serve")
    with HTTPSOrigin(served, port=args.port) as origin:
        for name, value in origin.egress_env(HOSTNAME).items():
            print(f"export {name}={value}")
        for path in served:
            print(f"# {origin.url(path, HOSTNAME)}")
        print("# serving; Ctrl-C stops", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
