"""Projects, sealing, corpora and evidence reads: the research loop, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest
import sqlalchemy as sa

from sosoapi.application import Application
from sosoapi.auth.admin import Admin
from sosoapi.contract.errors import ServiceError
from sosoapi.contract.schemas import all_tools, validate_input
from sosoapi.research.corpora.sealing import sample
from sosoapi.store.tables import metadata
from tests.support.calls import run as run_tool
from tests.support.loop import page, research_loop
from tests.support.origin import HTTPSOrigin, Route

P = "sosoapi_research_"
CORPUS = "7c2f0c4e-1d7a-4e55-9a0b-3f6e2d1c8b90"
EIGHT = [f"{i:08x}-0000-4000-8000-{i:012x}" for i in range(1, 9)]


def documented_sample(corpus_id: str, project_order: list[str], bound: int) -> list[str]:
    """`research-corpus/v1` as the docs state it, written here rather than imported."""
    digest = {e: hashlib.sha256(f"{corpus_id}:{e}".encode()).hexdigest() for e in project_order}
    smallest = sorted(digest.values())[:bound]
    return [e for e in project_order if digest[e] in smallest]


def test_the_documented_sample_on_a_worked_example() -> None:
    # sha256("<corpus>:<id>")[:12] ranks ids 4 (07df95...), 2 (07f1ff...), 5 (0ed002...)
    # lowest; the sample keeps those three in project order, not in hash order.
    assert documented_sample(CORPUS, EIGHT, 3) == [EIGHT[1], EIGHT[3], EIGHT[4]]
    assert sample(CORPUS, EIGHT, 3) == [EIGHT[1], EIGHT[3], EIGHT[4]]
    assert sample(CORPUS, EIGHT[::-1], 3) == [EIGHT[4], EIGHT[3], EIGHT[1]]
    assert sample(CORPUS, EIGHT, 8) == EIGHT


async def run(app: Application, token: str, tool: str, transport: str = "http", **arguments: Any):
    return await run_tool(app, token, tool, arguments, transport)


def mid() -> str:
    return str(uuid.uuid4())


async def new_project(app: Application, token: str, ws: str, title: str) -> str:
    """A fresh project's id."""
    data, _ = await run(
        app, token, P + "projects_create", workspace_id=ws, mutation_id=mid(), title=title
    )
    return data["project"]["id"]


async def retrieve(app: Application, token: str, ws: str, url: str) -> dict:
    data, _ = await run(
        app,
        token,
        P + "evidence_retrieve",
        url=url,
        kind="url_text",
        workspace_id=ws,
        mutation_id=mid(),
    )
    return data["retrieval"]


async def test_the_whole_loop_keeps_old_revisions_readable(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner

    async def call(tool: str, arguments: dict[str, Any]) -> tuple[dict, int | None]:
        return await run(application, token, tool, **arguments)

    await research_loop(call, origin, ws)


async def test_twenty_parallel_add_source_calls(
    application: Application, owner: tuple[str, str]
) -> None:
    ws, token = owner
    pid = await new_project(application, token, ws, "Busy")

    async def add(i: int) -> None:
        await run(
            application,
            token,
            P + "projects_add_sources",
            workspace_id=ws,
            mutation_id=mid(),
            project_id=pid,
            missing_notes=[f"source number {i}"],
        )

    async with anyio.create_task_group() as tg:
        for i in range(20):
            tg.start_soon(add, i)
    final, _ = await run(application, token, P + "projects_get", workspace_id=ws, project_id=pid)
    assert len(final["project"]["sources"]) == 20
    assert final["project"]["revision"] == 21


async def test_a_replay_returns_the_stored_result_and_a_reused_key_conflicts(
    application: Application, owner: tuple[str, str]
) -> None:
    ws, token = owner
    pid = await new_project(application, token, ws, "Once")
    key = mid()
    first, _ = await run(
        application,
        token,
        P + "projects_add_sources",
        workspace_id=ws,
        mutation_id=key,
        project_id=pid,
        missing_notes=["one"],
    )
    await run(
        application,
        token,
        P + "projects_update",
        workspace_id=ws,
        mutation_id=mid(),
        project_id=pid,
        title="Renamed",
    )
    replay, _ = await run(
        application,
        token,
        P + "projects_add_sources",
        workspace_id=ws,
        mutation_id=key,
        project_id=pid,
        missing_notes=["one"],
    )
    assert replay == first  # the mutation's result, not the project as it is now
    with pytest.raises(ServiceError) as caught:
        await run(
            application,
            token,
            P + "projects_add_sources",
            workspace_id=ws,
            mutation_id=key,
            project_id=pid,
            missing_notes=["two"],
        )
    assert caught.value.code == "conflict" and caught.value.field == "missing_notes"
    with pytest.raises(ServiceError) as caught:
        await run(
            application, token, P + "corpora_seal", workspace_id=ws, mutation_id=key, project_id=pid
        )
    assert caught.value.code == "conflict" and "projects_add_sources" in caught.value.message


async def test_bounded_sample_is_deterministic_and_documented(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    ids = []
    for i in range(5):
        origin.routes[f"/s{i}"] = Route(page(f"Sample {i}"))
        ids.append(
            (await retrieve(application, token, ws, origin.url(f"/s{i}")))["evidence"][
                "evidence_id"
            ]
        )
    pid = await new_project(application, token, ws, "Many")
    await run(
        application,
        token,
        P + "projects_add_sources",
        workspace_id=ws,
        mutation_id=mid(),
        project_id=pid,
        evidence_ids=ids,
    )
    one, _ = await run(
        application,
        token,
        P + "corpora_seal",
        workspace_id=ws,
        mutation_id=mid(),
        project_id=pid,
        max_items=3,
    )
    snap = one["snapshot"]
    assert snap["coverage"] == "bounded_sample" and len(snap["evidence"]) == 3
    assert [e["evidence_id"] for e in snap["evidence"]] == documented_sample(snap["id"], ids, 3)
    two, _ = await run(
        application,
        token,
        P + "corpora_seal",
        workspace_id=ws,
        mutation_id=mid(),
        project_id=pid,
        max_items=3,
        corpus_id=snap["id"],
    )
    assert two["snapshot"]["evidence"] == snap["evidence"] and two["revision"] == 2
    whole, _ = await run(
        application, token, P + "corpora_seal", workspace_id=ws, mutation_id=mid(), project_id=pid
    )
    assert (
        whole["snapshot"]["coverage"] == "supplied_set" and len(whole["snapshot"]["evidence"]) == 5
    )


async def test_lists_page_with_cursors(application: Application, owner: tuple[str, str]) -> None:
    ws, token = owner
    for i in range(5):
        await run(
            application,
            token,
            P + "projects_create",
            workspace_id=ws,
            mutation_id=mid(),
            title=f"P{i}",
        )
    seen, cursor = [], None
    while True:
        extra = {"cursor": cursor} if cursor else {}
        data, _ = await run(
            application, token, P + "projects_list", workspace_id=ws, limit=2, **extra
        )
        seen += [item["title"] for item in data["items"]]
        cursor = data["next_cursor"]
        if cursor is None:
            break
    assert seen == ["P4", "P3", "P2", "P1", "P0"]
    with pytest.raises(ServiceError) as caught:
        await run(application, token, P + "projects_list", workspace_id=ws, cursor="garbage!")
    assert caught.value.code == "invalid_input" and caught.value.field == "cursor"


async def test_roles_scopes_and_outsiders_for_every_new_tool(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    origin.routes["/r"] = Route(page("Roles"))
    evidence_id = (await retrieve(application, token, ws, origin.url("/r")))["evidence"][
        "evidence_id"
    ]
    pid = await new_project(application, token, ws, "Roles")
    sealed, _ = await run(
        application, token, P + "corpora_seal", workspace_id=ws, mutation_id=mid(), project_id=pid
    )
    admin = Admin(application.store.auth)
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    viewer = admin.mint(admin.create_member(ws, "viewer", "viewer", now), now).token
    editor = admin.mint(admin.create_member(ws, "editor", "editor", now), now).token
    other_ws = application.store.auth.create_workspace("other", now)
    outsider = admin.mint(admin.create_member(other_ws.id, "outsider", "owner", now), now).token
    scopeless = admin.mint(
        admin.create_member(ws, "scopeless", "owner", now), now, scopes=frozenset()
    ).token

    reads = {
        "evidence_get": {"evidence_id": evidence_id},
        "evidence_list": {},
        "projects_get": {"project_id": pid},
        "projects_list": {},
        "corpora_get": {"id": sealed["snapshot"]["id"]},
        "corpora_list": {},
    }
    writes = {
        "projects_create": {"title": "x"},
        "projects_update": {"project_id": pid, "title": "y"},
        "projects_add_sources": {"project_id": pid, "missing_notes": ["z"]},
        "projects_remove_sources": {"project_id": pid, "evidence_ids": []},
        "corpora_seal": {"project_id": pid},
    }
    for name, extra in reads.items():
        await run(application, viewer, P + name, workspace_id=ws, **extra)
    for name, extra in {**reads, **writes}.items():
        extra = {**extra, "mutation_id": mid()} if name in writes else extra
        for who, code in ((outsider, "not_found"), (scopeless, "forbidden")):
            with pytest.raises(ServiceError) as caught:
                await run(application, who, P + name, workspace_id=ws, **extra)
            assert caught.value.code == code, (name, code)
        if name in writes:
            with pytest.raises(ServiceError) as caught:
                await run(application, viewer, P + name, workspace_id=ws, **extra)
            assert caught.value.code == "forbidden", name
            await run(
                application, editor, P + name, workspace_id=ws, **{**extra, "mutation_id": mid()}
            )
    with pytest.raises(ServiceError) as caught:  # another workspace's project, named from yours
        await run(
            application, outsider, P + "projects_get", workspace_id=other_ws.id, project_id=pid
        )
    assert caught.value.code == "not_found"


BAD_FIELDS = {
    "projects_create": [("title", ""), ("title", "t" * 201), ("title", None)],
    "projects_update": [("project_id", "nope"), ("title", 5)],
    "projects_add_sources": [
        ("evidence_ids", ["nope"]),
        ("missing_notes", ["n" * 101]),
        ("missing_notes", []),
    ],
    "projects_remove_sources": [("evidence_ids", "x"), ("project_id", None)],
    "corpora_seal": [("max_items", 0), ("max_items", 501), ("corpus_id", "x"), ("max_items", True)],
    "corpora_get": [("revision", 0), ("revision", True), ("id", "x")],
    "evidence_get": [("revision", -1), ("evidence_id", "")],
    "evidence_list": [("limit", 0), ("kind", "video"), ("language", None)],
    "projects_list": [("limit", 201), ("cursor", "")],
}
BASE = {
    "projects_create": {"title": "t"},
    "projects_update": {"project_id": str(uuid.uuid4()), "title": "t"},
    "projects_add_sources": {"project_id": str(uuid.uuid4())},
    "projects_remove_sources": {"project_id": str(uuid.uuid4()), "evidence_ids": []},
    "corpora_seal": {"project_id": str(uuid.uuid4())},
    "corpora_get": {"id": str(uuid.uuid4())},
    "evidence_get": {"evidence_id": str(uuid.uuid4())},
    "evidence_list": {},
    "projects_list": {},
}
CASES = [(name, f, v) for name, fields in BAD_FIELDS.items() for f, v in fields]


def bad_arguments(name: str, field: str, value: Any, ws: str) -> dict[str, Any]:
    """`BASE[name]` in workspace `ws` with `field` set to the bad `value`."""
    arguments = {"workspace_id": ws, **BASE[name], field: value}
    if "mutation_id" in all_tools()[P + name]["inputSchema"]["properties"]:
        arguments["mutation_id"] = mid()
    return arguments


@pytest.mark.parametrize(
    ("name", "field", "value"), CASES, ids=[f"{n}-{f}-{v!r}"[:60] for n, f, v in CASES]
)
def test_bad_input_names_the_field(name: str, field: str, value: Any) -> None:
    """The contract check alone (no Application): test_refused_input_writes_nothing sends
    every one of these through a running service on both stores."""
    with pytest.raises(ServiceError) as caught:
        validate_input(P + name, bad_arguments(name, field, value, str(uuid.uuid4())))
    assert caught.value.code == "invalid_input"
    named = caught.value.field or ""
    assert named == field or named.startswith(f"{field}."), caught.value.message  # items: `f.0`


async def test_upload_is_stdio_only_and_reads_through_the_same_extractors(
    application: Application, owner: tuple[str, str], tmp_path: Path
) -> None:
    ws, token = owner
    vtt = tmp_path / "talk.vtt"
    cues = "00:00.000 --> 00:02.500\nHello there\n\n00:02.500 --> 00:04.000\nGeneral Kenobi\n"
    vtt.write_text("WEBVTT\n\n" + cues)
    arguments = {
        "workspace_id": ws,
        "mutation_id": mid(),
        "path": str(vtt),
        "kind": "published_captions",
    }
    with pytest.raises(ServiceError) as caught:
        await run(application, token, P + "evidence_upload", **arguments)
    assert caught.value.code == "not_found"
    data, _ = await run(application, token, P + "evidence_upload", transport="stdio", **arguments)
    receipt = data["retrieval"]
    assert receipt["state"] == "completed" and receipt["result"]["status"] == "ready"
    assert receipt["result"]["provenance"]["source_url"] is None
    assert [s["text"] for s in receipt["result"]["segments"]] == ["Hello there", "General Kenobi"]
    assert receipt["evidence"]["revision"] == 1
    vtt.unlink()
    replay, _ = await run(application, token, P + "evidence_upload", transport="stdio", **arguments)
    assert replay == data
    for path, kind in (
        (tmp_path / "nope.vtt", "published_captions"),
        (tmp_path / "x.exe", "url_text"),
    ):
        with pytest.raises(ServiceError) as caught:
            await run(
                application,
                token,
                P + "evidence_upload",
                transport="stdio",
                **{**arguments, "mutation_id": mid(), "path": str(path), "kind": kind},
            )
        assert caught.value.code == "invalid_input" and caught.value.field == "path"


async def test_whoami_lists_workspaces_and_roles(
    application: Application, owner: tuple[str, str]
) -> None:
    ws, token = owner
    data, _ = await run(application, token, "sosoapi_whoami")
    assert data["scopes"] == ["agent:research"]
    assert [(w["id"], w["role"]) for w in data["workspaces"]] == [(ws, "owner")]


def _wrong_type(schema: dict[str, Any]) -> Any:
    return 12345 if schema.get("type") in ("string", "array") else "not-a-number"


FIELD_CASES = [
    (name, field, kind)
    for name, contract in sorted(all_tools().items())
    for field in contract["inputSchema"]["properties"]
    for kind in (
        ("wrong_type", "missing")
        if field in contract["inputSchema"]["required"]
        else ("wrong_type",)
    )
]


def field_case(name: str, field: str, kind: str, ws: str) -> dict[str, Any]:
    """Valid arguments for `name` but `field`: of the wrong type, or (`missing`) absent."""
    schema = all_tools()[name]["inputSchema"]
    arguments: dict[str, Any] = {"workspace_id": ws, "mutation_id": mid()}
    arguments = {k: v for k, v in arguments.items() if k in schema["properties"]}
    if kind == "missing":
        arguments.pop(field, None)
        for other in schema["required"]:
            if other != field and other not in arguments:
                arguments[other] = _valid(schema["properties"][other])
    else:
        for other in schema["required"]:
            arguments.setdefault(other, _valid(schema["properties"][other]))
        arguments[field] = _wrong_type(schema["properties"][field])
    return arguments


@pytest.mark.parametrize(
    ("name", "field", "kind"), FIELD_CASES, ids=[f"{n}.{f}.{k}" for n, f, k in FIELD_CASES]
)
def test_every_field_of_every_tool_is_validated(name: str, field: str, kind: str) -> None:
    """Each field of each published input schema: a wrong type (and, if required, absence)
    is refused with a message naming that field (the contract check alone; that a refused
    call writes nothing is test_refused_input_writes_nothing)."""
    with pytest.raises(ServiceError) as caught:
        validate_input(name, field_case(name, field, kind, str(uuid.uuid4())))
    assert caught.value.code == "invalid_input"
    assert f"`{field}`" in caught.value.message


def row_counts(application: Application) -> dict[str, int]:
    """Rows in every table of the store."""
    with application.store.db.read() as conn:
        return {
            name: conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
            for name, table in metadata.tables.items()
        }


async def test_refused_input_writes_nothing(
    application: Application, owner: tuple[str, str]
) -> None:
    """Every bad input above, sent through the running service on each store: each is
    refused as `invalid_input` naming its field, and no table gains or loses a row."""
    ws, token = owner
    before = row_counts(application)
    sent = [(P + n, f, bad_arguments(n, f, v, ws)) for n, f, v in CASES] + [
        (n, f, field_case(n, f, k, ws)) for n, f, k in FIELD_CASES
    ]
    for name, field, arguments in sent:
        with pytest.raises(ServiceError) as caught:
            await application.research.call(name, token, arguments, transport="stdio")
        assert caught.value.code == "invalid_input", (name, field)
        assert f"`{field}`" in caught.value.message or (caught.value.field or "").startswith(
            field
        ), (name, field, caught.value.message)
    assert row_counts(application) == before


def _valid(schema: dict[str, Any]) -> Any:
    if schema.get("format") == "uuid":
        return str(uuid.uuid4())
    if schema.get("format") == "uri":
        return "https://example.com/"
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return _valid(schema["anyOf"][0])
    return {"string": "value", "integer": 1, "array": []}[schema["type"]]


async def test_extra_properties_are_refused_for_every_tool(
    application: Application, owner: tuple[str, str]
) -> None:
    ws, token = owner
    for name, contract in all_tools().items():
        schema = contract["inputSchema"]
        arguments = {k: _valid(schema["properties"][k]) for k in schema["required"]}
        if "workspace_id" in arguments:
            arguments["workspace_id"] = ws
        arguments["surprise"] = True
        with pytest.raises(ServiceError) as caught:
            await application.research.call(name, token, arguments, transport="stdio")
        assert caught.value.code == "invalid_input" and "`surprise`" in caught.value.message, name


async def test_upload_stays_inside_the_upload_roots(
    application: Application,
    owner: tuple[str, str],
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    ws, token = owner
    outside = tmp_path_factory.mktemp("outside") / "secret.txt"
    outside.write_text("a private note that no model should be able to read")
    link = tmp_path / "innocent.txt"
    link.symlink_to(outside)
    for path in (outside, link, tmp_path / ".." / outside.parent.name / "secret.txt"):
        arguments = {
            "workspace_id": ws,
            "mutation_id": mid(),
            "path": str(path),
            "kind": "url_text",
        }
        with pytest.raises(ServiceError) as caught:
            await run(application, token, P + "evidence_upload", transport="stdio", **arguments)
        assert caught.value.code == "invalid_input" and caught.value.field == "path", path
        assert "upload roots" in caught.value.message
    inside = tmp_path / "note.txt"
    inside.write_text("A local note inside the upload root, read as plain text evidence.")
    arguments = {"workspace_id": ws, "mutation_id": mid(), "path": str(inside), "kind": "url_text"}
    data, _ = await run(application, token, P + "evidence_upload", transport="stdio", **arguments)
    assert data["retrieval"]["result"]["status"] == "ready"
    assert "inside the upload root" in data["retrieval"]["result"]["text"]
