"""A workspace worth reviewing, built through the tools, and bulk retrievals for paging.

`seed_review` reads a plain page, a hostile page, a caption file and a missing page, puts
them in a project with a note for the missing one, and seals a corpus; then the three
sources change and are read again, so each evidence has a revision 2 to compare with the
revision 1 the corpus pins: everything the console shows, made the way an agent makes it.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sosoapi.application import Application
from sosoapi.auth.admin import Admin
from sosoapi.config import Settings
from sosoapi.store.store import Store
from sosoapi.store.tables import mutations, retrievals
from tests.support.loop import Caller, page
from tests.support.origin import HTTPSOrigin, Route
from tests.support.results import page_result

P = "sosoapi_research_"
HOSTILE_TITLE = '<script>alert("title")</script>"onerror=alert(1) x'
HOSTILE_TEXT = "<img src=x onerror=alert(2)> and javascript:alert(3) and </div><script>alert(4)"
HOSTILE_URL = "javascript:alert(5)"
# the hostile page's second reading: another title, and a paragraph turned into markup
HOSTILE_TITLE_2 = '"onerror=alert(6) <img src=x onerror=alert(7)> javascript:alert(8)'
HOSTILE_INSERT = "<script>alert(9)</script> javascript:alert(10)"
VTT = (
    b"WEBVTT\n\n00:00:01.000 --> 00:00:04.500\nFirst cue <b>here</b>\n\n"
    b"00:01:02.250 --> 00:01:05.000\nSecond cue\n"
)
# captions read again: the first cue retimed, the second gone, a hostile third added
VTT_2 = (
    b"WEBVTT\n\n00:00:01.500 --> 00:00:05.000\nFirst cue <b>here</b>\n\n"
    b"00:01:10.000 --> 00:01:12.000\nThird cue &lt;script&gt;alert(11)&lt;/script&gt;\n"
)
PLAIN_CHANGE = ("paragraph 3 has several plain", "paragraph 3 now has two revised")


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def hostile_page(title_text: str = HOSTILE_TITLE, insert: str | None = None) -> bytes:
    title, text = _escaped(title_text), _escaped(HOSTILE_TEXT)
    paragraphs = "".join(
        f"<p>{_escaped(insert) if insert and i == 2 else text} paragraph {i} of plain words "
        "here.</p>"
        for i in range(6)
    )
    return (
        "<html lang='en'><head>"
        f"<title>{title}</title>"
        f'<meta name="description" content="{title.replace(chr(34), "&quot;")}">'
        "<script>window.ran = true</script></head>"
        f"<body><article>{paragraphs}</article></body></html>"
    ).encode()


@dataclass(frozen=True)
class Seeded:
    plain: dict[str, Any]
    hostile: dict[str, Any]
    captions: dict[str, Any]
    missing: dict[str, Any]
    unsafe: dict[str, Any]
    project_id: str
    corpus_id: str
    revised: dict[str, dict[str, Any]]  # "plain", "hostile", "captions": the second reading


async def seed_review(call: Caller, origin: HTTPSOrigin, ws: str) -> Seeded:
    async def tool(name: str, **arguments: Any) -> dict:
        data, _ = await call(P + name, {"workspace_id": ws, **arguments})
        return data

    async def retrieve(url: str, kind: str = "url_text") -> dict:
        data = await tool("evidence_retrieve", url=url, kind=kind, mutation_id=str(uuid.uuid4()))
        return data["retrieval"]

    origin.routes["/plain"] = Route(page("Plain reading"))
    origin.routes["/hostile"] = Route(hostile_page())
    origin.routes["/talk.vtt"] = Route(VTT, content_type="text/vtt")
    plain = await retrieve(origin.url("/plain"))
    hostile = await retrieve(origin.url("/hostile"))
    captions = await retrieve(origin.url("/talk.vtt"), "published_captions")
    missing = await retrieve(origin.url("/missing"))
    unsafe = await retrieve(HOSTILE_URL)
    ids = [r["evidence"]["evidence_id"] for r in (plain, hostile, captions)]
    project = await tool("projects_create", mutation_id=str(uuid.uuid4()), title=HOSTILE_TITLE)
    project_id = project["project"]["id"]
    await tool(
        "projects_add_sources",
        mutation_id=str(uuid.uuid4()),
        project_id=project_id,
        evidence_ids=ids,
        missing_notes=["/missing answered 404 <b>bold</b>"],
    )
    sealed = await tool("corpora_seal", mutation_id=str(uuid.uuid4()), project_id=project_id)
    origin.routes["/plain"] = Route(page("Plain reading").replace(*map(str.encode, PLAIN_CHANGE)))
    origin.routes["/hostile"] = Route(hostile_page(HOSTILE_TITLE_2, HOSTILE_INSERT))
    origin.routes["/talk.vtt"] = Route(VTT_2, content_type="text/vtt")
    revised = {
        "plain": await retrieve(origin.url("/plain")),
        "hostile": await retrieve(origin.url("/hostile")),
        "captions": await retrieve(origin.url("/talk.vtt"), "published_captions"),
    }
    for first, again in zip((plain, hostile, captions), revised.values(), strict=True):
        assert again["evidence"] == {**first["evidence"], "revision": 2}, again
    corpus_id = sealed["snapshot"]["id"]
    return Seeded(plain, hostile, captions, missing, unsafe, project_id, corpus_id, revised)


OUTCOMES = (
    ("completed", "ready", None),
    ("completed", "unavailable", "timeout"),
    ("completed", "blocked", "unsafe_url"),
    ("completed", "empty", "not_found"),
    ("expired", None, None),
)


def seed_retrievals(store: Store, ws: str, count: int, start: datetime | None = None) -> None:
    """`count` settled retrievals, one second apart, cycling through `OUTCOMES`."""
    start = start or datetime(2026, 1, 1, tzinfo=UTC)
    keys, rows = [], []
    for i in range(count):
        state, status, reason = OUTCOMES[i % len(OUTCOMES)]
        at = start + timedelta(seconds=i)
        mutation_id = str(uuid.uuid4())
        result = None
        if status is not None:
            result = page_result(
                "" if reason else f"text {i}",
                source_url=f"https://example.com/{i}",
                retrieved_at=at,
                status=status,
                reason=reason,
            ).model_dump_json()
        keys.append(
            {
                "workspace_id": ws,
                "mutation_id": mutation_id,
                "tool": P + "evidence_retrieve",
                "fingerprint": "0" * 64,
                "arguments": json.dumps({"n": i}),
                "token_id": None,
                "result": None,
                "created_at": at,
            }
        )
        rows.append(
            {
                "id": str(uuid.uuid4()),
                "workspace_id": ws,
                "mutation_id": mutation_id,
                "kind": "url_text",
                "url": f"https://example.com/{i}",
                "language": None,
                "state": state,
                "created_at": at,
                "settled_at": at,
                "valid_until": at + timedelta(days=1),
                "result": result,
                "status": status,
                "reason": reason,
                "source": "url",
            }
        )
    with store.db.write() as conn:
        conn.execute(mutations.insert(), keys)
        conn.execute(retrievals.insert(), rows)


def seed_workspace(
    env: Mapping[str, str], origin: HTTPSOrigin, retrievals: int
) -> tuple[str, str, Seeded]:
    """(workspace_id, owner token, what was seeded) in the store `env` names: the review
    workspace plus `retrievals` bulk rows, for the bench and the screenshots."""
    app = Application(Settings.from_env(env))
    workspace, minted = Admin(app.store.auth).init_local(datetime.now(UTC))

    async def build() -> Seeded:
        async def call(tool: str, arguments: dict[str, Any]) -> tuple[dict, int | None]:
            outcome = await app.research.call(tool, minted.token, arguments)
            return outcome.output.wire(), outcome.corpus_revision

        async with app.running():
            return await seed_review(call, origin, workspace.id)

    seeded = asyncio.run(build())
    seed_retrievals(app.store, workspace.id, retrievals)
    app.store.close()
    return workspace.id, minted.token, seeded
