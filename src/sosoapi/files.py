"""Files the commands write where their user says (`corpora export -o`, `backup`): the one
place that creates them, so none can be turned against its writer.

The bytes go to a new file beside the target, opened `O_CREAT|O_EXCL|O_NOFOLLOW` under a
random name and 0600 whatever the umask (an export holds every capture, a backup every
token hash), then renamed into place: a link planted at a guessable `FILE.partial` is
never followed, a failed write leaves no file that looks whole, and an existing file is
replaced only when the caller says so (and then the link itself, never what it points at).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

PRIVATE_FILE = 0o600
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class Output:
    """The temporary file being written (`file`, or by name, `path`) for `target`."""

    def __init__(self, target: Path, *, replace: bool) -> None:
        self.target, self.replace = target, replace
        self.path = target.with_name(f".{target.name}.{secrets.token_hex(8)}.partial")
        fd = os.open(self.path, _NEW, PRIVATE_FILE)
        os.fchmod(fd, PRIVATE_FILE)  # the umask may have taken bits the mode asked for
        self.file: BinaryIO = os.fdopen(fd, "wb")
        self.kept = False

    def keep(self) -> None:
        """Put the written file at the target; FileExistsError when one appeared there
        meanwhile and `replace` is off (the link is atomic: no check-then-write gap)."""
        self.file.close()
        if self.replace:
            os.replace(self.path, self.target)
        else:
            os.link(self.path, self.target)
            self.path.unlink()
        self.kept = True


@contextlib.contextmanager
def private_output(target: Path, *, replace: bool = False) -> Iterator[Output]:
    """A new private file for `target`, removed unless `Output.keep()` was called.

    FileExistsError when `target` exists (a dangling link counts) and `replace` is off,
    before anything is written."""
    if not replace and os.path.lexists(target):
        raise FileExistsError(target)
    output = Output(target, replace=replace)
    try:
        yield output
    finally:
        if not output.kept:
            output.file.close()
            output.path.unlink(missing_ok=True)
