"""Every way a user names a file on the command line, by what the run reports and writes.

Relative, absolute, `./`-prefixed, inside an excluded or git-ignored folder, through a symlink, and
with `--force-exclude` (pre-commit names every changed file, excluded ones included): each file is
analysed once, under the name the user gave, and a file reached twice is written once.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codemods.cli import app

OLD = "import jax\n\ny = jax.tree_map(lambda a: a, [1])\n"
NEW = "import jax\n\ny = jax.tree.map(lambda a: a, [1])\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git project: pkg/ (plain), excluded/ (the config's exclude), ignored/ (.gitignore), and
    link.py, a symlink to pkg/m.py."""
    root = tmp_path / "proj"
    for folder in ("pkg", "excluded", "ignored"):
        (root / folder).mkdir(parents=True)
        (root / folder / "m.py").write_text(OLD)
    (root / ".gitignore").write_text("ignored/\n")
    (root / "pyproject.toml").write_text('[tool.jax-codemod]\nexclude = ["excluded"]\n')
    (root / "link.py").symlink_to(Path("pkg", "m.py"))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


def run(*args: str):
    return CliRunner().invoke(app, ["--select", "JAX1", "--jax-version", "0.12.0.1", "--no-cache", *args],
                              catch_exceptions=False)


def reported(output: str) -> list[str]:
    """The paths of the findings, in order."""
    return re.findall(r"^(\S+):\d+:\d+: JAX101", output, re.MULTILINE)


@pytest.mark.parametrize("name", ["pkg/m.py", "./pkg/m.py", "ABSOLUTE", "excluded/m.py", "ignored/m.py"])
def test_a_file_named_explicitly_is_analysed_under_the_name_given(project: Path, name: str) -> None:
    """As Ruff does: exclusions and .gitignore shape a folder's walk, not a file the user names."""
    name = str(project / "pkg" / "m.py") if name == "ABSOLUTE" else name
    result = run("--check", name)
    assert result.exit_code == 1, result.stderr
    assert reported(result.stderr) == [str(Path(name))], result.stderr  # `./pkg/m.py` as pathlib spells it


def test_force_exclude_drops_an_excluded_file_named_explicitly(project: Path) -> None:
    result = run("--check", "--force-exclude", "excluded/m.py", "pkg/m.py")
    assert reported(result.stderr) == ["pkg/m.py"], result.stderr


def test_a_folders_walk_skips_excluded_and_ignored_folders(project: Path) -> None:
    result = run("--check", ".")
    assert sorted(reported(result.stderr)) == ["pkg/m.py"], result.stderr


@pytest.mark.parametrize("names", [
    (".",),                                    # link.py and pkg/m.py: one file
    ("pkg/m.py", "./pkg/m.py", "ABSOLUTE"),    # three spellings of one file
    ("link.py", "pkg/m.py"),
], ids=["walk-meets-a-link", "three-spellings", "link-and-target"])
def test_a_file_reached_twice_is_analysed_and_written_once(project: Path, names: tuple[str, ...]) -> None:
    """Written twice, the second write found the file changed under it: exit 2 and an error."""
    names = tuple(str(project / "pkg" / "m.py") if name == "ABSOLUTE" else name for name in names)
    check = run("--check", *names)
    assert len(reported(check.stderr)) == 1, check.stderr
    written = run("--write", *names)
    assert written.exit_code == 0 and ": error:" not in written.stderr, written.stderr
    assert (project / "pkg" / "m.py").read_text() == NEW
    assert (project / "link.py").is_symlink()


def test_a_file_reached_twice_keeps_its_own_name_not_the_links(project: Path) -> None:
    assert reported(run("--check", "link.py", "pkg/m.py").stderr) == ["pkg/m.py"]
    assert reported(run("--check", "link.py").stderr) == ["link.py"]  # named alone, as named


def test_a_file_named_that_does_not_exist_is_an_error_and_the_run_goes_on(project: Path) -> None:
    result = run("--check", "missing.py", "pkg/m.py")
    assert result.exit_code == 2
    assert "missing.py: error: cannot read: No such file or directory" in result.stderr
    assert reported(result.stderr) == ["pkg/m.py"]


@pytest.mark.parametrize("root", [".", "./", "ABSOLUTE", "../proj"])
def test_a_walk_finds_every_file_whatever_the_folder_is_called(project: Path, root: str) -> None:
    """Files are told apart by their real paths: each spelling of the folder keeps them apart."""
    for name in ("a.py", "b.py", "ab.py"):
        (project / name).write_text(OLD)
    root = str(project) if root == "ABSOLUTE" else root
    found = {Path(path).name for path in reported(run("--check", root).stderr)}
    assert found == {"a.py", "b.py", "ab.py", "m.py"}, found
