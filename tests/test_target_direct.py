"""codemods/target.py called directly, in the test's process: which jax release the JAX1xx rules
move code to, and what decided it (`--jax-version`, `[tool.jax-codemod]`, the editor's interpreter,
`$VIRTUAL_ENV`, `$CONDA_PREFIX`, `.venv`, `venv`, the tool's environment, lock files, requirements
files, `project.dependencies`), each checked against the ones after it.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Environments are faked with `jax-X.dist-info` folders; nothing here imports jax.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codemods import capabilities, target
from codemods.target import LOCK_FILES, TOOL_ENVIRONMENT, environment_jax, jax_target


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    """No jax in the tool's environment, none activated."""
    monkeypatch.setattr(capabilities, "installed_jax_version", lambda: None)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)


def env(prefix: Path, version: str, site: str = "lib/python3.12/site-packages") -> Path:
    (prefix / site / f"jax-{version}.dist-info").mkdir(parents=True)
    return prefix


def test_the_constants():
    assert TOOL_ENVIRONMENT == "tool environment"
    assert LOCK_FILES == ("uv.lock", "poetry.lock", "pdm.lock")


# jax_target: the order


def test_given_wins_over_everything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    env(tmp_path / ".venv", "0.4.30")
    assert jax_target(tmp_path, given=[0, 5, 1], configured=(0, 6, 0)) == ((0, 5, 1), "--jax-version")
    assert jax_target(None, given=(0, 5)) == ((0, 5), "--jax-version")


def test_configured_comes_next(tmp_path: Path):
    env(tmp_path / ".venv", "0.4.30")
    assert jax_target(tmp_path, configured=(0, 6, 0)) == ((0, 6, 0), "[tool.jax-codemod]")
    assert jax_target(None, configured=(0, 6, 0)) == ((0, 6, 0), "[tool.jax-codemod]")


def test_nothing_at_all(tmp_path: Path):
    assert jax_target(None) == (None, "")
    assert jax_target(tmp_path) == (None, "")
    assert jax_target(tmp_path, dependencies=["numpy==1.0"]) == (None, "")


def test_the_interpreter_file_names_its_environment(tmp_path: Path):
    prefix = env(tmp_path / "elsewhere", "0.4.31")
    (prefix / "bin").mkdir()
    (prefix / "bin" / "python").write_text("")
    env(tmp_path / ".venv", "0.4.30")
    assert jax_target(tmp_path, interpreter=str(prefix / "bin" / "python")) == ((0, 4, 31), "interpreter")


def test_the_interpreter_given_as_the_environments_folder(tmp_path: Path):
    prefix = env(tmp_path / "elsewhere", "0.4.31")
    env(tmp_path / ".venv", "0.4.30")
    assert jax_target(tmp_path, interpreter=str(prefix)) == ((0, 4, 31), "interpreter")


def test_an_interpreter_link_is_followed_to_its_environment(tmp_path: Path):
    prefix = env(tmp_path / "real", "0.4.32")
    (prefix / "bin").mkdir()
    (prefix / "bin" / "python3").write_text("")
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "python").symlink_to(prefix / "bin" / "python3")
    assert jax_target(None, interpreter=str(tmp_path / "links" / "python")) == ((0, 4, 32), "interpreter")


def test_an_interpreter_without_jax_falls_through(tmp_path: Path):
    (tmp_path / "bare").mkdir()
    env(tmp_path / ".venv", "0.4.30")
    assert jax_target(tmp_path, interpreter=str(tmp_path / "bare")) == ((0, 4, 30), ".venv")
    assert jax_target(tmp_path, interpreter="") == ((0, 4, 30), ".venv")


def test_virtual_env_then_conda_prefix_then_dot_venv_then_venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = tmp_path / "proj"
    root.mkdir()
    env(root / "venv", "0.4.1")
    assert jax_target(root) == ((0, 4, 1), "venv")
    env(root / ".venv", "0.4.2")
    assert jax_target(root) == ((0, 4, 2), ".venv")
    monkeypatch.setenv("CONDA_PREFIX", str(env(tmp_path / "conda", "0.4.3")))
    assert jax_target(root) == ((0, 4, 3), "$CONDA_PREFIX")
    monkeypatch.setenv("VIRTUAL_ENV", str(env(tmp_path / "virtual", "0.4.4")))
    assert jax_target(root) == ((0, 4, 4), "$VIRTUAL_ENV")
    assert jax_target(None) == ((0, 4, 4), "$VIRTUAL_ENV")
    monkeypatch.setenv("VIRTUAL_ENV", "")  # set but empty: not an environment
    assert jax_target(root) == ((0, 4, 3), "$CONDA_PREFIX")
    monkeypatch.delenv("CONDA_PREFIX")
    assert jax_target(None) == (None, "")


def test_the_tool_environment_comes_after_the_projects_and_before_its_pins(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(capabilities, "installed_jax_version", lambda: (0, 7, 0))
    (tmp_path / "uv.lock").write_text('[[package]]\nname = "jax"\nversion = "0.4.1"\n')
    assert jax_target(tmp_path) == ((0, 7, 0), "tool environment")
    assert jax_target(None) == ((0, 7, 0), "tool environment")
    env(tmp_path / ".venv", "0.4.30")
    assert jax_target(tmp_path) == ((0, 4, 30), ".venv")


def test_pins_are_read_only_with_a_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "uv.lock").write_text('[[package]]\nname = "jax"\nversion = "0.4.1"\n')
    assert jax_target(None, dependencies=["jax==0.5.0"]) == (None, "")
    assert jax_target(tmp_path) == ((0, 4, 1), "uv.lock")


# environment_jax


def test_environment_jax_posix_and_windows_layouts(tmp_path: Path):
    assert environment_jax(env(tmp_path / "posix", "0.4.30")) == (0, 4, 30)
    assert environment_jax(env(tmp_path / "win", "0.4.31", "Lib/site-packages")) == (0, 4, 31)
    assert environment_jax(env(tmp_path / "upper", "0.4.32", "lib/python3.11/site-packages").parent / "upper") \
        == (0, 4, 32)
    assert environment_jax(tmp_path / "missing") is None


def test_environment_jax_reads_the_name_case_insensitively_and_exactly(tmp_path: Path):
    site = tmp_path / "p" / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    (site / "JAX-0.4.33.DIST-INFO").mkdir()
    assert environment_jax(tmp_path / "p") == (0, 4, 33)
    site2 = tmp_path / "q" / "lib" / "python3.12" / "site-packages"
    site2.mkdir(parents=True)
    (site2 / "jaxlib-0.4.33.dist-info").mkdir()
    (site2 / "myjax-0.4.34.dist-info").mkdir()
    (site2 / "jax-0.4.35.dist-info.bak").mkdir()
    (site2 / "jax-0.4.36.egg-info").mkdir()
    assert environment_jax(tmp_path / "q") is None


def test_environment_jax_prefix_with_glob_characters(tmp_path: Path):
    assert environment_jax(env(tmp_path / "a[1]*", "0.4.37")) == (0, 4, 37)
    env(tmp_path / "a1x", "0.4.38")
    assert environment_jax(tmp_path / "a[1]*") == (0, 4, 37)
    assert environment_jax(tmp_path / "a[1]x") is None


def test_environment_jax_posix_before_windows_and_sites_in_order(tmp_path: Path):
    prefix = env(tmp_path / "p", "0.4.2", "lib/python3.12/site-packages")
    env(prefix, "0.4.1", "lib/python3.11/site-packages")
    env(prefix, "0.4.3", "Lib/site-packages")
    assert environment_jax(prefix) == (0, 4, 1)


def test_environment_jax_skips_a_site_that_is_not_a_folder(tmp_path: Path):
    prefix = tmp_path / "p"
    (prefix / "lib" / "python3.11").mkdir(parents=True)
    (prefix / "lib" / "python3.11" / "site-packages").write_text("not a folder")
    env(prefix, "0.4.5", "lib/python3.12/site-packages")
    assert environment_jax(prefix) == (0, 4, 5)


def test_environment_jax_skips_an_unreadable_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    prefix = env(tmp_path / "p", "0.4.6")
    site = prefix / "lib" / "python3.12" / "site-packages"
    (site / "jax-dev.dist-info").mkdir()
    listdir = os.listdir
    monkeypatch.setattr(target.os, "listdir",
                        lambda path: sorted(listdir(path), key=lambda name: name != "jax-dev.dist-info"))
    assert environment_jax(prefix) == (0, 4, 6)
    (site / "jax-0.4.6.dist-info").rmdir()
    assert environment_jax(prefix) is None


# the pins: lock files


def test_lock_files_in_order(tmp_path: Path):
    (tmp_path / "pdm.lock").write_text('[[package]]\nname = "jax"\nversion = "0.4.3"\n')
    assert jax_target(tmp_path) == ((0, 4, 3), "pdm.lock")
    (tmp_path / "poetry.lock").write_text('[[package]]\nname = "jax"\nversion = "0.4.2"\n')
    assert jax_target(tmp_path) == ((0, 4, 2), "poetry.lock")
    (tmp_path / "uv.lock").write_text('[[package]]\nname = "jax"\nversion = "0.4.1"\n')
    assert jax_target(tmp_path) == ((0, 4, 1), "uv.lock")
    (tmp_path / "requirements.txt").write_text("jax==0.9.0\n")
    assert jax_target(tmp_path, dependencies=["jax==0.9.1"]) == ((0, 4, 1), "uv.lock")


def test_a_lock_file_takes_the_highest_of_its_jax_packages(tmp_path: Path):
    (tmp_path / "uv.lock").write_text(
        '[[package]]\nname = "jax"\nversion = "0.4.30"\n'
        '[[package]]\nname = "JAX"\nversion = "0.5.1"\n'
        '[[package]]\nname = "jax"\nversion = "0.5.0"\n'
        '[[package]]\nname = "jaxlib"\nversion = "0.9.0"\n'
        '[[package]]\nname = "jax"\nversion = "dev"\n'
        '[[package]]\nname = "jax"\n'
        '[[package]]\nversion = "0.9.9"\n')
    assert jax_target(tmp_path) == ((0, 5, 1), "uv.lock")


def test_a_lock_file_that_says_nothing_of_jax_falls_through(tmp_path: Path):
    (tmp_path / "requirements.txt").write_text("jax==0.4.9\n")
    for text in ('[[package]]\nname = "numpy"\nversion = "1.0"\n',
                 '[[package]]\nname = "jax"\nversion = "dev"\n',
                 'package = "jax"\n',
                 'package = ["jax", 1]\n',
                 'package = 5\n',
                 '[package]\nname = "jax"\nversion = "0.5.0"\n',
                 'not toml [[[',
                 ''):
        (tmp_path / "uv.lock").write_text(text)
        assert jax_target(tmp_path) == ((0, 4, 9), "requirements.txt"), text
    (tmp_path / "uv.lock").write_bytes(b'name = "\xff"\n')
    assert jax_target(tmp_path) == ((0, 4, 9), "requirements.txt")
    (tmp_path / "uv.lock").unlink()
    (tmp_path / "uv.lock").mkdir()
    assert jax_target(tmp_path) == ((0, 4, 9), "requirements.txt")


def test_a_lock_file_passes_over_an_unreadable_version_to_the_next_package(tmp_path: Path):
    (tmp_path / "uv.lock").write_text('[[package]]\nname = "jax"\nversion = "dev"\n'
                                      '[[package]]\nname = "jax"\nversion = "0.4.2"\n')
    assert jax_target(tmp_path) == ((0, 4, 2), "uv.lock")


def test_locked_directly(tmp_path: Path):
    path = tmp_path / "x.lock"
    path.write_text('[[package]]\nname = "jax"\nversion = "0.4.1rc1"\n')
    assert target.locked_versions(path) == [(0, 4, 1)]
    assert target.locked_versions(tmp_path / "missing.lock") == []
    path.write_text('[[package]]\nname = "jax"\n')
    assert target.locked_versions(path) == []


# the pins: requirements files and project.dependencies


def test_requirements_files_in_name_order(tmp_path: Path):
    (tmp_path / "requirements-z.txt").write_text("jax==0.4.2\n")
    (tmp_path / "requirements-a.txt").write_text("numpy\njax[cuda12] == 0.4.1 ; sys_platform == 'linux'  # gpu\n")
    assert jax_target(tmp_path, dependencies=["jax==0.9"]) == ((0, 4, 1), "requirements-a.txt")
    (tmp_path / "requirements-a.txt").write_text("jax>=0.4.1\n")
    assert jax_target(tmp_path, dependencies=["jax==0.9"]) == ((0, 4, 2), "requirements-z.txt")


def test_a_requirements_folder_or_bad_bytes_are_passed_over(tmp_path: Path):
    (tmp_path / "requirements-a.txt").mkdir()
    (tmp_path / "requirements-b.txt").write_bytes(b"# caf\xe9\njax==0.4.7\n")
    assert jax_target(tmp_path) == ((0, 4, 7), "requirements-b.txt")


def test_requirements_in_a_folder_with_glob_characters(tmp_path: Path):
    root = tmp_path / "p[1]"
    root.mkdir()
    (root / "requirements.txt").write_text("jax==0.4.8\n")
    (tmp_path / "p1").mkdir()
    (tmp_path / "p1" / "requirements.txt").write_text("jax==0.4.9\n")
    assert jax_target(root) == ((0, 4, 8), "requirements.txt")


def test_other_requirement_files_are_not_read(tmp_path: Path):
    (tmp_path / "dev-requirements.txt").write_text("jax==0.4.1\n")
    (tmp_path / "requirements.in").write_text("jax==0.4.1\n")
    assert jax_target(tmp_path) == (None, "")


def test_project_dependencies_come_last(tmp_path: Path):
    (tmp_path / "requirements.txt").write_text("numpy==1.0\n")
    assert jax_target(tmp_path, dependencies=["numpy", "jax == 0.4.30", "jax==0.5"]) == \
        ((0, 4, 30), "pyproject.toml")


@pytest.mark.parametrize(("line", "expected"), [
    ("jax==0.4.30", (0, 4, 30)),
    ("  JAX == 0.4.30  ", (0, 4, 30)),
    ("jax[tpu]==0.4.30", (0, 4, 30)),
    ("jax [cuda12, tpu] == 0.4.30", (0, 4, 30)),
    ("jax==0.4.30;python_version>'3.9'", (0, 4, 30)),
    ("jax==0.4.30 # pinned", (0, 4, 30)),
    ("jax==0.4.30rc1", (0, 4, 30)),
    ("jax>=0.4.30", None),
    ("jax==0.4.*", None),
    ("jaxlib==0.4.30", None),
    ("myjax==0.4.30", None),
    ("jax===0.4.30", None),
    ("jax==v0.4.30", None),
    ("jax==0.4.30,<1", None),
    ("# jax==0.4.30", None),
])
def test_the_pin_forms(line: str, expected):
    assert target._pin_of([line], "src") == ((expected, "src") if expected else (None, ""))
