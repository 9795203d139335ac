"""`python -m tests.support.skewed SECONDS ARGS...`: `sosoapi ARGS` on a shifted clock.

A host whose clock runs ahead, without a product switch: time-machine moves every wall
clock the process reads (`time.time`, `datetime.now`, ...) by SECONDS and lets it tick.
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime, timedelta

import time_machine


def main() -> None:
    offset = float(sys.argv[1])
    sys.argv = ["sosoapi", *sys.argv[2:]]
    time_machine.travel(datetime.now(UTC) + timedelta(seconds=offset), tick=True).start()
    time.time()  # the travelled clock starts ticking at its first reading: start it now
    from sosoapi.cli import main as sosoapi_main

    sosoapi_main()


if __name__ == "__main__":
    main()
