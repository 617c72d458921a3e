"""The target jax release comes from where the code runs (codemods/target.py), the same for every
entry point: a tool installed without jax (pipx, pre-commit) reads the project's `.venv`, and with
no source at all a run that selects the JAX1xx rules by name fails instead of reporting "0 fixes".
Environments are faked: a `jax-X.dist-info` folder, and the tool's own jax patched away.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest
from typer.testing import CliRunner

from codemods import capabilities
from codemods.cli import app
from codemods.target import environment_jax, jax_target
from tests import test_contract
from tests.test_contract import HIGH, HIGHEST, KERNEL, project

# Old spellings whose findings depend on the target (JAX101 removed in 0.6.0, JAX111 in 0.9.0, ...).
UPGRADES = '''\
import jax
from jax.experimental import enable_x64
from jax.experimental.pjit import pjit

y = jax.tree_map(lambda a: 2 * a, {"w": 1})
with enable_x64():
    f = pjit(lambda x: x)
'''


def venv(root: Path, version: str, name: str = ".venv") -> Path:
    """A virtualenv at `root/name` with jax `version` installed, as far as a dist-info folder says."""
    (root / name / "lib" / "python3.12" / "site-packages" / f"jax-{version}.dist-info").mkdir(parents=True)
    return root / name


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No jax in the tool's environment (a pipx install), none activated; a cache of the test's own."""
    monkeypatch.setattr(capabilities, "installed_jax_version", lambda: None)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    monkeypatch.setenv("JAX_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def findings(output: str) -> list[str]:
    return [line for line in output.splitlines() if re.match(r"\S+:\d+:\d+: JAX1", line)]


# -- the command line --


def test_a_tool_without_jax_finds_what_a_run_given_the_projects_jax_finds(tmp_path: Path) -> None:
    project(tmp_path / "proj", None, UPGRADES)
    given = invoke("--check", "--select", "JAX1", "--no-cache", "--jax-version", "0.12.0.1", "proj")
    venv(tmp_path / "proj", "0.12.0.1")
    found = invoke("--check", "--select", "JAX1", "--no-cache", "proj")
    assert findings(given.stderr) and findings(found.stderr) == findings(given.stderr), found.stderr
    assert found.exit_code == given.exit_code == 1
    assert "(target jax 0.12.0.1 from .venv)" in found.stderr
    assert "(target jax 0.12.0.1 from --jax-version)" in given.stderr


@pytest.mark.parametrize("selected", ["JAX1", "JAX001,JAX101", "jax-tree-map"])
def test_with_no_target_a_run_selecting_jax1xx_by_name_exits_2_saying_how_to_set_it(selected: str,
                                                                                     tmp_path: Path) -> None:
    path = project(tmp_path / "proj", None, UPGRADES)
    result = invoke("--check", "--select", selected, "proj")
    assert result.exit_code == 2, result.stderr
    assert "error: no target jax release, so the JAX1xx rules cannot run" in result.stderr
    assert "--jax-version" in result.stderr and "[tool.jax-codemod]" in result.stderr and ".venv" in result.stderr
    assert path.read_text() == UPGRADES


def test_with_no_target_the_configs_select_counts_as_naming_jax1xx(tmp_path: Path) -> None:
    project(tmp_path / "proj", 'select = ["JAX1"]\n', UPGRADES)
    result = invoke("--check", "proj")
    assert result.exit_code == 2 and "no target jax release" in result.stderr, result.stderr


def test_with_no_target_a_run_of_every_rule_goes_on_says_so_in_its_summary_and_exits_2(tmp_path: Path) -> None:
    project(tmp_path / "proj", None, KERNEL)
    result = invoke("--check", "--no-cache", "proj")
    assert "proj/pkg/kernel.py:8:" in result.stderr and "JAX001" in result.stderr, result.stderr  # the run went on
    assert "error: no target jax release, so the JAX1xx rules cannot run" in result.stderr
    summary = result.stderr.splitlines()[-1]
    assert summary.endswith("(target jax unknown: the JAX1xx rules did not run; pass --jax-version X, or --ignore "
                            "JAX1)"), summary
    assert result.exit_code == 2, result.stderr


@pytest.mark.parametrize("options", [["--check"], ["--write"], [], ["--check", "--exit-zero"], ["--check", "-q"]],
                         ids=["check", "write", "dry-run", "exit-zero", "quiet"])
def test_with_no_target_old_spellings_alone_never_pass(options: list[str], tmp_path: Path) -> None:
    """Nothing but old spellings, no target: the JAX1xx rules did not look, so no run passes as clean
    (it exited 0, with a warning scrolled away above the summary)."""
    path = project(tmp_path / "proj", None, UPGRADES)
    result = invoke(*options, "--no-cache", "proj")
    assert result.exit_code == 2, result.stderr
    assert "no target jax release, so the JAX1xx rules cannot run" in result.stderr
    assert path.read_text() == UPGRADES
    ignored = invoke(*options, "--no-cache", "--ignore", "JAX1", "proj")  # what the message offers
    assert ignored.exit_code == 0 and "no target" not in ignored.stderr, ignored.stderr


def test_with_no_target_the_patches_summary_says_the_jax1xx_rules_did_not_run(tmp_path: Path) -> None:
    project(tmp_path / "proj", None, UPGRADES)
    (tmp_path / "proj" / "CODEOWNERS").write_text("* @team\n")
    result = invoke("--no-cache", "--split-by", "codeowners", "--write-patches", "out", "proj")
    assert result.exit_code == 2, result.stderr
    assert "(target jax unknown: the JAX1xx rules did not run;" in (tmp_path / "out" / "SUMMARY.md").read_text()


def test_a_target_found_prints_no_warning(tmp_path: Path) -> None:
    project(tmp_path / "proj", None, KERNEL)
    venv(tmp_path / "proj", "0.12.0.1")
    result = invoke("--check", "--no-cache", "proj")
    assert "no target jax release" not in result.stderr and "(target jax 0.12.0.1 from .venv)" in result.stderr


# -- every entry point (tests/test_contract.py drives them) --

ENTRY_POINTS = {**test_contract.ENTRY_POINTS}


def via_server(root: Path, path: Path, options: list[str]) -> tuple[int, str]:
    pytest.importorskip("pygls")
    from codemods.server import Engine

    result = Engine(log=lambda kind, message: None).run(path, path.read_bytes())
    assert result is not None
    return 0, result.after or path.read_text()


def via_ipython(root: Path, path: Path, options: list[str]) -> tuple[int, str]:
    """`%%jax_codemod` on the kernel as a cell, in the project's folder: the diff it prints."""
    pytest.importorskip("IPython")
    import contextlib
    import io

    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "codemods.ipython")
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            shell.run_cell("%%jax_codemod\n" + path.read_text(), store_history=True)
    finally:  # the shell is the process's one instance: the next test loads the extension afresh
        shell.run_line_magic("unload_ext", "codemods.ipython")
    return 0, out.getvalue()


ENTRY_POINTS.update(server=via_server, ipython=via_ipython)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize(("tool", "project_jax", "written"), [
    (None, "0.12.0.1", HIGH),  # a pipx install: the project's .venv decides
    ((0, 12, 0, 1), "0.10.2", HIGHEST),  # the project's environment wins over the tool's
], ids=["tool-without-jax", "project-over-tool"])
def test_every_entry_point_targets_the_projects_venv(entry: str, tool: Optional[tuple], project_jax: str,
                                                     written: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capabilities, "installed_jax_version", lambda: tool)
    path = project(tmp_path / "proj", None)
    venv(tmp_path / "proj", project_jax)
    monkeypatch.chdir(tmp_path / "proj")  # where IPython runs
    status, after = ENTRY_POINTS[entry](tmp_path / "proj", path, [])
    if entry == "ipython":  # the kernel runs the code: its own environment's jax decides
        kernel = environment_jax(Path(sys.prefix))
        written = HIGH if kernel is not None and kernel >= (0, 11, 1) else HIGHEST
    assert written in after, (entry, status, after)


# -- the order of the sources --


def test_the_command_line_then_the_config_then_environments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    venv(tmp_path, "0.10.2")
    venv(tmp_path, "0.9.0", "venv")
    assert jax_target(tmp_path, given=(0, 8), configured=(0, 7)) == ((0, 8), "--jax-version")
    assert jax_target(tmp_path, configured=(0, 7)) == ((0, 7), "[tool.jax-codemod]")
    assert jax_target(tmp_path) == ((0, 10, 2), ".venv")
    monkeypatch.setenv("CONDA_PREFIX", str(venv(tmp_path / "conda", "0.6.0")))
    assert jax_target(tmp_path) == ((0, 6, 0), "$CONDA_PREFIX")
    monkeypatch.setenv("VIRTUAL_ENV", str(venv(tmp_path / "active", "0.5.0")))
    assert jax_target(tmp_path) == ((0, 5, 0), "$VIRTUAL_ENV")
    interpreter = venv(tmp_path / "editor", "0.4.35") / "bin" / "python"
    interpreter.parent.mkdir()
    interpreter.write_text("")
    assert jax_target(tmp_path, interpreter=str(interpreter)) == ((0, 4, 35), "interpreter")



def real_venv(folder: Path, jax_version: str) -> Path:
    """A virtualenv made by `python -m venv` (its `bin/python` a symlink to the base interpreter,
    where the system makes one), with jax `version` installed as far as a dist-info folder says.
    Its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, capture_output=True,
                   timeout=120)
    [site] = folder.glob("lib/python*/site-packages") or folder.glob("Lib/site-packages")
    (site / f"jax-{jax_version}.dist-info").mkdir()
    return folder / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def test_the_editors_interpreter_in_a_real_venv_names_the_venvs_jax(tmp_path: Path) -> None:
    """A POSIX venv's `bin/python` links to the base interpreter: resolving it read the base
    installation's jax (none), then the tool's own (issue 49, item 3c). pyvenv.cfg names the venv."""
    python = real_venv(tmp_path / "env", "0.4.30")
    assert (tmp_path / "env" / "pyvenv.cfg").is_file() and (python.is_symlink() or sys.platform == "win32")
    assert jax_target(tmp_path, interpreter=str(python)) == ((0, 4, 30), "interpreter")
    assert jax_target(tmp_path, interpreter=str(tmp_path / "env")) == ((0, 4, 30), "interpreter")

def test_an_environment_without_jax_is_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".venv" / "lib" / "python3.12" / "site-packages" / "numpy-2.0.0.dist-info").mkdir(parents=True)
    venv(tmp_path, "0.9.0", "venv")
    assert jax_target(tmp_path) == ((0, 9, 0), "venv")
    monkeypatch.setattr(capabilities, "installed_jax_version", lambda: (0, 12, 0, 1))
    assert jax_target(tmp_path / "elsewhere") == ((0, 12, 0, 1), "tool environment")


UV_LOCK = '''version = 1
[[package]]
name = "jaxlib"
version = "0.4.38"

[[package]]
name = "jax"
version = "0.4.38"
source = { registry = "https://pypi.org/simple" }
'''


@pytest.mark.parametrize(("files", "expected"), [
    ({"uv.lock": UV_LOCK}, ((0, 4, 38), "uv.lock")),
    ({"poetry.lock": UV_LOCK.replace("0.4.38", "0.5.3"), "requirements.txt": "jax==0.4.1\n"}, ((0, 5, 3), "poetry.lock")),
    ({"pdm.lock": UV_LOCK.replace("0.4.38", "0.6.2")}, ((0, 6, 2), "pdm.lock")),
    ({"uv.lock": "not = [toml", "requirements-tpu.txt": "# pinned\nnumpy\njax[tpu] == 0.7.0 ; python_version >= '3.10'\n"},
     ((0, 7, 0), "requirements-tpu.txt")),
    ({"requirements.txt": "jax>=0.4.30\n"}, (None, "")),  # a range pins nothing
    ({}, (None, "")),
])
def test_the_projects_pins_decide_when_no_environment_has_jax(files: dict[str, str], expected, tmp_path: Path) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert jax_target(tmp_path, dependencies=["numpy"]) == expected


def test_a_pin_in_the_dependencies_decides_last(tmp_path: Path) -> None:
    project(tmp_path / "proj", None, UPGRADES)
    pyproject = tmp_path / "proj" / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("name = 'demo'", "name = 'demo'\ndependencies = ['jax==0.12.0.1']"))
    result = invoke("--check", "--select", "JAX1", "--no-cache", "proj")
    assert result.exit_code == 1 and "(target jax 0.12.0.1 from pyproject.toml)" in result.stderr, result.stderr
    assert findings(result.stderr)
