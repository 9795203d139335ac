"""The CLI for people: a readable summary by default, `--json` for scripts, exit codes that
say whether a receipt is usable, `evidence quote --corpus`, and help for every verb."""

from __future__ import annotations

import json

import click
import pytest

from sosoapi.cli import main
from sosoapi.cli.common import Exit
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import cli

SQLITE = pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)
PAGE = (
    b"<!doctype html><html lang=en><head><title>Harbour \x1b[31mnews</title></head><body>"
    b"<main><p>The harbour froze in the long winter, and the ferries stayed in port.</p>"
    b"<p>Fishermen walked across the ice to the island for the first time in decades.</p>"
    b"</main></body></html>"
)


@pytest.mark.slow
@SQLITE
def test_retrieve_prints_a_summary_and_exits_by_the_receipt(
    initialised: dict[str, str], origin: HTTPSOrigin
) -> None:
    origin.routes["/harbour"] = Route(PAGE)
    origin.routes["/gone"] = Route(b"gone", status=404, content_type="text/plain")
    ready = cli(["retrieve", origin.url("/harbour")], initialised)
    assert ready.returncode == Exit.OK, ready.stderr
    first, *rest = ready.stdout.splitlines()
    assert first.startswith("Retrieval ") and "status ready" in first
    assert "title:" in rest and rest[rest.index("title:") + 1].startswith("  Harbour ")
    assert "\x1b" not in ready.stdout  # no terminal escape from a page reaches the terminal
    assert any("The harbour froze in the long winter" in line for line in rest)
    with pytest.raises(json.JSONDecodeError):
        json.loads(ready.stdout)

    gone = cli(["retrieve", origin.url("/gone"), "--json"], initialised)
    assert gone.returncode == Exit.NOT_USABLE, gone.stderr
    receipt = json.loads(gone.stdout)
    assert_valid_output("sosoapi_research_evidence_retrieve", receipt)
    assert receipt["retrieval"]["result"]["reason"] == "not_found"
    summary = cli(["retrieve", origin.url("/gone")], initialised)
    assert summary.returncode == Exit.NOT_USABLE
    assert "not_found: the origin answered 404" in summary.stdout


@pytest.mark.slow
@SQLITE
def test_a_receipt_still_open_exits_not_completed(
    initialised: dict[str, str], origin: HTTPSOrigin
) -> None:
    origin.routes["/slow"] = Route(PAGE, delay=3.0)
    env = {**initialised, "SOSOAPI_WAIT_BUDGET_SECONDS": "0.2"}
    done = cli(["retrieve", origin.url("/slow"), "--json"], env)
    assert done.returncode == Exit.NOT_COMPLETED, done.stderr
    assert json.loads(done.stdout)["retrieval"]["state"] in ("pending", "running")


@pytest.mark.slow
@SQLITE
def test_quote_against_a_corpus(initialised: dict[str, str], origin: HTTPSOrigin) -> None:
    origin.routes["/harbour"] = Route(PAGE)

    def run(*args: str) -> dict:
        done = cli([*args, "--json"], initialised)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    evidence_id = run("retrieve", origin.url("/harbour"))["retrieval"]["evidence"]["evidence_id"]
    project = run("projects", "create", "Winter")["project"]
    run("projects", "add-sources", project["id"], "--evidence", evidence_id)
    corpus = run("corpora", "seal", project["id"])["snapshot"]
    quoted = run("evidence", "quote", "--corpus", corpus["id"], "the ferries stayed in port")
    assert_valid_output("sosoapi_research_evidence_quote", quoted)
    assert quoted["verdict"] == "exact"
    assert quoted["matches"][0]["evidence_id"] == evidence_id

    both = cli(["evidence", "quote", evidence_id, "text", "--corpus", corpus["id"]], initialised)
    assert both.returncode == Exit.REFUSED and "with --corpus give TEXT alone" in both.stderr
    alone = cli(["evidence", "quote", "only text"], initialised)
    assert alone.returncode == Exit.REFUSED and "EVIDENCE_ID and TEXT" in alone.stderr


@pytest.mark.slow
@SQLITE
def test_admin_verbs_print_for_people_and_json_for_scripts(initialised: dict[str, str]) -> None:
    table = cli(["workspaces", "list"], initialised)
    assert table.returncode == 0, table.stderr
    header, *rows = table.stdout.splitlines()
    assert header.split() == ["id", "name", "research", "local", "stored", "limit"]
    assert any(initialised["WORKSPACE_ID"] in row and "yes" in row for row in rows)
    listed = json.loads(cli(["workspaces", "list", "--json"], initialised).stdout)
    assert [w["id"] for w in listed] == [initialised["WORKSPACE_ID"]]


def _commands(command: click.Command, path: tuple[str, ...]):
    yield path, command
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _commands(sub, (*path, name))


def test_every_verb_and_option_has_help() -> None:
    missing = []
    for path, command in _commands(main, ("sosoapi",)):
        if not (command.help or "").strip():
            missing.append(" ".join(path))
        for param in command.params:
            is_option = isinstance(param, click.Option) and param.name not in ("help", "version")
            if is_option and not (param.help or "").strip():  # type: ignore[attr-defined]
                missing.append(f"{' '.join(path)} {param.opts[0]}")
    assert missing == []
