"""A lean install for users; the test and bench extras only where they are used; the
README's recipes (a loopback origin, the PostgreSQL tests) work as written."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.support.services import cli_process as cli  # the CLI's smoke set: a process

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
# What a user never needs to run the server: the test runner, browsers, linters, the bench peers.
NOT_FOR_USERS = {
    "pytest",
    "playwright",
    "schemathesis",
    "hypothesis",
    "ruff",
    "mypy",
    "trustme",
    "axe-playwright-python",
    "readability-lxml",
    "resiliparse",
    "webvtt-py",
    "srt",
    # the demo's and the tests' HTTP client; egress drives httpcore itself
    "httpx",
    # uvicorn[standard]'s reloader, WebSockets and config-file parts, which serve never uses
    "watchfiles",
    "websockets",
    "python-dotenv",
}


def _dry_run(target: str) -> str:
    """The commands `make TARGET` would run on a fresh clone (-B: as if nothing were built)."""
    done = subprocess.run(
        ["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _pip_installs(commands: str) -> list[str]:
    """What the target installs into .venv (scripts/venv_install.py: uv or pip)."""
    return re.findall(r"venv_install\.py \.venv -q -e (\S+)", commands)


PRODUCT = "'.[trafilatura,postgres]'"  # the product with the two extras a deployment uses


def test_make_install_installs_the_product_alone() -> None:
    assert _pip_installs(_dry_run("install")) == [PRODUCT]


@pytest.mark.parametrize(
    ("target", "extras"),
    [
        ("test", [PRODUCT, "'.[test]'"]),
        ("test-fast", [PRODUCT, "'.[test]'"]),
        ("coverage", [PRODUCT, "'.[test]'"]),
        ("lint", [PRODUCT, "'.[test]'"]),
        ("bench", [PRODUCT, "'.[test]'", "'.[bench]'"]),
        ("demo", [PRODUCT, "'.[demo]'"]),
    ],
)
def test_each_target_adds_only_the_extras_it_uses(target: str, extras: list[str]) -> None:
    assert _pip_installs(_dry_run(target)) == extras


def _closure(name: str, extras: frozenset[str] = frozenset()) -> set[str]:
    """The distributions `name` (with `extras`) pulls in, read from installed metadata."""
    seen: set[str] = set()
    todo = [(name, extras)]
    while todo:
        current, wanted = todo.pop()
        key = current.lower().replace("_", "-")
        if key in seen and not wanted:
            continue
        seen.add(key)
        try:
            requirements = metadata.requires(current) or []
        except metadata.PackageNotFoundError:
            continue
        for line in requirements:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is None or any(
                marker.evaluate({"extra": extra}) for extra in (wanted or {""})
            ):
                todo.append((requirement.name, frozenset(requirement.extras)))
    return seen


def test_the_product_dependencies_pull_in_no_test_or_bench_package() -> None:
    installed = _closure("sosoapi")
    assert "mcp" in installed and "fastapi" in installed
    assert installed & NOT_FOR_USERS == set()
    # trafilatura (the extractor's fallback, with lxml and babel) is an extra of its own
    assert {"trafilatura", "babel", "lxml"} & installed == set()
    assert "trafilatura" in _closure("sosoapi", frozenset({"trafilatura"}))
    # so is PostgreSQL's driver: SQLite, the default store, needs none
    assert "psycopg" not in installed and "psycopg" in _closure("sosoapi", frozenset({"postgres"}))
    # the extras do carry them, so `make test` and `make bench` still get them
    assert {"pytest", "playwright", "ruff", "mypy", "trustme"} <= _closure(
        "sosoapi", frozenset({"test"})
    )


def test_the_shipped_test_tools_need_no_test_extra_to_import() -> None:
    """`sosoapi.testing` imports with trustme absent; making an origin then names the extra."""
    probe = (
        "import sys; sys.modules['trustme'] = None\n"
        "from sosoapi.testing.origin import HTTPSOrigin\n"
        "try:\n    HTTPSOrigin()\nexcept RuntimeError as exc:\n    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "trustme is not installed" in done.stdout and "[test]" in done.stdout


@pytest.mark.parametrize("script", ["scripts/demo.py", "scripts/loopback_origin.py"])
def test_the_demo_scripts_import_the_shipped_tools_not_the_tests(script: str) -> None:
    text = (ROOT / script).read_text()
    assert "sosoapi.testing" in text
    assert "tests.support" not in text and "sys.path" not in text


@pytest.mark.slow(reason="collects two test files in a pytest subprocess")
def test_postgres_marker_selects_exactly_the_postgresql_cases() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-m",
            "postgres",
            "tests/research/test_retrieve.py",
            "tests/scale/test_database_pool.py",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    selected = [line for line in done.stdout.splitlines() if "::" in line]
    assert any(line.endswith("[postgres]") for line in selected), done.stdout
    assert not any("[sqlite]" in line for line in selected)
    assert any("test_database_pool.py::" in line for line in selected)  # asks postgres_url


def test_readme_names_the_postgres_url_format_and_marker() -> None:
    assert "SOSOAPI_TEST_POSTGRES_URL=postgresql+psycopg://USER@HOST:PORT/DATABASE" in README
    assert "pytest -m postgres" in README
    assert "pipx install ." in README


def test_the_readme_loopback_origin_recipe_retrieves_offline(tmp_path: Path) -> None:
    assert "python scripts/loopback_origin.py" in README
    site = tmp_path / "site"
    site.mkdir()
    (site / "note.html").write_text(
        "<!doctype html><html lang=en><head><title>A local note</title></head><body><main>"
        "<p>This page is served from a folder on loopback, with a throwaway CA.</p>"
        "<p>It is read through the same egress gate as any public page.</p></main></body></html>"
    )
    with subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "loopback_origin.py"), str(site), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    ) as origin:
        try:
            assert origin.stdout is not None
            env: dict[str, str] = {"SOSOAPI_HOME": str(tmp_path / "home")}
            urls = []
            for line in origin.stdout:
                if line.startswith("export "):
                    name, _, value = line.removeprefix("export ").strip().partition("=")
                    env[name] = value
                elif line.startswith("# https://"):
                    urls.append(line.removeprefix("# ").strip())
                elif line.startswith("# serving"):
                    break
            assert set(env) >= {"SOSOAPI_EGRESS_ALLOW", "SOSOAPI_EGRESS_CA_BUNDLE"}
            assert urls == [u for u in urls if u.endswith("/note.html")] and urls
            created = cli(["init", "--json"], env)
            assert created.returncode == 0, created.stderr
            env["SOSOAPI_TOKEN"] = json.loads(created.stdout)["token"]
            done = cli(["retrieve", urls[0], "--json"], env)
            assert done.returncode == 0, done.stderr
            retrieval = json.loads(done.stdout)["retrieval"]
            assert retrieval["state"] == "completed"
            assert retrieval["result"]["status"] == "ready"
            assert "served from a folder on loopback" in retrieval["result"]["text"]
        finally:
            origin.terminate()
            origin.wait(timeout=10)
            if origin.stdout is not None:
                origin.stdout.close()
