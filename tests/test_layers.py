"""The house rules of docs/architecture.md, checked on the import graph of `src/sosoapi`.

Imports point inward (surfaces -> research -> egress, extract, store, auth -> contract);
`api` and `mcp` are siblings; use cases never see SQL; no module imports itself back.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
_DOC_CITE = re.compile(r"\bdocs/[\w./-]+\.md\b")
PACKAGE = SRC / "sosoapi"


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _imports() -> dict[str, frozenset[str]]:
    """Every module and what it imports (any depth, `TYPE_CHECKING` blocks included)."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        graph[_module(path)] = frozenset(names)
    return graph


def _importers(package: str, forbidden: str) -> list[str]:
    return sorted(
        module
        for module, names in _imports().items()
        if module.startswith(package)
        and any(n == forbidden or n.startswith(forbidden + ".") for n in names)
    )


def test_api_does_not_import_mcp_nor_mcp_api() -> None:
    assert _importers("sosoapi.api", "sosoapi.mcp") == []
    assert _importers("sosoapi.mcp", "sosoapi.api") == []


def test_mcp_does_not_import_the_web_layer() -> None:
    """The OAuth server and its route wrapper reach /mcp through `McpAuth`, composed in
    `app.py`; the MCP surface never imports the web pages nor the OAuth package."""
    assert _importers("sosoapi.mcp", "sosoapi.web") == []
    assert _importers("sosoapi.mcp", "sosoapi.oauth") == []


def test_oauth_is_one_package_below_the_pages_that_show_it() -> None:
    """`oauth/` is the authorization server whole: its grants, the SDK's protocol over them,
    registration and its HTTP doors. It sits below the surfaces: `web/`'s consent and docs
    pages and `api/`'s security scheme use it, `app.py` serves its routes beside theirs, and
    it imports none of them (its rows are `store/oauth_repo.py`'s, as for every table).
    Its grants are free of the web framework, so the composition root sweeps with them in
    a one-shot command that loads no Starlette (`test_a_cli_operation_...`)."""
    for outer in (*SURFACES, "sosoapi.cli", "sosoapi.app", "sosoapi.application"):
        assert _importers("sosoapi.oauth", outer) == [], outer
    for framework in ("starlette", "fastapi", "mcp", "sqlalchemy"):
        assert _importers("sosoapi.oauth.grants", framework) == [], framework
    assert _importers("sosoapi.oauth", "sqlalchemy") == []
    assert not any(p.name.startswith("oauth") for p in (PACKAGE / "web").glob("*.py"))


def test_egress_never_calls_back_up() -> None:
    """The gate answers what happened (a late turn included, as `LateTurn`) and its caller
    decides: egress imports nothing of research, types included, nor any module outside
    egress but the contract's and the shared `clock`, `progress` and `logs`."""
    assert _importers("sosoapi.egress", "sosoapi.research") == []
    seen = {
        n
        for module, names in _imports().items()
        if module.startswith("sosoapi.egress")
        for n in names
        if n.startswith("sosoapi.") and n in _imports()
    }
    outside = {n for n in seen if not n.startswith(("sosoapi.egress", "sosoapi.contract"))}
    assert outside <= {"sosoapi.clock", "sosoapi.progress", "sosoapi.logs"}, sorted(outside)


def test_third_party_html_and_json_are_parsed_in_their_one_home() -> None:
    """Every parse of a page's bytes goes through the home that bounds it
    (docs/architecture.md, "extract/"): a Lexbor tree is built only in
    `extract/html_bounds.py`, and JSON a page holds is read only by `extract/json_data.py`."""
    html, data = [], []
    for path in PACKAGE.rglob("*.py"):
        module = _module(path)
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            called = ast.unparse(node.func)
            if called.endswith("HTMLParser") and module != "sosoapi.extract.html_bounds":
                html.append(module)
            json_call = called in ("json.loads", "json.load") or "JSONDecoder" in called
            if (
                json_call
                and module.startswith("sosoapi.extract.")
                and not module.endswith(".json_data")
            ):
                data.append(module)
    assert html == [] and data == [], (html, data)


def test_research_never_sees_sqlalchemy() -> None:
    assert _importers("sosoapi.research", "sqlalchemy") == []


def test_research_sees_only_the_records_of_the_store() -> None:
    """The storage port is real: use cases see `store/records.py` (with its page-cursor codec,
    `store/cursors.py`) and `research/ports.py`."""
    seen = {
        name
        for module, names in _imports().items()
        if module.startswith("sosoapi.research")
        for name in names
        if name.startswith("sosoapi.store")
    }
    allowed = ("sosoapi.store.records", "sosoapi.store.cursors")
    assert seen and all(n.startswith(allowed) for n in seen), sorted(seen)


SURFACES = ("sosoapi.api", "sosoapi.mcp", "sosoapi.web")


def test_inner_layers_do_not_import_outer_ones() -> None:
    inner = ("sosoapi.contract", "sosoapi.egress", "sosoapi.extract", "sosoapi.store")
    outer = (
        "sosoapi.research",
        *SURFACES,
        "sosoapi.oauth",
        "sosoapi.cli",
        "sosoapi.app",
        "sosoapi.application",
    )
    for package in (*inner, "sosoapi.auth", "sosoapi.research"):
        for surface in outer:
            if surface != package:
                assert _importers(package, surface) == [], (package, surface)
    for surface in outer[1:]:  # config may import research's settings types, nothing else
        assert _importers("sosoapi.config", surface) == [], surface
    assert _importers("sosoapi.contract", "sosoapi.egress") == []


def test_the_store_runs_sql_only() -> None:
    """The store is handed typed values (passages cut by the use case before the write):
    it imports nothing that reads, fetches or judges content; of `contract` only the
    vocabulary and the error base."""
    for other in ("sosoapi.extract", "sosoapi.egress", "sosoapi.auth", "sosoapi.research"):
        assert _importers("sosoapi.store", other) == [], other
    contract = {
        n
        for module, names in _imports().items()
        if module.startswith("sosoapi.store")
        for n in names
        if n.startswith("sosoapi.contract.")
    }
    modules = {n for n in contract if n in _imports()}
    assert modules <= {"sosoapi.contract.vocabulary", "sosoapi.contract.errors"}, modules


def test_migrations_keep_their_own_frozen_copies() -> None:
    """A migration does tomorrow what it did the day it was written: it imports nothing
    of the project but its own folder (never the running store's or extractor's code)."""
    versions = "sosoapi.store.migrations.versions"
    seen = {
        n
        for module, names in _imports().items()
        if module.startswith(versions)
        for n in names
        if n.startswith("sosoapi")
    }
    assert seen and all(n.startswith("sosoapi.store.migrations.") for n in seen), sorted(seen)


def test_only_the_command_line_imports_the_composition_root() -> None:
    """`application.py`, `app.py` and `app_stdio.py` wire everything; the surfaces take
    what they need as arguments. Only the command line (and the two surface roots, for
    `Application`) imports them."""
    roots = ("sosoapi.app", "sosoapi.app_stdio")
    for root in roots:
        assert [m for m in _importers("sosoapi", root) if not m.startswith("sosoapi.cli")] == []
    importers = _importers("sosoapi", "sosoapi.application")
    assert [m for m in importers if m not in roots and not m.startswith("sosoapi.cli")] == []


def _reached(root: str) -> set[str]:
    """The project's modules `root` imports, directly or through others."""
    seen: set[str] = set()
    stack, graph = [root], _imports()
    while stack:
        module = stack.pop()
        if module in seen or module not in graph:
            continue
        seen.add(module)
        stack.extend(n for n in graph[module] if n.startswith("sosoapi"))
    return seen


def test_the_stdio_server_does_not_import_the_http_app() -> None:
    """`sosoapi mcp` starts once per MCP client session that spawns it: FastAPI, the API
    and the console pages cost it about half a second of CPU it has no use for."""
    seen = _reached("sosoapi.app_stdio")
    assert "sosoapi.mcp.stdio" in seen
    assert not [m for m in seen if m.startswith(("sosoapi.api", "sosoapi.web"))]
    assert "sosoapi.app" not in seen


@pytest.mark.slow(reason="imports the CLI in a fresh interpreter to see every module it loads")
def test_a_cli_operation_does_not_import_the_surfaces() -> None:
    """A one-shot `sosoapi projects list` runs `Application` alone: importing FastAPI and
    the MCP SDK for it cost about a second of start-up per command."""
    seen = _reached("sosoapi.application")
    assert not [m for m in seen if m.startswith(("sosoapi.api", "sosoapi.mcp", "sosoapi.web"))]
    assert {m for m in seen if m.startswith("sosoapi.oauth")} <= {"sosoapi.oauth.grants"}
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, sosoapi.cli, sosoapi.application; print(*sys.modules)"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert not {"fastapi", "mcp", "starlette", "uvicorn"} & set(loaded)
    for surface in SURFACES:
        assert _importers(surface, "sosoapi.cli") == [], surface


def test_the_api_does_not_import_the_web_pages() -> None:
    assert _importers("sosoapi.api", "sosoapi.web") == []


def test_config_reads_the_environment_into_settings_types_only() -> None:
    """`config.py` imports nothing of the project but the layers' `settings` modules."""
    project = {n for n in _imports()["sosoapi.config"] if n.startswith("sosoapi.")}
    modules = {n for n in project if n in _imports()}
    assert modules and all(m.endswith(".settings") for m in modules), sorted(modules)


def test_docs_and_docstrings_cite_only_files_in_the_repository() -> None:
    """No "SPEC section N", DESIGN.md or ../shared: a fresh clone has none of them."""
    outside = ("SPEC section", "SPEC s", "DESIGN.md", "NOTES.md", "../shared")
    roots = [PACKAGE, SRC.parent / "docs", SRC.parent / "tests"]
    files = [p for root in roots for p in root.rglob("*") if p.suffix in (".py", ".md")]
    files.append(SRC.parent / "README.md")
    cited = [
        f"{path.relative_to(SRC.parent)}: {word}"
        for path in files
        if path != Path(__file__)
        for word in outside
        if word in path.read_text("utf-8")
    ]
    assert cited == []
    missing = sorted(
        f"{path.relative_to(SRC.parent)}: {name}"
        for path in files
        for name in set(_DOC_CITE.findall(path.read_text("utf-8")))
        if not (SRC.parent / name).exists()
    )
    assert missing == []


def test_no_import_circle_in_src() -> None:
    modules = _imports()
    graph = {m: {n for n in names if n in modules and n != m} for m, names in modules.items()}
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            raise AssertionError("import circle: " + " -> ".join(path[path.index(module) :]))
        if module in done:
            return
        for name in sorted(graph[module]):
            visit(name, [*path, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


def test_research_is_grouped_by_capability_in_short_modules() -> None:
    """A newcomer finds a capability by its folder: few modules at the top of `research/`,
    and no module of `research/`, `web/` or `oauth/` too long to read at one sitting."""
    top = sorted(p.name for p in (PACKAGE / "research").glob("*.py"))
    assert len(top) <= 10, top
    long = {
        str(path.relative_to(PACKAGE)): lines
        for folder in ("research", "web", "oauth")
        for path in (PACKAGE / folder).rglob("*.py")
        if (lines := len(path.read_text("utf-8").splitlines())) > 350
    }
    assert long == {}


def test_no_module_in_src_is_over_400_lines() -> None:
    """One job per module, each readable at one sitting (docs/architecture.md)."""
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text("utf-8").splitlines())) > 400
    }
    assert long == {}
