"""Make a virtualenv if it is missing and `pip install` into it, with uv where it can.

Usage: python3 scripts/venv_install.py VENV PIP-INSTALL-ARGUMENTS...

uv (installed into .uv/ by `make uv`) builds the test venv in about a quarter of pip's
time (docs/testing.md, "uv in the set-up"), but it reads none of pip's configuration. So
pip's configuration (`pip config list`: its files and its PIP_* variables) is translated
into uv's options: indexes, find-links, constraints, certificates, timeout. uv then picks
across all indexes the best version, as pip does. Where uv is absent (it could not be
installed), UV=0 is set, or pip's configuration holds a setting uv has no counterpart for,
pip installs instead, as it always did, and a line says why.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

UV = Path(__file__).resolve().parents[1] / ".uv" / "bin" / "uv"
# pip settings that change nothing uv would do differently here
IGNORED = {
    "disable-pip-version-check",
    "no-input",
    "progress-bar",
    "quiet",
    "verbose",
    "root-user-action",
    "no-warn-script-location",
    "break-system-packages",
}


def pip_settings(python: str) -> dict[str, str]:
    """pip's configuration as `pip config list` reports it: `install.` beats `global.`,
    and a PIP_* variable (`:env:.`) beats both, as in pip."""
    listed = subprocess.run(
        [python, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True
    ).stdout
    ranked: dict[str, tuple[int, str]] = {}
    rank = {"global": 0, "install": 1, ":env:": 2}
    for line in listed.splitlines():
        name, _, value = line.partition("=")
        section, _, key = name.rpartition(".")
        if section not in rank:
            continue  # another command's section (download, wheel, ...)
        if key not in ranked or ranked[key][0] <= rank[section]:
            ranked[key] = (rank[section], value.strip().strip("'\""))
    return {key: value for key, (_, value) in ranked.items()}


def uv_options(settings: dict[str, str]) -> tuple[list[str], list[str], dict[str, str]] | str:
    """uv's index options, its install-only options and its environment for pip's
    `settings`, or the name of a setting uv cannot take."""
    indexes = ["--index-strategy", "unsafe-best-match"]  # pip: the best version of any index
    install: list[str] = []
    env: dict[str, str] = {}
    flags = {
        "index-url": (indexes, "--index-url"),
        "extra-index-url": (indexes, "--extra-index-url"),
        "find-links": (indexes, "--find-links"),
        "trusted-host": (indexes, "--allow-insecure-host"),
        "constraint": (install, "--constraint"),
    }
    variables = {
        "cert": "SSL_CERT_FILE",
        "client-cert": "SSL_CLIENT_CERT",
        "timeout": "UV_HTTP_TIMEOUT",
        "default-timeout": "UV_HTTP_TIMEOUT",
        "proxy": "HTTPS_PROXY",
    }
    for key, value in settings.items():
        if key in flags:
            options, flag = flags[key]
            for item in value.split():
                options += [flag, item]
        elif key in variables:
            env[variables[key]] = value
        elif key == "no-index" and value.lower() in ("1", "true", "yes", "on"):
            indexes.append("--no-index")
        elif key not in IGNORED:
            return key
    return indexes, install, env


def main(venv: str, pip_args: list[str]) -> int:
    python = sys.executable
    why_pip = None
    if os.environ.get("UV") == "0":
        why_pip = "UV=0"
    elif not UV.exists():
        why_pip = f"no {UV} (make uv could not install it)"
    else:
        try:
            translated = uv_options(pip_settings(python))
        except subprocess.CalledProcessError as failed:  # pip's configuration unknown
            translated = ""
            why_pip = f"`{python} -m pip config list` failed ({failed.returncode})"
        if translated and isinstance(translated, str):
            why_pip = f"pip's setting {translated!r} has no uv counterpart here"
    if why_pip:
        print(f"venv_install: pip installs into {venv}: {why_pip}", file=sys.stderr)
        return pip_install(python, venv, pip_args)
    assert not isinstance(translated, str)
    indexes, install, env = translated
    env = {**os.environ, **env}
    if not Path(venv, "bin", "python").exists():  # --seed: pip in the venv, as venv does
        run([str(UV), "venv", "-q", "--seed", "--python", python, *indexes, venv], env)
    # --compile-bytecode: pip writes bytecode at install too; without it the xdist workers
    # and the servers the tests start would all compile the same modules at first import
    target = ["--python", str(Path(venv, "bin", "python")), "--compile-bytecode"]
    run([str(UV), "pip", "install", *target, *indexes, *install, *pip_args], env)
    return 0


def pip_install(python: str, venv: str, pip_args: list[str]) -> int:
    """What the Makefile ran before uv: the system's pip 23 is slow, so it upgrades first."""
    bin_python = str(Path(venv, "bin", "python"))
    if not Path(bin_python).exists():
        run([python, "-m", "venv", venv])
        run([bin_python, "-m", "pip", "install", "-q", "--upgrade", "pip"])
    run([bin_python, "-m", "pip", "install", *pip_args])
    return 0


def run(command: list[str], env: dict[str, str] | None = None) -> None:
    done = subprocess.run(command, env=env)
    if done.returncode != 0:
        raise SystemExit(done.returncode)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    raise SystemExit(main(sys.argv[1], sys.argv[2:]))
