"""/docs and /redoc render with no network but this server's; Swagger UI signs in through
the OAuth flow (consent page in a popup) and runs a call; the OpenAPI document declares
the bearer and OAuth schemes on every operation that needs a token."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import httpx
import pytest

from sosoapi.testing.processes import shared_verify
from tests.support.browser import browser_page
from tests.support.services import ServeProcess

# SQLite only: the pages are the subject. The module's tests share its server.
pytestmark = [pytest.mark.slow, pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)]
ASSET = re.compile(r'(?:src|href)="([^"]+)"')


def test_openapi_declares_security_on_every_operation(served: ServeProcess) -> None:
    document = httpx.get(f"{served.base}/openapi.json", verify=shared_verify()).json()
    schemes = document["components"]["securitySchemes"]
    assert schemes["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": schemes["bearer"]["description"],
    }
    flow = schemes["oauth"]["flows"]["authorizationCode"]
    assert flow["authorizationUrl"] == f"{served.base}/authorize"
    assert flow["tokenUrl"] == f"{served.base}/token"
    for path, item in document["paths"].items():
        for operation in item.values():
            if path.startswith("/research-api/"):
                assert operation["security"] == [{"bearer": []}, {"oauth": ["agent:research"]}]
            else:
                assert "security" not in operation, path


def test_docs_pages_reference_only_this_server(served: ServeProcess) -> None:
    for page in ("/docs", "/redoc", "/docs/oauth2-redirect"):
        html = httpx.get(served.base + page, verify=shared_verify()).text
        for url in ASSET.findall(html):
            assert not urlsplit(url).netloc, f"{page} loads {url}"
        assert "googleapis" not in html and "cdn." not in html
        for url in ASSET.findall(html):
            assert httpx.get(served.base + url, verify=shared_verify()).status_code == 200, url


async def test_redoc_renders_offline(served: ServeProcess) -> None:
    async with browser_page() as page:
        outside = await only_this_server(page, served.base)
        await page.goto(f"{served.base}/redoc")
        title = page.locator("h1").filter(has_text="SosoAPI Research")
        await title.wait_for(timeout=60_000)
        assert await page.get_by_text("/research-api/whoami", exact=True).count() >= 1
    assert outside == []


async def test_swagger_signs_in_with_oauth_and_runs_a_call(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    async with browser_page() as page:
        outside = await only_this_server(page, served.base)
        await page.goto(f"{served.base}/docs")
        await page.click("button.authorize", timeout=60_000)
        oauth = page.locator(".auth-container").filter(has_text="authorizationCode")
        await oauth.locator("input[type=checkbox]").first.check()
        async with page.expect_popup() as opened:
            await oauth.locator("button.authorize").click()
        consent = await opened.value
        await consent.wait_for_selector("input[name=token]")
        assert "API docs (Swagger UI)" in await consent.inner_text("h1")
        await consent.fill("input[name=token]", initialised["SOSOAPI_TOKEN"])
        await consent.click("button[name=decision][value=approve]")
        signed_in = oauth.locator("button[aria-label='Remove authorization']")
        await signed_in.wait_for(timeout=60_000)  # the code was exchanged for a token
        await page.locator("button.btn-done").first.click()

        path = page.locator(".opblock-summary-path", has_text="/research-api/whoami")
        operation = page.locator(".opblock").filter(has=path)
        await operation.locator(".opblock-summary").click()
        await operation.locator("button.try-out__btn").click()
        async with page.expect_response(lambda r: r.url.endswith("/research-api/whoami")) as sent:
            await operation.locator("button.execute").click()
        answer = await sent.value
        assert answer.status == 200
        assert (await answer.json())["workspaces"][0]["id"] == initialised["WORKSPACE_ID"]
        assert (await answer.request.header_value("authorization") or "").startswith("Bearer ")
    assert outside == []


async def only_this_server(page, base: str) -> list[str]:
    """Abort and record every request that leaves this server (the page must not need one)."""
    outside: list[str] = []

    async def guard(route) -> None:
        url = route.request.url
        if url.startswith(base) or url.startswith("data:") or url.startswith("blob:"):
            await route.continue_()
        else:
            outside.append(url)
            await route.abort()

    await page.context.route("**/*", guard)
    return outside
