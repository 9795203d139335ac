"""Uploads read only what lies inside the roots (issue 10 item 9), on SQLite and PostgreSQL.

Each test attacks the way it was found: a link swapped between an inside and an outside
file while calls run, a FIFO, a link whose name has an allowed suffix, a root of `/`.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
import sqlalchemy as sa

from sosoapi.application import Application
from sosoapi.config import Settings
from sosoapi.contract.errors import ServiceError
from sosoapi.research.offload import Offload
from sosoapi.research.retrieval.uploads import read_upload
from sosoapi.store.tables import retrievals
from tests.support.contract import assert_valid_output

UPLOAD = "sosoapi_research_evidence_upload"
SECRET = "OUTSIDE-SECRET"
INSIDE = "Inside words"
MAX = 1 << 20
THREADS = Offload()  # parsing in threads, as the tests' applications do


async def count_receipts(app: Application) -> int:
    def count() -> int:
        with app.store.db.read() as conn:
            return conn.execute(sa.select(sa.func.count()).select_from(retrievals)).scalar_one()

    return await anyio.to_thread.run_sync(count)


async def upload(app: Application, token: str, ws: str, path: Path | str) -> dict:
    arguments = {
        "workspace_id": ws,
        "mutation_id": str(uuid.uuid4()),
        "path": str(path),
        "kind": "url_text",
    }
    outcome = await app.research.call(UPLOAD, token, arguments, transport="stdio")
    data = outcome.output.wire()
    assert_valid_output(UPLOAD, data)
    return data["retrieval"]


@pytest.fixture
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    secret = tmp_path_factory.mktemp("outside") / "secret.txt"
    secret.write_text(SECRET)
    return secret


class Swapper:
    """A thread that points `link` at `inside` and `outside` in turn, as fast as it can."""

    def __init__(self, link: Path, inside: Path, outside: Path) -> None:
        self.link, self.targets = link, (inside, outside)
        self.stop = threading.Event()
        self.swaps = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        spare = self.link.with_name(".swap.txt")
        while not self.stop.is_set():
            spare.unlink(missing_ok=True)
            spare.symlink_to(self.targets[self.swaps % 2])
            os.replace(spare, self.link)  # atomic: the link always exists
            self.swaps += 1

    def __enter__(self) -> Swapper:
        self.link.symlink_to(self.targets[0])
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


@pytest.fixture
def swapping(tmp_path: Path, outside: Path) -> Iterator[Swapper]:
    inside = tmp_path / "inside.txt"
    inside.write_text(INSIDE)
    with Swapper(tmp_path / "link.txt", inside, outside) as swapper:
        yield swapper


async def test_a_swapped_link_never_reads_outside_the_roots(
    tmp_path: Path, swapping: Swapper
) -> None:
    texts: list[str] = []
    # At least 300 reads, and on until the race has shown both sides (reads that succeed
    # inside, reads refused while the link pointed out), so the race really ran.
    while len(texts) < 300 or not (INSIDE in texts and any(t != INSIDE for t in texts)):
        assert len(texts) < 5000, "the swapper never raced the reads"
        read = await read_upload(
            str(swapping.link), "url_text", None, MAX, (tmp_path,), pool=THREADS
        )
        texts.append(read.finished.result.text)
        assert all(SECRET.encode() not in c.body for c in read.captures)
    assert not [t for t in texts if SECRET in t]


async def test_a_swapped_link_never_reaches_a_receipt(
    application: Application, owner: tuple[str, str], swapping: Swapper
) -> None:
    ws, token = owner
    seen = []
    for _ in range(40):
        try:
            seen.append((await upload(application, token, ws, swapping.link))["result"])
        except ServiceError as refused:
            assert refused.code == "invalid_input" and refused.field == "path"
    assert not [r for r in seen if SECRET in r["text"]]
    assert all(r["status"] in ("ready", "unavailable") for r in seen)


async def test_outside_and_missing_get_the_same_answer(
    application: Application, owner: tuple[str, str], tmp_path: Path, outside: Path
) -> None:
    ws, token = owner
    (tmp_path / "named.txt").symlink_to(outside)
    answers = {}
    for case, path in {
        "outside": outside,
        "link": tmp_path / "named.txt",
        "missing": tmp_path / "missing.txt",
        "missing_outside": outside.with_name("missing.txt"),
    }.items():
        with pytest.raises(ServiceError) as caught:
            await upload(application, token, ws, path)
        assert caught.value.code == "invalid_input" and caught.value.field == "path"
        answers[case] = caught.value.message.replace(str(path), "PATH")
    assert len(set(answers.values())) == 1, answers
    assert SECRET not in str(answers)


async def test_a_link_named_txt_to_another_suffix_is_refused(
    application: Application, owner: tuple[str, str], tmp_path: Path
) -> None:
    ws, token = owner
    key = tmp_path / "id_rsa"
    key.write_text("PRIVATE KEY")
    (tmp_path / "key.txt").symlink_to(key)
    with pytest.raises(ServiceError) as caught:
        await upload(application, token, ws, tmp_path / "key.txt")
    assert caught.value.field == "path"


class Releaser:
    """Opens the FIFO for writing whenever a reader waits on it, so no call hangs forever
    (the bug this guards against); a read that got through then shows in the results."""

    def __init__(self, fifo: Path) -> None:
        self.fifo = fifo
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                os.close(os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:  # ENXIO: nobody is reading
                self.stop.wait(0.001)

    def __enter__(self) -> Releaser:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


async def test_a_link_swapped_to_a_fifo_is_never_read(
    application: Application, owner: tuple[str, str], tmp_path: Path
) -> None:
    ws, token = owner
    inside, fifo = tmp_path / "inside.txt", tmp_path / "pipe.txt"
    inside.write_text(INSIDE)
    os.mkfifo(fifo)
    results = []
    with Releaser(fifo):
        with pytest.raises(ServiceError) as caught:
            await upload(application, token, ws, fifo)
        assert caught.value.code == "invalid_input" and caught.value.field == "path"
    with Releaser(fifo), Swapper(tmp_path / "link.txt", inside, fifo):
        for _ in range(200):
            read = await read_upload(
                str(tmp_path / "link.txt"), "url_text", None, MAX, (tmp_path,), pool=THREADS
            )
            results.append(read.finished.result)
        for _ in range(20):
            try:
                results.append(await upload(application, token, ws, tmp_path / "link.txt"))
            except ServiceError as refused:
                assert refused.field == "path"
    outcomes = {(r.status, r.reason) if hasattr(r, "status") else
                (r["result"]["status"], r["result"]["reason"]) for r in results}  # fmt: skip
    assert outcomes <= {("ready", None), ("unavailable", "not_found")}, outcomes


@pytest.mark.parametrize("root", [Path("/"), Path.home()])
async def test_a_root_of_the_whole_disk_or_home_is_refused(
    application: Application, owner: tuple[str, str], root: Path, tmp_path: Path
) -> None:
    ws, token = owner
    (tmp_path / "fine.txt").write_text(INSIDE)
    application.research.upload_roots = (root,)
    with pytest.raises(ServiceError) as caught:
        await upload(application, token, ws, tmp_path / "fine.txt")
    assert "SOSOAPI_UPLOAD_ROOTS" in caught.value.message
    assert caught.value.code == "unavailable"
    assert await count_receipts(application) == 0


async def test_a_missing_root_is_refused_by_the_tool_naming_the_variable(
    application: Application, owner: tuple[str, str], tmp_path: Path
) -> None:
    ws, token = owner
    present = tmp_path / "present"
    present.mkdir()
    (present / "fine.txt").write_text(INSIDE)
    missing = tmp_path / "missing"
    application.research.upload_roots = (missing,)
    with pytest.raises(ServiceError) as caught:
        await upload(application, token, ws, missing / "fine.txt")
    assert f"SOSOAPI_UPLOAD_ROOTS names '{missing}'" in caught.value.message
    assert "create it" in caught.value.message and caught.value.code == "unavailable"
    assert await count_receipts(application) == 0  # nothing was half-written
    application.research.upload_roots = (missing, present)  # a file in a root that exists
    done = await upload(application, token, ws, present / "fine.txt")
    assert done["result"]["status"] == "ready"


def test_settings_start_with_a_missing_root(tmp_path: Path) -> None:
    settings = Settings.from_env({"SOSOAPI_UPLOAD_ROOTS": str(tmp_path / "later")})
    assert settings.upload_roots == (tmp_path / "later",)
