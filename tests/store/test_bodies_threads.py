"""Capture bodies packed from several threads at once (parse threads and store threads do)
come back byte for byte: a zstd context shared between threads corrupts frames and can
crash the process (seen as a segfault in make test once bodies were packed in parse
threads)."""

from __future__ import annotations

import threading

from sosoapi.store.bodies import BODY_CODEC, PackedBody, inflate_body
from tests.support.pages import real_pages


def test_bodies_packed_in_threads_at_once_read_back_whole() -> None:
    bodies = [page.html for page in real_pages()]
    start = threading.Barrier(8)
    wrong: list[str] = []

    def pack(offset: int) -> None:
        start.wait()
        for round_ in range(40):
            body = bodies[(offset + round_) % len(bodies)] * 8
            try:
                packed = PackedBody.of(body)
                if inflate_body(BODY_CODEC, packed.packed) != body:
                    wrong.append(f"thread {offset}, round {round_}: other bytes")
            except Exception as error:  # a corrupt frame does not decode
                wrong.append(f"thread {offset}, round {round_}: {error}")

    threads = [threading.Thread(target=pack, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
