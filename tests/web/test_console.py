"""The review console over ASGI: sessions, the permission check, escaping, headers, paging."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from sosoapi.application import Application
from sosoapi.auth.admin import Admin
from sosoapi.research.evidence.search import QUERY_RULES
from sosoapi.store.tables import console_sessions
from sosoapi.web import console_pages
from sosoapi.web.console import COOKIE
from tests.support.console import (
    HOSTILE_INSERT,
    HOSTILE_TEXT,
    HOSTILE_TITLE,
    HOSTILE_TITLE_2,
    HOSTILE_URL,
    OUTCOMES,
    Seeded,
    seed_retrievals,
)
from tests.support.origin import HTTPSOrigin, Route
from tests.web.conftest import console_app, sign_in

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)


class Page(HTMLParser):
    """Every element with its attributes, and the text a reader sees."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.chunks: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.chunks.append(data)

    @property
    def text(self) -> str:
        return "".join(self.chunks)

    @property
    def words(self) -> str:
        """The text with one space between elements, as a reader would read it."""
        return " ".join(" ".join(chunk.split()) for chunk in self.chunks if chunk.strip())

    def links(self) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.elements if tag == "a"]


class Inside(HTMLParser):
    """The text inside each `tag` element (e.g. every <del>); the text of each element of
    class `within` (e.g. the diff's text), and that text without what is inside `tag`."""

    def __init__(self, html: str, tag: str, within: str | None = None) -> None:
        super().__init__(convert_charrefs=True)
        self.tag, self.within = tag, within
        self.found: list[str] = []
        self.region: list[str] = []
        self.without: list[str] = []
        self._depth = 0  # inside `tag`
        self._region = 0  # element depth inside the `within` element
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._region:
            self._region += 1
        elif self.within and self.within in (dict(attrs).get("class") or "").split():
            self._region = 1
            self.region.append("")
            self.without.append("")
        if tag == self.tag:
            self._depth += 1
            self.found.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self.tag and self._depth:
            self._depth -= 1
        if self._region:
            self._region -= 1

    def handle_data(self, data: str) -> None:
        if self._depth:
            self.found[-1] += data
        if self._region:
            self.region[-1] += data
            if not self._depth:
                self.without[-1] += data


def assert_inert(html: str) -> Page:
    """No script, no handler attribute, every link ours or a plain http(s) source."""
    page = Page(html)
    for tag, attrs in page.elements:
        assert tag not in ("script", "iframe", "object", "embed", "base"), tag
        assert not [a for a in attrs if a.startswith("on")], (tag, attrs)
        assert "style" not in attrs, (tag, attrs)
    for attrs in page.links():
        href = attrs["href"] or ""
        if href.startswith(("http://", "https://")):
            assert attrs.get("rel") == "noopener noreferrer", attrs
        else:
            assert href.startswith(("/console", "?", "#")), attrs  # "#": a place on the page
    for tag, attrs in page.elements:
        if tag == "link":
            assert attrs["href"] in ("/console/console.css", "/console/favicon.svg")
    return page


async def get(client: httpx.AsyncClient, path: str, status: int = 200) -> str:
    response = await client.get(path)
    assert response.status_code == status, (path, response.status_code, response.text[:500])
    for name, value in (
        ("content-security-policy", CSP),
        ("x-frame-options", "DENY"),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "same-origin"),
    ):
        assert response.headers[name] == value, (path, name)
    return response.text


def stored_sessions(application: Application) -> list[Any]:
    with application.store.db.read() as conn:
        return list(conn.execute(sa.select(console_sessions)).all())


# --- sessions ---------------------------------------------------------------------------------


async def test_sign_in_sets_a_strict_httponly_cookie_and_stores_only_its_hash(
    application: Application, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, token = owner
    signed_out = await get(client, "/console")
    assert 'name="token"' in signed_out and "Sign in" in signed_out
    response = await sign_in(client, token)
    assert response.headers["location"] == "/console"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=")
    lowered = [part.strip().lower() for part in cookie.split(";")]
    assert "httponly" in lowered and "samesite=strict" in lowered and "path=/console" in lowered
    assert "secure" not in lowered  # plain http here; see the https test
    secret = client.cookies[COOKIE]
    rows = stored_sessions(application)
    assert len(rows) == 1
    assert rows[0].session_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in {str(v) for v in rows[0]._mapping.values()}
    home = assert_inert(await get(client, "/console"))
    assert f"/console/workspaces/{ws}" in [a["href"] for a in home.links()]


async def test_the_cookie_is_secure_over_https(
    application: Application, owner: tuple[str, str]
) -> None:
    transport = httpx.ASGITransport(app=console_app(application))
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as http:
        response = await sign_in(http, owner[1])
    assert "secure" in [p.strip().lower() for p in response.headers["set-cookie"].split(";")]


async def test_the_cookie_is_secure_behind_an_https_public_url(
    application: Application, owner: tuple[str, str]
) -> None:
    transport = httpx.ASGITransport(app=console_app(application, secure_cookie=True))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        response = await sign_in(http, owner[1])
    assert "secure" in [p.strip().lower() for p in response.headers["set-cookie"].split(";")]


async def test_a_bad_token_gets_the_form_again_and_no_session(
    application: Application, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    response = await client.post("/console/sign-in", data={"token": "sosoapi_wrong"})
    assert response.status_code == 401
    assert "token is unknown to this server" in response.text and 'name="token"' in response.text
    assert "set-cookie" not in response.headers
    empty = await client.post("/console/sign-in", data={"token": ""})
    assert empty.status_code == 401 and "No bearer token" in empty.text
    assert stored_sessions(application) == []


async def test_a_cross_site_sign_in_is_refused(
    application: Application, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    response = await client.post(
        "/console/sign-in", data={"token": owner[1]}, headers={"Origin": "https://evil.test"}
    )
    assert response.status_code == 403 and "another site" in response.text
    assert stored_sessions(application) == []


async def test_sign_out_needs_its_csrf_token_then_ends_the_session(
    application: Application, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, token = owner
    await sign_in(client, token)
    secret = client.cookies[COOKIE]
    page = Page(await get(client, f"/console/workspaces/{ws}"))
    csrf = next(a["value"] for t, a in page.elements if t == "input" and a.get("name") == "csrf")
    stale = await client.post("/console/sign-out", data={"csrf": "0" * 64})
    assert stale.status_code == 403 and "stale" in stale.text
    foreign = await client.post(
        "/console/sign-out", data={"csrf": csrf}, headers={"Origin": "https://evil.test"}
    )
    assert foreign.status_code == 403
    await get(client, f"/console/workspaces/{ws}")  # still signed in
    done = await client.post("/console/sign-out", data={"csrf": csrf})
    assert done.status_code == 303 and done.headers["location"] == "/console"
    assert COOKIE not in client.cookies
    assert stored_sessions(application)[0].revoked_at is not None
    client.cookies.set(COOKIE, secret)  # the old cookie, replayed
    again = await get(client, f"/console/workspaces/{ws}", 401)
    assert 'name="token"' in again


async def test_revoking_the_token_ends_its_sessions(
    application: Application, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, token = owner
    await sign_in(client, token)
    await get(client, f"/console/workspaces/{ws}")
    token_id = application.store.sessions.by_hash(
        hashlib.sha256(client.cookies[COOKIE].encode()).hexdigest()
    )[0].token_id
    assert application.store.auth.revoke_token(token_id, datetime.now(UTC))
    await get(client, f"/console/workspaces/{ws}", 401)


async def test_a_session_expires(application: Application, owner: tuple[str, str]) -> None:
    ws, token = owner
    now = [datetime.now(UTC)]
    app = console_app(application, session_seconds=60, clock=lambda: now[0])
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        response = await sign_in(http, token)
        assert "max-age=60" in response.headers["set-cookie"].lower()
        await get(http, f"/console/workspaces/{ws}")
        now[0] += timedelta(seconds=61)
        await get(http, f"/console/workspaces/{ws}", 401)


async def test_a_signed_out_link_signs_in_and_comes_back(
    owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, token = owner
    target = f"/console/workspaces/{ws}/retrievals?state=completed"
    form = Page(await get(client, target, 401))
    following = next(a["value"] for t, a in form.elements if a.get("name") == "next")
    assert following == target
    response = await client.post("/console/sign-in", data={"token": token, "next": following})
    assert response.headers["location"] == target
    away = await client.post(
        "/console/sign-in", data={"token": token, "next": "https://evil.test/console"}
    )
    assert away.headers["location"] == "/console"


# --- the permission check ---------------------------------------------------------------------


async def test_a_non_member_finds_nothing(
    application: Application, seeded: Seeded, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, _ = owner
    admin, now = Admin(application.store.auth), datetime.now(UTC)
    other_ws = application.store.auth.create_workspace("Other", now)
    stranger = admin.create_member(other_ws.id, "Stranger", "owner", now)
    await sign_in(client, admin.mint(stranger, now).token)
    home = Page(await get(client, "/console"))
    assert f"/console/workspaces/{ws}" not in [a["href"] for a in home.links()]
    evidence_id = seeded.plain["evidence"]["evidence_id"]
    for path in (
        f"/console/workspaces/{ws}",
        f"/console/workspaces/{ws}/retrievals",
        f"/console/workspaces/{ws}/retrievals/{seeded.plain['id']}",
        f"/console/workspaces/{ws}/evidence",
        f"/console/workspaces/{ws}/evidence/{evidence_id}",
        f"/console/workspaces/{ws}/projects/{seeded.project_id}",
        f"/console/workspaces/{ws}/corpora/{seeded.corpus_id}",
        f"/console/workspaces/{ws}/evidence/{evidence_id}/diff?from=1&to=2",
        f"/console/workspaces/{ws}/search",
        f"/console/workspaces/{ws}/search?q=plain",
        # their own workspace, someone else's ids: still nothing
        f"/console/workspaces/{other_ws.id}/evidence/{evidence_id}",
        f"/console/workspaces/{other_ws.id}/retrievals/{seeded.plain['id']}",
        f"/console/workspaces/{other_ws.id}/corpora/{seeded.corpus_id}",
        f"/console/workspaces/{other_ws.id}/evidence/{evidence_id}/diff?from=1&to=2",
        f"/console/workspaces/{other_ws.id}/search?q=plain&corpus={seeded.corpus_id}",
    ):
        text = await get(client, path, 404)
        assert "Plain reading" not in text and seeded.project_id not in Page(text).text


async def test_a_viewer_reads_everything(
    application: Application, seeded: Seeded, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, _ = owner
    admin, now = Admin(application.store.auth), datetime.now(UTC)
    viewer = admin.create_member(ws, "Viewer", "viewer", now)
    await sign_in(client, admin.mint(viewer, now).token)
    evidence = Page(
        await get(
            client, f"/console/workspaces/{ws}/evidence/{seeded.plain['evidence']['evidence_id']}"
        )
    )
    assert "Plain reading paragraph 0" in evidence.text


# --- escaping and the pages ------------------------------------------------------------------


async def test_hostile_strings_render_as_text_on_every_page(
    seeded: Seeded, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, token = owner
    await sign_in(client, token)
    base = f"/console/workspaces/{ws}"
    hostile_evidence = seeded.hostile["evidence"]["evidence_id"]
    pages = {
        path: assert_inert(await get(client, path))
        for path in (
            base,
            base + "/retrievals",
            base + f"/retrievals/{seeded.hostile['id']}",
            base + f"/retrievals/{seeded.unsafe['id']}",
            base + "/evidence",
            base + f"/evidence/{hostile_evidence}?revision=1",
            base + f"/evidence/{hostile_evidence}",
            base + "/projects",
            base + f"/projects/{seeded.project_id}",
            base + f"/corpora/{seeded.corpus_id}",
            base + f"/evidence/{hostile_evidence}/diff?from=1&to=2",
            base + "/search?q=onerror",
        )
    }
    evidence = pages[base + f"/evidence/{hostile_evidence}?revision=1"]
    assert HOSTILE_TITLE in evidence.text and HOSTILE_TEXT in evidence.text
    latest = pages[base + f"/evidence/{hostile_evidence}"]
    assert HOSTILE_TITLE_2 in latest.text and HOSTILE_INSERT in latest.text
    assert HOSTILE_TITLE in pages[base + f"/projects/{seeded.project_id}"].text
    assert HOSTILE_TITLE_2 in pages[base + "/evidence"].text
    unsafe = pages[base + f"/retrievals/{seeded.unsafe['id']}"]
    assert HOSTILE_URL in unsafe.text
    assert all(HOSTILE_URL not in (a["href"] or "") for a in unsafe.links())
    assert "unsafe_url" in unsafe.text
    corpus = pages[base + f"/corpora/{seeded.corpus_id}"]
    assert "/missing answered 404 <b>bold</b>" in corpus.text


async def test_the_evidence_page_shows_cues_with_times_and_links_revisions(
    seeded: Seeded, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, token = owner
    await sign_in(client, token)
    captions = seeded.captions["evidence"]
    page = assert_inert(
        await get(client, f"/console/workspaces/{ws}/evidence/{captions['evidence_id']}?revision=1")
    )
    assert "0:00:01.000 0:00:04.500 First cue here" in page.words
    assert "0:01:02.250 0:01:05.000 Second cue" in page.words
    await get(
        client, f"/console/workspaces/{ws}/evidence/{captions['evidence_id']}?revision=3", 404
    )
    bad = await get(
        client, f"/console/workspaces/{ws}/evidence/{captions['evidence_id']}?revision=x", 400
    )
    assert "`revision`" in bad


async def test_a_retrieval_links_to_its_evidence_and_a_corpus_to_each_pinned_revision(
    seeded: Seeded, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, token = owner
    await sign_in(client, token)
    base = f"/console/workspaces/{ws}"
    retrieval = Page(await get(client, f"{base}/retrievals/{seeded.plain['id']}"))
    ref = seeded.plain["evidence"]
    wanted = f"{base}/evidence/{ref['evidence_id']}?revision={ref['revision']}"
    assert wanted in [a["href"] for a in retrieval.links()]
    corpus = Page(await get(client, f"{base}/corpora/{seeded.corpus_id}"))
    pinned = [
        f"{base}/evidence/{r['evidence']['evidence_id']}?revision={r['evidence']['revision']}"
        for r in (seeded.plain, seeded.hostile, seeded.captions)
    ]
    hrefs = [a["href"] for a in corpus.links()]
    assert [h for h in hrefs if "/evidence/" in h] == pinned
    assert "partial" in corpus.text and "Revision 1 Project" in corpus.words


async def test_retrievals_filter_and_page_newest_first(
    application: Application, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, token = owner
    count = 130
    seed_retrievals(application.store, ws, count)
    await sign_in(client, token)
    base = f"/console/workspaces/{ws}/retrievals"

    async def walk(query: str) -> list[str]:
        seen, path = [], f"{base}?{query}"
        while path:
            page = Page(await get(client, path))
            seen += [
                a["href"].rsplit("/", 1)[1]
                for a in page.links()
                if "/retrievals/" in (a["href"] or "")
            ]
            nxt = [a["href"] for a in page.links() if a.get("rel") == "next"]
            path = (base + nxt[0][nxt[0].index("?") :]) if nxt else ""
        return seen

    everything = await walk("")
    with application.store.db.read() as conn:
        from sosoapi.store.tables import retrievals

        expected = [
            r.id
            for r in conn.execute(
                sa.select(retrievals.c.id)
                .where(retrievals.c.workspace_id == ws)
                .order_by(retrievals.c.created_at.desc(), retrievals.c.id.desc())
            )
        ]
    assert everything == expected and len(everything) == count
    blocked = await walk("status=blocked")
    assert len(blocked) == sum(1 for i in range(count) if OUTCOMES[i % 5][1] == "blocked")
    assert blocked == [
        e for i, e in enumerate(everything) if OUTCOMES[(count - 1 - i) % 5][1] == "blocked"
    ]
    timeouts = await walk("state=completed&reason=timeout")
    assert len(timeouts) == count // 5
    assert await walk("state=expired&status=ready") == []
    refused = await get(client, f"{base}?reason=nonsense", 400)
    assert "`reason`" in refused and "unsafe_url" in refused
    forged = await get(client, f"{base}?cursor=not-ours", 400)
    assert "`cursor`" in forged


# --- comparing revisions ---------------------------------------------------------------------


async def _tool(application: Application, token: str, name: str, **arguments: Any) -> dict:
    outcome = await application.research.call(f"sosoapi_research_{name}", token, arguments)
    return outcome.output.wire()


async def test_the_diff_page_marks_each_change_in_context(
    application: Application, seeded: Seeded, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, token = owner
    await sign_in(client, token)
    base = f"/console/workspaces/{ws}/evidence"
    plain = seeded.plain["evidence"]["evidence_id"]
    evidence = Page(await get(client, f"{base}/{plain}?revision=1"))
    assert f"{base}/{plain}/diff?from=1&to=2" in [a["href"] for a in evidence.links()]

    for old, new in ((1, 2), (2, 1)):
        html = await get(client, f"{base}/{plain}/diff?from={old}&to={new}")
        page = assert_inert(html)
        diff = await _tool(
            application,
            token,
            "evidence_diff",
            workspace_id=ws,
            evidence_id=plain,
            from_revision=old,
            to_revision=new,
        )
        changes = diff["changes"]
        assert Inside(html, "del").found == [c["from_text"] for c in changes if c["from_text"]]
        assert Inside(html, "ins").found == [c["to_text"] for c in changes if c["to_text"]]
        stats = diff["stats"]
        assert f"Characters added {stats['chars_added']}" in page.words
        assert f"Characters removed {stats['chars_removed']}" in page.words
        assert f"Unchanged {stats['unchanged_ratio'] * 100:.1f} %" in page.words
        assert "Title unchanged Description unchanged" in page.words
        assert "Caption cues" not in page.text
    [text] = Inside(html, "del", within="diff").region
    assert "paragraph 2 has several plain words" in text  # context before the change
    assert "paragraph 4 has several plain words" in text  # and after it
    # the last page ran from 2 back to 1: the revised words are the removed ones
    assert {"now", "two", "revised"} <= set(" ".join(Inside(html, "del").found).split())
    assert "several" in " ".join(Inside(html, "ins").found)

    same = Page(await get(client, f"{base}/{plain}/diff?from=2&to=2"))
    assert "The text is the same in both revisions." in same.text
    assert "`to`" in await get(client, f"{base}/{plain}/diff?from=1", 400)
    assert "`from`" in await get(client, f"{base}/{plain}/diff?from=x&to=2", 400)
    await get(client, f"{base}/{plain}/diff?from=1&to=3", 404)
    await get(client, f"{base}/{uuid.uuid4()}/diff?from=1&to=2", 404)


async def test_the_diff_page_shows_cue_changes_and_hostile_text_as_text(
    seeded: Seeded, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, token = owner
    await sign_in(client, token)
    base = f"/console/workspaces/{ws}/evidence"
    captions = Page(
        await get(client, f"{base}/{seeded.captions['evidence']['evidence_id']}/diff?from=1&to=2")
    )
    for row in (
        "retimed #1, 0:00:01.000 to 0:00:04.500 #1, 0:00:01.500 to 0:00:05.000 First cue here",
        "removed #2, 0:01:02.250 to 0:01:05.000 Second cue",
        "added #2, 0:01:10.000 to 0:01:12.000 Third cue <script>alert(11)</script>",
    ):
        assert row in captions.words, captions.words

    html = await get(client, f"{base}/{seeded.hostile['evidence']['evidence_id']}/diff?from=1&to=2")
    page = assert_inert(html)
    deleted, inserted = Inside(html, "del").found, Inside(html, "ins").found
    assert deleted[:2] == [HOSTILE_TITLE, HOSTILE_TITLE]  # title, then description
    assert inserted[:2] == [HOSTILE_TITLE_2, HOSTILE_TITLE_2]
    [new_text] = Inside(html, "del", within="diff").without
    [old_text] = Inside(html, "ins", within="diff").without
    assert HOSTILE_INSERT in new_text and HOSTILE_INSERT not in old_text
    assert f"{HOSTILE_TEXT} paragraph 2" in old_text
    assert f"{HOSTILE_TEXT} paragraph 3" in new_text  # the unchanged text around it
    assert f"Changes in {HOSTILE_TITLE_2}" in page.words


# --- search -------------------------------------------------------------------------------------


async def test_search_finds_marks_filters_and_pages(
    application: Application,
    seeded: Seeded,
    owner: tuple[str, str],
    client: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ws, token = owner
    await sign_in(client, token)
    base = f"/console/workspaces/{ws}"
    form = assert_inert(await get(client, base + "/search"))
    assert ("ol", {"class": "results"}) not in form.elements
    assert QUERY_RULES in form.text  # what the search does, said as the code says it
    assert {"href": base + "/search", "aria-current": "page"} in form.links()

    async def search(**arguments: Any) -> list[dict]:
        found = await _tool(application, token, "evidence_search", workspace_id=ws, **arguments)
        return found["results"]

    # each result as the tool ranks it, linking to that revision, one a page
    expected = await search(query="paragraph", limit=50)
    assert len(expected) == 2
    monkeypatch.setattr(console_pages, "SEARCH_PAGE_SIZE", 1)
    seen, path = [], base + "/search?q=paragraph"
    while path:
        page = assert_inert(await get(client, path))
        seen += [a["href"] for a in page.links() if "/evidence/" in (a["href"] or "")]
        following = [a["href"] or "" for a in page.links() if a.get("rel") == "next"]
        path = following[0] if following else ""
    assert seen == [
        f"{base}/evidence/{r['evidence_id']}?revision={r['revision']}" for r in expected
    ]
    monkeypatch.undo()

    # snippets are the evidence's own text; query words marked, everything escaped
    html = await get(client, base + "/search?q=img+onerror")
    page = assert_inert(html)
    [hostile] = await search(query="img onerror")
    snippets = [s["text"] for s in hostile["snippets"]]
    assert Inside(html, "mark", within="snippet").region == snippets
    assert any(HOSTILE_TEXT in s for s in snippets)
    marks = Inside(html, "mark").found
    assert marks and {m.lower() for m in marks} == {"img", "onerror"}
    assert hostile["source_url"] in [a["href"] for a in page.links()]
    assert HOSTILE_TITLE_2 in page.text and f"score {hostile['score']:.3f}" in page.words

    # kind and corpus: the corpus pins revision 1, where the second cue still is
    talk = seeded.captions["evidence"]["evidence_id"]
    cue = Page(await get(client, base + "/search?q=cue&kind=published_captions"))
    assert f"{base}/evidence/{talk}?revision=2" in [a["href"] for a in cue.links()]
    assert "Nothing matches" in await get(client, base + "/search?q=cue&kind=url_text")
    assert "Nothing matches" in await get(client, base + "/search?q=second")
    pinned = Page(await get(client, base + f"/search?q=second&corpus={seeded.corpus_id}"))
    assert f"{base}/evidence/{talk}?revision=1" in [a["href"] for a in pinned.links()]
    assert "0:01:02.250 Second cue" in pinned.words

    for query, field in (("!!!", "`query`"), ("a&cursor=forged", "`cursor`")):
        refused = Page(await get(client, f"{base}/search?q={query}", 400))
        assert field in refused.text
        assert (
            "input",
            {
                "id": "s-q",
                "name": "q",
                "type": "search",
                "size": "40",
                "maxlength": "500",
                "value": query.split("&")[0],
            },
        ) in refused.elements
    assert "kind" in await get(client, base + "/search?q=a&kind=bogus", 400)


async def test_the_stylesheet_is_served_from_the_package(client: httpx.AsyncClient) -> None:
    response = await client.get("/console/console.css")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/css")
    assert "url(" not in response.text and "@import" not in response.text


@pytest.mark.parametrize(
    "hostile",
    ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,x", "//evil.test/x", ""],
)
def test_only_http_sources_become_links(hostile: str) -> None:
    from sosoapi.web.console import source_href

    assert source_href(hostile) is None
    assert source_href("https://example.com/a?b=1") == "https://example.com/a?b=1"


async def test_the_evidence_page_shows_the_whole_text_of_a_long_source(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, client: httpx.AsyncClient
) -> None:
    """A 120,000-character article: the page joins every window, to the last sentence."""
    from tests.support.long_sources import LAST_SENTENCE, article_html

    ws, token = owner
    origin.routes["/long"] = Route(article_html())
    outcome = await application.research.call(
        "sosoapi_research_evidence_retrieve",
        token,
        {"workspace_id": ws, "url": origin.url("/long"), "kind": "url_text",
         "mutation_id": str(uuid.uuid4())},
    )  # fmt: skip
    evidence_id = outcome.output.wire()["retrieval"]["evidence"]["evidence_id"]
    await sign_in(client, token)
    shown = Page(await get(client, f"/console/workspaces/{ws}/evidence/{evidence_id}")).text
    assert "Section 1." in shown and LAST_SENTENCE in shown


async def test_pages_name_what_their_ids_stand_for(
    seeded: Seeded, owner: tuple[str, str], client: httpx.AsyncClient, application: Application
) -> None:
    """Titles, source URLs and kinds beside evidence ids; corpora named by their project;
    a corpus revision switcher; times a person reads with the exact time on hover."""
    ws, token = owner
    await sign_in(client, token)
    base = f"/console/workspaces/{ws}"
    plain_url = seeded.plain["result"]["provenance"]["source_url"]
    talk_url = seeded.captions["result"]["provenance"]["source_url"]
    project = Page(await get(client, f"{base}/projects/{seeded.project_id}"))
    assert "Plain reading" in project.words and plain_url in project.words
    assert "published captions" in project.words.lower() and talk_url in project.words
    assert_inert(await get(client, f"{base}/projects/{seeded.project_id}"))

    corpora = Page(await get(client, f"{base}/corpora"))
    assert f"Corpus of {HOSTILE_TITLE}" in corpora.text  # escaped, as text
    assert seeded.corpus_id in corpora.text
    again = await application.research.call(
        "sosoapi_research_corpora_seal",
        token,
        {
            "workspace_id": ws,
            "mutation_id": str(uuid.uuid4()),
            "project_id": seeded.project_id,
            "corpus_id": seeded.corpus_id,
        },
    )
    assert again.corpus_revision == 2
    html = await get(client, f"{base}/corpora/{seeded.corpus_id}?revision=1")
    corpus = assert_inert(html)
    assert "revision 1 of 2" in corpus.words and "Plain reading" in corpus.words
    options = [a for tag, a in corpus.elements if tag == "option"]
    assert [o["value"] for o in options] == ["2", "1"]
    assert [o["value"] for o in options if "selected" in o] == ["1"]
    times = [a for tag, a in corpus.elements if tag == "time"]
    assert times and all(t["title"].endswith(" UTC") and t["datetime"].endswith("Z") for t in times)
    assert "ago" in corpus.words or "just now" in corpus.words


async def test_retrievals_filter_by_url_text_and_the_favicon(
    seeded: Seeded, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, token = owner
    await sign_in(client, token)
    base = f"/console/workspaces/{ws}/retrievals"
    narrowed = Page(await get(client, f"{base}?q=talk.vtt"))
    shown = {a["href"].rsplit("/", 1)[1] for a in narrowed.links() if "/retrievals/" in a["href"]}
    assert shown == {seeded.captions["id"], seeded.revised["captions"]["id"]}
    box = [a for tag, a in narrowed.elements if tag == "input" and a.get("name") == "q"]
    assert box and box[0]["value"] == "talk.vtt"
    none = Page(await get(client, f"{base}?q=%25"))  # a LIKE wildcard is text, not a pattern
    assert not [a for a in none.links() if "/retrievals/" in (a["href"] or "")]
    icon = await client.get("/console/favicon.svg")
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
    assert icon.content.startswith(b"<svg")


async def test_evidence_links_back_to_the_projects_and_corpora_that_use_it(
    seeded: Seeded, owner: tuple[str, str], client: httpx.AsyncClient
) -> None:
    ws, token = owner
    await sign_in(client, token)
    base = f"/console/workspaces/{ws}"
    ref = seeded.plain["evidence"]
    html = await get(client, f"{base}/evidence/{ref['evidence_id']}?revision=2")
    page = assert_inert(html)
    hrefs = [a["href"] for a in page.links()]
    assert f"{base}/projects/{seeded.project_id}" in hrefs
    assert f"{base}/corpora/{seeded.corpus_id}?revision=1" in hrefs
    assert f"{base}/evidence/{ref['evidence_id']}?revision=1" in hrefs  # the pinned one
    assert f"project {HOSTILE_TITLE}" in page.words and "pinning revision 1" in page.words
