"""The retrieve operation end to end against a real HTTPS origin, on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import anyio
import pytest
import sqlalchemy as sa

from sosoapi.application import Application
from sosoapi.contract.errors import ServiceError
from sosoapi.store.tables import evidence_revisions, mutations, retrievals
from tests.support.calls import RETRIEVE, args, call
from tests.support.lifespan import held_open
from tests.support.origin import HTTPSOrigin, Route
from tests.support.pages import real_pages


def count(app: Application, table: sa.Table) -> int:
    with app.store.db.read() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()


async def test_real_page_is_read_once_and_replayed(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    page = real_pages()[0]
    arguments = args(workspace_id, origin.url(f"/{page.name}"))
    first = await call(application, token, arguments)
    assert first["state"] == "completed"
    result = first["result"]
    assert result["status"] == "ready", result
    assert result["reason"] is None and result["warnings"] == []
    text = " ".join(result["text"].split())
    assert page.must_contain[0] in text
    assert result["provenance"]["source_url"] == arguments["url"]
    assert result["provenance"]["mime_type"] == "text/html"
    assert first["evidence"]["revision"] == 1
    second = await call(application, token, arguments)
    assert second == first
    assert origin.hits[f"/{page.name}"] == 1


async def test_twenty_concurrent_identical_calls_make_one_receipt_and_one_fetch(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    origin.routes["/slow"] = Route(real_pages()[2].html, delay=0.3)
    arguments = args(workspace_id, origin.url("/slow"))
    results: list[dict] = []

    async def one() -> None:
        results.append(await call(application, token, arguments))

    async with anyio.create_task_group() as tg:
        for _ in range(20):
            tg.start_soon(one)
    assert len({r["id"] for r in results}) == 1
    assert {r["state"] for r in results} == {"completed"}
    assert origin.hits["/slow"] == 1
    assert count(application, retrievals) == 1


async def test_same_mutation_id_with_other_arguments_is_a_conflict_naming_the_field(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    workspace_id, token = owner
    path = next(iter(pages))
    arguments = args(workspace_id, origin.url(path))
    await call(application, token, arguments)
    for change, field in (
        ({"url": origin.url(path + "?x")}, "url"),
        ({"language": "de"}, "language"),
    ):
        with pytest.raises(ServiceError) as caught:
            await call(application, token, {**arguments, **change})
        assert caught.value.code == "conflict"
        assert caught.value.field == field
        assert field in caught.value.message
    assert count(application, retrievals) == 1


BAD_INPUTS = [
    ("missing url", lambda a: {k: v for k, v in a.items() if k != "url"}, "url"),
    ("bad uuid", lambda a: {**a, "mutation_id": "1234"}, "mutation_id"),
    (
        "unhyphenated uuid",
        lambda a: {**a, "workspace_id": a["workspace_id"].replace("-", "")},
        "workspace_id",
    ),
    ("url too long", lambda a: {**a, "url": "https://example.com/" + "a" * 2048}, "url"),
    ("unknown kind", lambda a: {**a, "kind": "video"}, "kind"),
    ("bad language", lambda a: {**a, "language": "en_US!"}, "language"),
    ("null language", lambda a: {**a, "language": None}, "language"),
    ("extra property", lambda a: {**a, "depth": 2}, "depth"),
    ("not a uri", lambda a: {**a, "url": "not a url"}, "url"),
]


@pytest.mark.parametrize(("case", "mutate", "field"), BAD_INPUTS, ids=[c[0] for c in BAD_INPUTS])
async def test_bad_input_names_the_field_and_writes_nothing(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    case: str,
    mutate,
    field: str,
) -> None:
    workspace_id, token = owner
    with pytest.raises(ServiceError) as caught:
        await call(application, token, mutate(args(workspace_id, origin.url("/x"))))
    assert caught.value.code == "invalid_input"
    assert field in caught.value.message
    assert count(application, mutations) == 0
    assert count(application, retrievals) == 0
    assert origin.connections == 0


async def test_unsafe_url_gets_a_blocked_receipt_without_a_connection(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    for url in (
        "http://origin.test/",
        f"https://127.0.0.2:{origin.port}/",
        "https://169.254.169.254/",
    ):
        receipt = await call(application, token, args(workspace_id, url))
        assert receipt["state"] == "completed"
        assert (receipt["result"]["status"], receipt["result"]["reason"]) == (
            "blocked",
            "unsafe_url",
        )
        assert receipt["result"]["provenance"]["source_url"] is None
        assert receipt["evidence"] is None
    assert origin.connections == 0


@pytest.mark.parametrize("receipt_overrides", [{"wait_budget_seconds": 0.2}])
async def test_slow_read_returns_an_open_receipt_then_the_outcome(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, receipt_overrides
) -> None:
    workspace_id, token = owner
    origin.routes["/slow"] = Route(real_pages()[1].html, delay=1.0)
    arguments = args(workspace_id, origin.url("/slow"))
    first = await call(application, token, arguments)
    assert first["state"] in ("pending", "running")
    assert first["result"] is None and first["settled_at"] is None and first["evidence"] is None
    with anyio.fail_after(10):
        while (receipt := await call(application, token, arguments))["state"] != "completed":  # noqa: ASYNC110
            await anyio.sleep(0.1)
    assert receipt["id"] == first["id"]
    assert receipt["result"]["status"] == "ready"
    assert origin.hits["/slow"] == 1


def _claim(app: Application, workspace_id: str, url: str, valid_until: datetime) -> tuple[str, str]:
    """A pending receipt as a crashed instance would leave it: claimed, never started."""
    from sosoapi.research.mutations import new_mutation

    mutation_id, retrieval_id = str(uuid.uuid4()), str(uuid.uuid4())
    arguments = {"url": url, "kind": "url_text", "language": None}
    key = new_mutation(
        RETRIEVE,
        {**arguments, "workspace_id": workspace_id, "mutation_id": mutation_id},
        None,
        datetime.now(UTC),
    )
    assert app.store.retrievals.claim_retrieval(
        key, retrieval_id, "url_text", url, None, valid_until
    )
    return mutation_id, retrieval_id


@pytest.mark.parametrize("receipt_overrides", [{"wait_budget_seconds": 0.3}])
async def test_a_lost_lease_is_judged_unconfirmed_on_replay(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, receipt_overrides
) -> None:
    workspace_id, token = owner
    url = origin.url("/never")
    mutation_id, retrieval_id = _claim(
        application, workspace_id, url, datetime.now(UTC) + timedelta(hours=1)
    )
    now = datetime.now(UTC)
    assert application.store.retrievals.acquire(retrieval_id, "other-instance", 30)
    live = await call(application, token, {**args(workspace_id, url), "mutation_id": mutation_id})
    assert live["state"] == "running"  # another instance's live lease is never judged
    with application.store.db.write() as conn:
        conn.execute(
            sa.update(retrievals)
            .where(retrievals.c.id == retrieval_id)
            .values(lease_expires_at=now - timedelta(seconds=1))
        )
    judged = await call(application, token, {**args(workspace_id, url), "mutation_id": mutation_id})
    assert judged["state"] == "unconfirmed"
    assert judged["result"] is None and judged["settled_at"] is not None
    assert origin.hits["/never"] == 0


async def test_pending_work_past_its_window_expires(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    url = origin.url("/late")
    mutation_id, _ = _claim(
        application, workspace_id, url, datetime.now(UTC) - timedelta(seconds=1)
    )
    receipt = await call(
        application, token, {**args(workspace_id, url), "mutation_id": mutation_id}
    )
    assert receipt["state"] == "expired"
    assert receipt["result"] is None and receipt["settled_at"] is not None
    assert origin.hits["/late"] == 0


async def test_durable_pending_work_is_resumed_by_the_sweeper(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    workspace_id, token = owner
    path = next(iter(pages))
    mutation_id, _ = _claim(
        application, workspace_id, origin.url(path), datetime.now(UTC) + timedelta(hours=1)
    )
    await application.receipts.sweep_and_resume()
    receipt = await call(
        application, token, {**args(workspace_id, origin.url(path)), "mutation_id": mutation_id}
    )
    assert receipt["state"] == "completed" and receipt["result"]["status"] == "ready"
    assert origin.hits[path] == 1


async def test_changed_content_makes_a_new_evidence_revision(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner
    origin.routes["/doc"] = Route(
        b"<html><body><p>" + b"first version " * 30 + b"</p></body></html>"
    )
    one = await call(application, token, args(workspace_id, origin.url("/doc")))
    same = await call(application, token, args(workspace_id, origin.url("/doc")))
    origin.routes["/doc"] = Route(
        b"<html><body><p>" + b"second version " * 30 + b"</p></body></html>"
    )
    two = await call(application, token, args(workspace_id, origin.url("/doc")))
    assert one["evidence"] == same["evidence"]
    assert two["evidence"]["evidence_id"] == one["evidence"]["evidence_id"]
    assert (one["evidence"]["revision"], two["evidence"]["revision"]) == (1, 2)
    assert count(application, evidence_revisions) == 2


async def test_graceful_stop_finishes_running_work_and_leaves_pending_work(
    database_url: str, tmp_path: Path, origin: HTTPSOrigin, pages: dict
) -> None:
    from tests.support.services import make_settings, owner_token

    body = next(iter(pages.values()))
    origin.routes["/one"] = Route(body, delay=0.8)
    origin.routes["/two"] = Route(body, delay=0.8)
    settings = make_settings(
        database_url,
        tmp_path,
        origin.egress_env(),
        wait_budget_seconds=0.1,
        shutdown_grace_seconds=10,
    )
    settings = replace(settings, receipts=replace(settings.receipts, max_concurrent_retrievals=1))
    app = Application(settings)
    workspace_id, token = owner_token(app)
    one = args(workspace_id, origin.url("/one"))
    two = args(workspace_id, origin.url("/two"))
    async with held_open(app.running()):
        with anyio.fail_after(10):
            while (await call(app, token, one))["state"] == "pending":  # noqa: ASYNC110
                await anyio.sleep(0.05)
        assert (await call(app, token, two))["state"] == "pending"  # queued behind the limit
    first = app.store.retrievals.retrieval(workspace_id, one["mutation_id"])
    second = app.store.retrievals.retrieval(workspace_id, two["mutation_id"])
    assert first is not None and first.state == "completed"
    assert second is not None and second.state == "pending"
    assert origin.hits["/two"] == 0
    successor = Application(settings)  # the next instance resumes durable pending work
    async with held_open(successor.running()):
        with anyio.fail_after(10):
            while (await call(successor, token, two))["state"] != "completed":  # noqa: ASYNC110
                await anyio.sleep(0.1)
    assert origin.hits["/two"] == 1
    app.store.close()
    successor.store.close()


async def test_the_key_is_the_canonical_lower_case_uuid(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    workspace_id, token = owner
    arguments = args(workspace_id, origin.url(next(iter(pages))))
    lower = await call(application, token, arguments)
    upper = await call(
        application, token, {**arguments, "mutation_id": arguments["mutation_id"].upper()}
    )
    assert upper == lower and lower["mutation_id"] == arguments["mutation_id"]
    assert count(application, retrievals) == 1


LOGIN_FORM = (
    b'<form action="/session" method="post"><input name="user">'
    b'<input type="password" name="pw"><button>Sign in</button></form>'
)


async def test_login_walls_are_blocked_not_ready(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    from tests.support.hostile import redirect_to

    workspace_id, token = owner
    article = next(iter(pages.values()))
    origin.routes["/wall"] = Route(
        b"<html><head><title>Members only</title></head><body><h1>Please sign in</h1>"
        + LOGIN_FORM
        + b"</body></html>"
    )
    origin.routes["/paywalled"] = redirect_to(origin.url("/accounts/login?next=/paywalled"))
    origin.routes["/accounts/login"] = Route(
        article.replace(b"<body", b"<body><div>" + LOGIN_FORM + b"</div", 1)
    )
    origin.routes["/article-with-sign-in-box"] = Route(
        article.replace(b"<body", b"<body><header>" + LOGIN_FORM + b"</header", 1)
    )
    for path in ("/wall", "/paywalled"):
        receipt = await call(application, token, args(workspace_id, origin.url(path)))
        result = receipt["result"]
        assert (result["status"], result["reason"]) == ("blocked", "login_required"), path
        assert result["text"] == "" and result["provenance"]["source_url"] is None
        assert receipt["evidence"] is None
    fine = await call(
        application, token, args(workspace_id, origin.url("/article-with-sign-in-box"))
    )
    assert fine["result"]["status"] == "ready"
