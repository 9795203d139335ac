"""A redirect is evidence: a read sent from a specific item to its site's home page settles
`unavailable` / `not_found`, judged from the chain egress followed (issue 38, item 2).

Over real HTTPS from the loopback origin, on SQLite and PostgreSQL; the landing page is a
real article page (tests/data/pages), so its own text would read as `ready`.
"""

from __future__ import annotations

from sosoapi.application import Application
from tests.support.calls import args, call
from tests.support.hostile import redirect_to
from tests.support.origin import HTTPSOrigin, Route


async def test_an_item_redirected_to_the_home_page_is_not_found(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    workspace_id, token = owner
    home = next(iter(pages.values()))
    origin.routes["/"] = Route(home)
    origin.routes["/en/"] = Route(home)
    origin.routes["/news/2019/05/council-votes-on-bridge"] = redirect_to(origin.url("/"), 301)
    origin.routes["/watch"] = redirect_to(origin.url("/en/"))
    for path in ("/news/2019/05/council-votes-on-bridge", "/watch?v=gone123"):
        receipt = await call(application, token, args(workspace_id, origin.url(path)))
        result = receipt["result"]
        assert (result["status"], result["reason"]) == ("unavailable", "not_found"), path
        assert result["text"] == "" and receipt["evidence"] is None


async def test_a_moved_item_and_the_home_page_itself_stay_ready(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    workspace_id, token = owner
    article = next(iter(pages.values()))
    origin.routes["/2024/new-home-of-the-story"] = Route(article)
    origin.routes["/old-story"] = redirect_to(origin.url("/2024/new-home-of-the-story"), 301)
    origin.routes["/index.html"] = Route(article)
    origin.routes["/"] = redirect_to(origin.url("/index.html"), 301)
    for path in ("/old-story", "/"):
        receipt = await call(application, token, args(workspace_id, origin.url(path)))
        assert receipt["result"]["status"] == "ready", path
