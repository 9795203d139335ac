"""Structured log lines (key=value) on stderr; never tokens or secrets."""

from __future__ import annotations

import logging
import sys


class KeyValueFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage().replace("\n", " ")
        line = (
            f"ts={self.formatTime(record, '%Y-%m-%dT%H:%M:%S')} level={record.levelname.lower()} "
            f"logger={record.name} msg={message!r}"
        )
        if record.exc_info:
            line += " exc=" + repr(self.formatException(record.exc_info))
        return line


def configure(level: str) -> None:
    """Log `level` and above from our loggers to stderr, one key=value line each."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(KeyValueFormatter())
    root = logging.getLogger("sosoapi")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False
    # The SDK's own warnings (a refused Host or Origin: DNS-rebinding protection) in our format.
    sdk = logging.getLogger("mcp")
    sdk.handlers[:] = [handler]
    sdk.setLevel(logging.WARNING)
    sdk.propagate = False
