"""`make demo`: the whole loop offline, on the embedded default (SQLite).

Starts a loopback HTTPS origin with a throwaway trustme CA serving real pages, runs
`sosoapi init --json` and `sosoapi serve`, then an MCP client over streamable HTTP that
retrieves one page, replays the same mutation_id, and prints both receipts; then
captions, a sealed corpus, and a search, a quote check that catches a misquotation, and
the diff of a source that changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import sys
import uuid
from pathlib import Path

import httpx2
import mcp
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parent.parent

from sosoapi.testing.origin import HTTPSOrigin, Route  # noqa: E402
from sosoapi.testing.pages import pages_dir, real_pages  # noqa: E402
from sosoapi.testing.processes import ServeProcess, cli  # noqa: E402

RETRIEVE = "sosoapi_research_evidence_retrieve"
TALK_PAGE = b"""<!doctype html><html lang="en"><head><title>A talk on testing</title>
<meta name="description" content="Recorded talk with published captions"></head><body>
<video src="talk.mp4"><track kind="captions" srclang="en" src="talk.en.vtt" default>
<track kind="subtitles" srclang="de" src="talk.de.vtt"></video></body></html>"""
TALK_VTT = b"""WEBVTT

00:00:01.000 --> 00:00:04.000
<v Ada>Welcome, everyone, to a talk about flaky tests.

00:00:04.500 --> 00:00:08.000
<v Ada>A test that passes alone but fails in the suite shares state.

00:00:08.500 --> 00:00:12.250
<v Grace>So isolate the state &amp; the test becomes honest again.
"""


def shorten(receipt: dict) -> dict:
    """The receipt as returned, with long text cut for the terminal."""
    result = receipt["retrieval"].get("result")
    if result and len(result["text"]) > 300:
        result = {**result, "text": result["text"][:300] + f"... [{len(result['text'])} chars]"}
        return {"retrieval": {**receipt["retrieval"], "result": result}}
    return receipt


async def run_client(
    base: str, token: str, workspace_id: str, url: str, routes: dict[str, Route]
) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        mcp.Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
    ):
        tools = [t.name for t in (await client.list_tools()).tools]
        print(f"tools/list: {', '.join(tools)}\n")
        arguments = {
            "url": url,
            "kind": "url_text",
            "workspace_id": workspace_id,
            "mutation_id": str(uuid.uuid4()),
        }
        first = await client.call_tool(RETRIEVE, arguments)
        print("== first call ==")
        print(first.content[0].text.splitlines()[0])
        print(json.dumps(shorten(first.structured_content), indent=2, ensure_ascii=False))
        again = await client.call_tool(RETRIEVE, arguments)
        print("\n== replay, same mutation_id ==")
        print(again.content[0].text.splitlines()[0])
        print(json.dumps(shorten(again.structured_content), indent=2, ensure_ascii=False))
        same = again.structured_content == first.structured_content
        print(f"\nsame receipt on replay: {same}")
        await the_rest_of_the_loop(client, workspace_id, first.structured_content, url)
        await find_check_compare(client, workspace_id, url.rsplit("/", 1)[0], routes)


async def the_rest_of_the_loop(
    client: mcp.Client, workspace_id: str, first: dict, url: str
) -> None:
    """Captions through a page's <track>, then a project sealed into a corpus and read back."""

    async def call(tool: str, **arguments: object) -> dict:
        result = await client.call_tool(tool, {"workspace_id": workspace_id, **arguments})
        print(f"- {tool}: {result.content[0].text.splitlines()[0]}")
        return result.structured_content

    def key() -> str:
        return str(uuid.uuid4())

    print("\n== captions, a project, a sealed corpus ==")
    talk_page = url.rsplit("/", 1)[0] + "/talk"
    captions = await call(
        RETRIEVE, url=talk_page, kind="published_captions", language="en", mutation_id=key()
    )
    for segment in captions["retrieval"]["result"]["segments"]:
        print(f"    [{segment['start_ms']}-{segment['end_ms']} ms] {segment['text']}")
    project = await call("sosoapi_research_projects_create", mutation_id=key(), title="Demo")
    evidence = [first["retrieval"]["evidence"], captions["retrieval"]["evidence"]]
    await call(
        "sosoapi_research_projects_add_sources",
        mutation_id=key(),
        project_id=project["project"]["id"],
        evidence_ids=[e["evidence_id"] for e in evidence],
        missing_notes=["The conference slides were behind a login"],
    )
    sealed = await call(
        "sosoapi_research_corpora_seal", mutation_id=key(), project_id=project["project"]["id"]
    )
    read = await call("sosoapi_research_corpora_get", id=sealed["snapshot"]["id"])
    print(json.dumps(read, indent=2))


def council(verb: str) -> bytes:
    said = f"The city council {verb} the budget for public health after a long debate."
    rest = "Nurses and doctors followed the vote from the public gallery of the town hall."
    body = f"<p>{said}</p><p>{rest}</p>"
    title = f"Council {verb} health budget"
    head = f"<html lang='en'><head><title>{title}</title></head>"
    return f"{head}<body><article>{body}</article></body></html>".encode()


async def find_check_compare(
    client: mcp.Client, workspace_id: str, base: str, routes: dict[str, Route]
) -> None:
    """Find a source again, catch a misquotation of it, and see what changed in it."""

    async def call(tool: str, **arguments: object) -> dict:
        result = await client.call_tool(tool, {"workspace_id": workspace_id, **arguments})
        print(f"- {tool}: {result.content[0].text.splitlines()[0]}")
        return result.structured_content

    print("\n== search, quote check, diff ==")
    routes["/council"] = Route(council("approved"))
    read = {"url": f"{base}/council", "kind": "url_text"}
    first = await call(RETRIEVE, **read, mutation_id=str(uuid.uuid4()))
    evidence_id = first["retrieval"]["evidence"]["evidence_id"]
    found = await call("sosoapi_research_evidence_search", query='"public health" budget')
    for result in found["results"]:
        for snippet in result["snippets"]:
            print(f"    {result['title']} [{snippet['start']}:{snippet['end']}] {snippet['text']}")
    misquote = "The city council rejected the budget for public health after a long debate."
    quoted = await call("sosoapi_research_evidence_quote", evidence_id=evidence_id, quote=misquote)
    if quoted["verdict"] not in ("exact", "normalized"):
        [passage] = quoted["matches"] or [quoted["closest"]]
        print(f"    misquotation caught: {quoted['verdict']}; the source says: {passage['text']}")
    routes["/council"] = Route(council("postponed"))
    await call(RETRIEVE, **read, mutation_id=str(uuid.uuid4()))
    diff = await call("sosoapi_research_evidence_diff", evidence_id=evidence_id, from_revision=1)
    for change in diff["changes"]:
        print(f"    {change['op']} {change['from_text']!r} -> {change['to_text']!r}")
    title = diff["title_change"]
    print(f"    title {title['from_text']!r} -> {title['to_text']!r}")


def show_console(base: str, workspace_id: str, env: dict[str, str]) -> None:
    """The review console's URL and a read-only token, so a person sees what was read;
    in a terminal the server stays up until Enter (or Ctrl-C)."""
    minted = cli(
        ["tokens", "create", "--workspace", workspace_id, "--role", "viewer", "--name",
         "demo viewer", "--label", "make demo console", "--expires-in", "28800", "--json"],
        env,
    )  # fmt: skip
    viewer = json.loads(minted.stdout)["token"]
    print(f"\nreview console: {base}/console")
    print(f"viewer token (read-only, 8 hours): {viewer}")
    if sys.stdin.isatty():
        with contextlib.suppress(EOFError, KeyboardInterrupt):
            input("the server stays up for the console; press Enter to stop ")


def main() -> int:
    home = ROOT / ".demo"
    shutil.rmtree(home, ignore_errors=True)
    routes: dict[str, Route] = {f"/{p.name}": Route(p.html) for p in real_pages(pages_dir(ROOT))}
    routes["/talk"] = Route(TALK_PAGE)
    routes["/talk.en.vtt"] = Route(TALK_VTT, content_type="text/vtt")
    with HTTPSOrigin(routes) as origin:
        env = {"SOSOAPI_HOME": str(home), "SOSOAPI_LOG_LEVEL": "WARNING", **origin.egress_env()}
        created = json.loads(cli(["init", "--json"], env).stdout)
        print(f"local workspace {created['workspace_id']} in {home}")
        page = next(iter(routes))
        with ServeProcess(env) as server:
            print(f"sosoapi serve on {server.base}; origin https://origin.test:{origin.port}\n")
            asyncio.run(
                run_client(
                    server.base,
                    created["token"],
                    created["workspace_id"],
                    origin.url(page),
                    origin.routes,
                )
            )
            show_console(server.base, created["workspace_id"], env)
        print(f"origin requests for {page}: {origin.hits[page]}")
        return 0 if origin.hits[page] == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
