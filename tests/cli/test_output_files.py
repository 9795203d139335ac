"""The files `corpora export -o` and `backup` write where their user says (issue 36, item
7): a planted link is never followed, an existing file is kept without --force, the
result is 0600 whatever the umask, and a failed write leaves nothing behind."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from sosoapi.files import private_output
from tests.support.origin import HTTPSOrigin
from tests.support.services import cli
from tests.surfaces.test_data_files import mode, umask
from tests.surfaces.test_export_surfaces import _sealed

VICTIM = b"a file the attacker wants overwritten\n"


def plant(tmp_path: Path, *names: str) -> Path:
    """`names` in tmp_path, each a symlink to the same victim file."""
    victim = tmp_path / "victim"
    victim.write_bytes(VICTIM)
    for name in names:
        (tmp_path / name).symlink_to(victim)
    return victim


def test_a_link_at_the_guessable_partial_name_is_not_followed(tmp_path: Path) -> None:
    victim = plant(tmp_path, "out.wacz.partial")
    with umask(0), private_output(tmp_path / "out.wacz") as output:
        output.file.write(b"package")
        output.keep()
    assert victim.read_bytes() == VICTIM
    assert (tmp_path / "out.wacz").read_bytes() == b"package"
    assert mode(tmp_path / "out.wacz") == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.wacz", "out.wacz.partial", "victim"]


def test_an_existing_target_or_link_is_refused_before_writing_unless_replaced(
    tmp_path: Path,
) -> None:
    victim = plant(tmp_path, "link.wacz")
    (tmp_path / "kept.wacz").write_bytes(b"kept")
    for name in ("kept.wacz", "link.wacz"):
        with pytest.raises(FileExistsError), private_output(tmp_path / name):
            raise AssertionError("nothing is written for a target that exists")
    assert (tmp_path / "kept.wacz").read_bytes() == b"kept"
    with private_output(tmp_path / "link.wacz", replace=True) as output:
        output.file.write(b"new")
        output.keep()
    assert not (tmp_path / "link.wacz").is_symlink()  # the link itself was replaced
    assert (tmp_path / "link.wacz").read_bytes() == b"new" and victim.read_bytes() == VICTIM


def test_a_target_that_appears_meanwhile_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "out.wacz"
    with pytest.raises(FileExistsError), private_output(target) as output:
        output.file.write(b"ours")
        target.write_bytes(b"theirs")
        output.keep()
    assert target.read_bytes() == b"theirs"
    assert [p.name for p in tmp_path.iterdir()] == ["out.wacz"]


def test_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), private_output(tmp_path / "out.wacz") as output:
        output.file.write(b"half")
        raise RuntimeError("the export failed")
    assert list(tmp_path.iterdir()) == []


def test_cli_export_follows_no_link_keeps_an_existing_file_and_writes_0600(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict[str, bytes], tmp_path: Path
) -> None:
    corpus_id = _sealed(initialised, origin, pages)
    out = tmp_path / "out"
    out.mkdir()
    victim = plant(out, "corpus.wacz.partial", "linked.wacz")
    target = out / "corpus.wacz"

    def export(path: Path, *flags: str) -> tuple[int, str]:
        with umask(0o022):
            done = cli(["corpora", "export", corpus_id, "-o", str(path), *flags], initialised)
        return done.returncode, done.stderr

    assert export(target) == (0, "")
    assert victim.read_bytes() == VICTIM and mode(target) == 0o600
    assert zipfile.is_zipfile(target)
    first = target.stat()

    code, stderr = export(target)
    assert code == 2 and str(target) in stderr and "--force" in stderr
    assert target.stat().st_ino == first.st_ino and target.stat().st_mtime == first.st_mtime

    assert export(target, "--force")[0] == 0
    assert target.stat().st_ino != first.st_ino and mode(target) == 0o600

    code, stderr = export(out / "linked.wacz")
    assert code == 2 and "--force" in stderr and victim.read_bytes() == VICTIM
    assert export(out / "linked.wacz", "--force")[0] == 0
    assert not (out / "linked.wacz").is_symlink() and victim.read_bytes() == VICTIM
    leftovers = {p.name for p in out.iterdir()} - {"corpus.wacz", "linked.wacz", "victim"}
    assert leftovers == {"corpus.wacz.partial"}  # the planted link, never written through
    assert os.readlink(out / "corpus.wacz.partial") == str(victim)


def test_backup_follows_no_link_and_keeps_an_existing_file(tmp_path: Path) -> None:
    env = {"SOSOAPI_HOME": str(tmp_path / "home"), "SOSOAPI_LOG_LEVEL": "WARNING"}
    assert cli(["init", "--json"], env).returncode == 0
    victim = plant(tmp_path, "copy.sqlite3.partial")
    target = tmp_path / "copy.sqlite3"
    assert cli(["backup", str(target)], env).returncode == 0
    assert victim.read_bytes() == VICTIM and mode(target) == 0o600
    again = cli(["backup", str(target)], env)
    assert again.returncode == 2 and str(target) in again.stderr and "--force" in again.stderr
    forced = cli(["backup", str(target), "--force"], env)
    assert forced.returncode == 0, forced.stderr
    assert victim.read_bytes() == VICTIM
