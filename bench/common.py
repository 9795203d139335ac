"""What the latency benchmarks share: percentiles and the printed table."""

from __future__ import annotations

import argparse
import os
import statistics


def percentiles(samples: list[float]) -> tuple[float, float]:
    """(p50, p99) in milliseconds of samples in seconds."""
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return statistics.median(ordered) * 1000, p99 * 1000


def print_table(title: str, rows: list[tuple[str, str, float, float, float]]) -> None:
    print(title)
    print(f"{'store':9} {'path':32} {'p50':>8} {'p99':>8} {'p50 / floor':>12}")
    for store, name, p50, p99, ratio in rows:
        print(f"{store:9} {name:32} {p50:8.2f} {p99:8.2f} {ratio:12.2f}")


def add_postgres_argument(parser: argparse.ArgumentParser) -> None:
    """`--postgres`: the base URL of the PostgreSQL rows (default: the test database)."""
    parser.add_argument(
        "--postgres",
        default=os.environ.get(
            "SOSOAPI_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
        ),
    )


def latency_args() -> argparse.Namespace:
    """`--n` calls per row and the `--postgres` base URL (default: the test database)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300)
    add_postgres_argument(parser)
    return parser.parse_args()
