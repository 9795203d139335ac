"""The console in a real browser: Debian's chromium driven by Playwright.

A reviewer signs in, opens a retrieval and follows it to its evidence, compares two of its
revisions, searches and opens a result, opens a corpus and follows a pinned revision to a
hostile page and its changes; hostile text renders as text and runs nothing; no request
leaves the server's origin; axe-core finds no serious or critical accessibility problem.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Page, Route, async_playwright

from sosoapi.contract.schemas import all_tools
from sosoapi.testing.processes import shared_verify
from tests.support.browser import launch_options, need_chromium
from tests.support.console import (
    HOSTILE_INSERT,
    HOSTILE_TEXT,
    HOSTILE_TITLE,
    HOSTILE_TITLE_2,
    HOSTILE_URL,
    Seeded,
    seed_review,
)
from tests.support.origin import HTTPSOrigin
from tests.support.services import ServeProcess

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def _chromium() -> Iterator[None]:
    need_chromium()
    yield


@pytest.fixture
async def review(
    served: ServeProcess, initialised: dict[str, str], origin: HTTPSOrigin
) -> tuple[Seeded, str]:
    operations = {n: c["api_operation"] for n, c in all_tools().items() if "api_operation" in c}
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    async with httpx.AsyncClient(
        base_url=served.base, headers=headers, timeout=30, verify=shared_verify()
    ) as http:

        async def call(tool: str, arguments: dict[str, Any]) -> tuple[dict, int | None]:
            response = await http.post(operations[tool], json=arguments)
            assert response.status_code == 200, response.text
            return response.json(), None

        return await seed_review(call, origin, initialised["WORKSPACE_ID"]), served.base


class Watch:
    """What the page did that it should not: requests elsewhere, dialogs, console errors."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.foreign: list[str] = []
        self.served: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []

    async def route(self, route: Route) -> None:
        url = route.request.url
        if url == self.base or url.startswith(self.base + "/"):
            self.served.append(url)
            await route.continue_()
        else:
            self.foreign.append(url)
            await route.abort()


@pytest.fixture
async def browser_page(review: tuple[Seeded, str]) -> AsyncIterator[tuple[Page, Watch]]:
    _, base = review
    watch = Watch(base)
    async with async_playwright() as p:
        browser = await p.chromium.launch(**launch_options())
        context = await browser.new_context(base_url=base)
        await context.route("**/*", watch.route)
        page = await context.new_page()
        page.set_default_timeout(15_000)
        page.on("dialog", lambda d: watch.dialogs.append(d.message))
        page.on("console", lambda m: watch.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: watch.errors.append(str(e)))
        try:
            yield page, watch
        finally:
            await browser.close()


async def accessible(page: Page) -> None:
    """axe-core (shipped inside axe-playwright-python) on the page as it stands."""
    results = await Axe().run(page)
    bad = [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert bad == [], (page.url, bad)


@pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)
async def test_a_reviewer_follows_a_retrieval_and_a_corpus_in_chromium(
    review: tuple[Seeded, str],
    browser_page: tuple[Page, Watch],
    initialised: dict[str, str],
) -> None:
    seeded, base = review
    page, watch = browser_page
    ws = initialised["WORKSPACE_ID"]

    await page.goto("/console")
    await accessible(page)
    await page.get_by_label("Token").fill(initialised["SOSOAPI_TOKEN"])
    await page.get_by_role("button", name="Sign in").click()
    await page.get_by_role("heading", name="Your workspaces").wait_for()
    await page.locator(f"a[href='/console/workspaces/{ws}']").click()
    await page.get_by_role("heading", name="Workspace overview").wait_for()
    await accessible(page)

    # a retrieval, then its evidence
    await (
        page.get_by_role("navigation", name="Workspace")
        .get_by_role("link", name="Retrievals")
        .click()
    )
    await page.get_by_role("heading", name="Retrievals").wait_for()
    await accessible(page)
    await page.locator(f"a[href$='/retrievals/{seeded.plain['id']}']").click()
    await page.get_by_role("heading", name=f"Retrieval {seeded.plain['id']}").wait_for()
    await accessible(page)
    ref = seeded.plain["evidence"]
    await page.get_by_role("link", name=f"{ref['evidence_id']} revision {ref['revision']}").click()
    assert page.url == (
        f"{base}/console/workspaces/{ws}/evidence/{ref['evidence_id']}?revision={ref['revision']}"
    )
    assert "Plain reading paragraph 0" in await page.locator(".text").inner_text()
    await accessible(page)

    # compare its revisions: the link in the revision list, then the form the other way
    evidence_page = f"/console/workspaces/{ws}/evidence/{ref['evidence_id']}"
    await page.get_by_role("link", name="compare with revision 1").click()
    await page.wait_for_url(f"{base}{evidence_page}/diff?from=1&to=2")
    await page.get_by_role("heading", name="Changes in Plain reading").wait_for()
    assert "several" in await page.locator(".diff del").all_inner_texts()
    assert "revised" in await page.locator(".diff ins").all_inner_texts()
    await accessible(page)
    await page.get_by_label("Compare revision").select_option("2")
    await page.get_by_label("with revision").select_option("1")
    await page.get_by_role("button", name="Compare").click()
    await page.wait_for_url(f"{base}{evidence_page}/diff?from=2&to=1")
    assert "revised" in await page.locator(".diff del").all_inner_texts()

    # search, then open a result at the revision it was found in
    await (
        page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Search").click()
    )
    await page.get_by_role("heading", name="Search").wait_for()
    await accessible(page)
    await page.get_by_label("Words").fill("plain paragraph")
    await page.get_by_role("button", name="Search").click()
    await page.wait_for_url("**/search?q=plain+paragraph**")
    results = page.locator("ol.results > li")
    assert await results.count() == 2
    assert {m.lower() for m in await page.locator("mark").all_inner_texts()} == {
        "plain",
        "paragraph",
    }
    await accessible(page)
    await results.first.get_by_role("heading").get_by_role("link").click()
    await page.wait_for_url("**/evidence/*?revision=2")
    await page.get_by_role("heading", name="Plain reading").wait_for()
    await page.goto(f"/console/workspaces/{ws}/search?q=img+onerror")
    assert HOSTILE_TITLE_2 in await page.locator("ol.results h2").inner_text()
    assert await page.evaluate("document.querySelectorAll('script, img, iframe').length") == 0

    # the failed reads, filtered
    await page.goto(f"/console/workspaces/{ws}/retrievals")
    failed = seeded.missing["result"]
    await page.get_by_label("Reason").select_option(failed["reason"])
    await page.get_by_role("button", name="Filter").click()
    await page.wait_for_url(f"**/retrievals?**reason={failed['reason']}**")
    rows = page.locator("table.retrievals tbody tr")
    assert await rows.count() == 1
    assert failed["status"] in await rows.inner_text()
    assert seeded.missing["id"] in await rows.locator("a").first.get_attribute("href")

    # a corpus, then a pinned revision: the hostile page, as text
    await (
        page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Corpora").click()
    )
    # a corpus is named by its project; pinned evidence by its title, source and kind
    await page.get_by_role("link", name=f"Corpus of {HOSTILE_TITLE}").click()
    await page.get_by_role("heading", name=f"Corpus of {HOSTILE_TITLE}").wait_for()
    assert seeded.corpus_id in await page.locator("p.lead").inner_text()
    await accessible(page)
    pinned = seeded.hostile["evidence"]
    await page.locator(
        f"a[href$='/evidence/{pinned['evidence_id']}?revision={pinned['revision']}']"
    ).click()
    await page.locator("h1").wait_for()
    assert await page.locator("h1").inner_text() == HOSTILE_TITLE
    assert HOSTILE_TEXT in await page.locator(".text").inner_text()
    assert await page.evaluate("document.querySelectorAll('script, img, iframe').length") == 0
    assert await page.evaluate("typeof window.ran") == "undefined"
    await accessible(page)

    # and what changed in it since: hostile old and new text, as text
    await page.get_by_role("link", name="compare with revision 1").click()
    await page.get_by_role("heading", name=f"Changes in {HOSTILE_TITLE_2}").wait_for()
    assert HOSTILE_TITLE in await page.locator("dl.facts del").first.inner_text()
    new_text = await page.evaluate(
        "(() => { const d = document.querySelector('.diff').cloneNode(true);"
        " d.querySelectorAll('del').forEach(e => e.remove()); return d.textContent; })()"
    )
    assert HOSTILE_INSERT in new_text
    assert await page.evaluate("document.querySelectorAll('script, img, iframe').length") == 0
    await accessible(page)

    # an unsafe URL stays text
    await page.goto(f"/console/workspaces/{ws}/retrievals/{seeded.unsafe['id']}")
    assert HOSTILE_URL in await page.locator("dl.facts").inner_text()
    hrefs = await page.eval_on_selector_all("a", "links => links.map(a => a.href)")
    assert not [h for h in hrefs if not h.startswith(("http://", "https://"))]
    assert not [h for h in hrefs if "javascript" in h.lower()]

    # and out again
    await page.get_by_role("button", name="Sign out").click()
    await page.get_by_role("heading", name="Sign in").wait_for()
    await page.goto(f"/console/workspaces/{ws}")
    await page.get_by_role("heading", name="Sign in").wait_for()

    assert any(u.endswith("/console/console.css") for u in watch.served)  # the watch watched
    assert watch.foreign == []
    assert watch.dialogs == []
    assert [e for e in watch.errors if "401" not in e] == []
