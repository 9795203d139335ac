"""Every page of tests/data/walls retrieved over real HTTPS from the loopback origin.

The origin sends each page with its status and headers as the corpus says; the retrieval
goes through egress (TLS, the status mapping, the error page kept for 403/405/429/503),
extraction and the receipt, on SQLite and PostgreSQL. Evidence is kept only for `ready`
and `partial` pages.
"""

from __future__ import annotations

import anyio

from sosoapi.application import Application
from tests.support.calls import args, call
from tests.support.origin import HTTPSOrigin
from tests.support.walls import assert_settles, wall_cases


async def test_every_corpus_page_settles_over_the_egress_path(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    cases = wall_cases()
    for case in cases:
        origin.routes[case.path] = case.route()
    receipts: dict[str, dict] = {}

    async def one(index: int) -> None:
        case = cases[index]
        receipts[case.file] = await call(
            application, token, args(workspace_id, origin.url(case.path))
        )

    async with anyio.create_task_group() as group:
        for index in range(len(cases)):
            group.start_soon(one, index)
    for case in cases:
        receipt = receipts[case.file]
        assert receipt["state"] == "completed", (case.file, receipt["state"])
        assert_settles(case, receipt["result"], receipt["evidence"])
        if case.expect_status in ("ready", "partial"):
            assert receipt["evidence"] is not None, case.file
        assert origin.page_hits[case.path] == 1, case.file
