"""The lowest jax a project supports, read from its pyproject.toml as Ruff reads `requires-python`:
a JAX1xx fix must not write an API that release lacks. Nothing here imports jax.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import pytest
from typer.testing import CliRunner

from codemods import config as project_config
from codemods.cli import app
from codemods.floor import _poetry_floor, declared_floor, declared_jax_floor

# JAX111: jax.experimental.enable_x64 is removed in 0.9.0; its replacement, jax.enable_x64, exists
# only from 0.8.0.
X64 = '''\
import jax
from jax.experimental import enable_x64

with enable_x64():
    x = jax.numpy.zeros(3)
'''
FIXED = "with jax.enable_x64(True):"
HELD_BACK = "not rewritten: jax.enable_x64 needs jax >= 0.8.0 and the project supports jax >= 0.4.30"


@pytest.mark.parametrize(("dependencies", "floor"), [
    (["jax>=0.4.30"], (0, 4, 30)),
    (["jax[tpu]>=0.4.30,<0.13"], (0, 4, 30)),
    (["jax==0.6.2"], (0, 6, 2)),
    (["jax~=0.5.0"], (0, 5, 0)),
    (["jax===0.4.31"], (0, 4, 31)),
    (["jax==0.4.*"], (0, 4)),
    (["JAX (>=0.4.30)"], (0, 4, 30)),
    (["jax >= 0.4.30 ; python_version >= '3.10'"], (0, 4, 30)),
    (["jax<0.13,!=0.5.0,>=0.4.31"], (0, 4, 31)),  # the largest lower bound: 0.4.31, not 0.5.0
    (["jax>=0.4.30,>=0.5"], (0, 5)),
    (["jax>0.4.30"], (0, 4, 30)),  # the nearest known bound below: conservative
    (["jax>=0.5.0rc1"], (0, 5, 0)),
    (["numpy>=2", "jax>=0.4.30", "libcst"], (0, 4, 30)),
    # one requirement per Python: the project supports the lower floor somewhere
    (["jax>=0.6; python_version >= '3.12'", "jax>=0.4.30; python_version < '3.12'"], (0, 4, 30)),
    (["jax"], None),
    (["jax[cuda12]"], None),
    (["jax<0.13"], None),
    (["jax!=0.5.0"], None),
    (["jax @ https://example.com/jax-0.6.0-py3-none-any.whl"], None),
    (["jax>=0.6", "jax; python_version < '3.11'"], None),  # unbounded for some Python: no floor
    (["jaxlib>=0.4.30", "jax-dataclasses>=1.0", "flax>=0.8"], None),
    ([], None),
])
def test_the_floor_a_requirement_declares(dependencies: list[str], floor: Optional[tuple[int, ...]]) -> None:
    assert declared_jax_floor(dependencies) == floor


@pytest.mark.parametrize("requirement", ["jax>=banana", "jax>=0.4.*", "jax=0.4.30", "jax>=0.4.30 <0.13"])
def test_an_unreadable_jax_requirement_is_an_error(requirement: str) -> None:
    with pytest.raises(ValueError, match="not a version specifier"):
        declared_jax_floor([requirement])


def project(root: Path, dependencies: Optional[list[str]], table: Optional[str] = None) -> Path:
    """A project with those `[project] dependencies` (None: no key), `table` as its [tool.jax-codemod]
    (None: no table) and a module that uses jax.experimental.enable_x64."""
    root.mkdir(parents=True, exist_ok=True)
    lines = ["[project]", "name = 'demo'"]
    if dependencies is not None:
        lines.append(f"dependencies = {dependencies!r}")
    if table is not None:
        lines += ["", "[tool.jax-codemod]", table]
    (root / "pyproject.toml").write_text("\n".join(lines) + "\n")
    (root / "pkg").mkdir(exist_ok=True)
    (root / "pkg" / "x64.py").write_text(X64)
    return root / "pkg" / "x64.py"


def fix(root: Path, *options: str):
    return CliRunner().invoke(app, [str(root), "--select", "JAX111", "--jax-version", "0.12.0.1", "--no-cache",
                                    *options], catch_exceptions=False)


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JAX_CODEMOD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize(("dependencies", "table", "applies"), [
    (["jax>=0.4.30"], None, False),  # jax.enable_x64 would break the project on jax 0.4.30
    (["jax>=0.8.0"], None, True),
    (["jax[tpu]>=0.8.0,<0.13"], "", True),
    (["jax"], None, True),  # no floor declared: the target alone decides
    (None, None, True),
    (["jax>=0.4.30"], 'jax-floor = "0.8.0"', True),  # the key overrides the dependencies
    (["jax>=0.8.0"], 'jax-floor = "0.4.30"', False),
    (None, 'jax-floor = "0.4.30"', False),
])
def test_the_floor_decides_whether_a_newer_replacement_is_written(
        dependencies: Optional[list[str]], table: Optional[str], applies: bool, tmp_path: Path) -> None:
    project(tmp_path / "proj", dependencies, table)
    result = fix(tmp_path / "proj")
    assert result.exit_code == 1, result.output  # the target removed the old spelling either way
    assert (FIXED in result.output) == applies
    assert (HELD_BACK in result.output) == (not applies)


def test_the_nearest_pyproject_declares_the_floor_when_none_has_the_table(tmp_path: Path) -> None:
    """As Ruff reads requires-python: no [tool.jax-codemod] anywhere, the nearest pyproject.toml."""
    project(tmp_path / "outer", ["jax>=0.8.0"])
    project(tmp_path / "outer" / "inner", ["jax>=0.4.30"])
    assert HELD_BACK in fix(tmp_path / "outer" / "inner").output
    assert FIXED in fix(tmp_path / "outer").output


def test_a_project_below_the_config_is_held_to_its_own_floor(tmp_path: Path) -> None:
    """The [tool.jax-codemod] table above gives the settings, the file's own project its floor (a
    monorepo's root holds the config, each project declares its jax): the config's floor was taken
    for every file, and the fix written for a project that declares jax 0.4.30."""
    project(tmp_path / "outer", ["jax>=0.8.0"], "")
    project(tmp_path / "outer" / "inner", ["jax>=0.4.30"])
    assert HELD_BACK in fix(tmp_path / "outer" / "inner").output
    whole = fix(tmp_path / "outer").output
    assert FIXED in whole and HELD_BACK in whole


def test_the_floor_reaches_the_settings_of_every_entry_point(tmp_path: Path) -> None:
    """fix, explain and pre-commit build their settings with config.resolve; libcst's runner and
    Bowler with interop's project_choices: both read the same floor."""
    from codemods import registry
    from codemods.interop import _shared

    path = project(tmp_path / "proj", ["jax[tpu]>=0.4.30,<0.13"])
    config = project_config.load(project_config.find([path]), registry.RULES)
    _, settings = project_config.resolve(config, registry.RULES, jax_version="0.12.0.1")
    assert settings.jax_floor == (0, 4, 30)
    _shared._config_of_folder.cache_clear()
    _, adapter_settings = _shared.project_choices(str(path), registry.RULES, jax_version="0.12.0.1")
    assert adapter_settings.jax_floor == (0, 4, 30)


@pytest.mark.parametrize(("dependencies", "table", "message"), [
    (["jax>=banana"], None, "`project.dependencies` 'jax>=banana': not a version specifier"),
    ("jax>=0.4.30", None, "`project.dependencies` must be a list of strings"),
    (["jax>=0.4.30"], 'jax-floor = "new"', "`tool.jax-codemod.jax-floor` is not a jax version"),
])
def test_a_floor_that_cannot_be_read_is_an_error_naming_the_file(
        dependencies, table: Optional[str], message: str, tmp_path: Path) -> None:
    project(tmp_path / "proj", dependencies, table)
    result = fix(tmp_path / "proj")
    assert result.exit_code == 2
    assert str(tmp_path / "proj" / "pyproject.toml") in result.output
    assert message in result.output


def test_jax_floor_overrides_an_unreadable_requirement(tmp_path: Path) -> None:
    project(tmp_path / "proj", ["jax>=banana"], 'jax-floor = "0.8.0"')
    assert FIXED in fix(tmp_path / "proj").output


@pytest.mark.parametrize(("dependencies", "table", "floor", "applies"), [
    (["jax>=0.4.30"], 'jax-floor = "0.4.30"', "0.8.0", True),  # --jax-floor wins over the key and the dependencies
    (["jax>=0.8.0"], 'jax-floor = "0.8.0"', "0.4.30", False),
    (["jax>=0.8.0"], None, "0.4.30", False),
])
def test_jax_floor_on_the_command_line_wins(dependencies: list[str], table: Optional[str], floor: str, applies: bool,
                                            tmp_path: Path) -> None:
    project(tmp_path / "proj", dependencies, table)
    result = fix(tmp_path / "proj", "--jax-floor", floor)
    assert (FIXED in result.output) == applies and (HELD_BACK.replace("0.4.30", floor) in result.output) != applies


# pl.dot in a Triton kernel: its fix (pallas.triton.dot) needs jax 0.10.2.
TRITON = '''\
from jax.experimental import pallas as pl

def kernel(x, y, o):
    o[...] = pl.dot(x[...], y[...])

f = pl.pallas_call(kernel, out_shape=None, backend="triton")
'''


@pytest.mark.parametrize(("dependencies", "table", "options", "says"), [
    (["jax>=0.4.30"], None, (), "; 2 fixes held back by jax>=0.4.30 (proj/pyproject.toml): raise it or pass --jax-floor"),
    (["jax>=0.8.0"], 'jax-floor = "0.4.30"', (),
     "; 2 fixes held back by jax>=0.4.30 (jax-floor in proj/pyproject.toml): raise it or pass --jax-floor"),
    (None, None, ("--jax-floor", "0.4.30"), "; 2 fixes held back by --jax-floor 0.4.30: raise it"),
    (["jax>=0.10.2"], None, (), ""),  # nothing held back: nothing said
])
def test_the_summary_says_how_many_fixes_the_floor_holds_back_and_where_it_was_read(
        dependencies: Optional[list[str]], table: Optional[str], options: tuple[str, ...], says: str,
        tmp_path: Path) -> None:
    project(tmp_path / "proj", dependencies, table)
    (tmp_path / "proj" / "pkg" / "triton.py").write_text(TRITON)
    result = fix(tmp_path / "proj", "--select", "JAX150", *options)
    summary = result.stderr.splitlines()[-1]
    assert summary.endswith(f"(target jax 0.12.0.1 from --jax-version){says}"), summary


# -- the files projects declare their jax in (codemods/floor.py) --

PEP621 = "[project]\nname = 'demo'\n"
SETUP_RUNS = "open('SETUP_PY_WAS_EXECUTED', 'w').close()\n"  # setup.py is read, never run


def declaring(root: Path, files: dict[str, str]) -> None:
    """A project of those files (relative path: text) and a module that uses jax.experimental.enable_x64."""
    for name, text in {**files, "pkg/x64.py": X64}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.mark.parametrize(("files", "declared_in"), [
    ({"pyproject.toml": PEP621 + "dependencies = ['numpy']\n[project.optional-dependencies]\ntpu = ['jax[tpu]>=0.4.30']\n"},
     "pyproject.toml"),
    ({"pyproject.toml": "[tool.poetry]\nname = 'demo'\n[tool.poetry.dependencies]\npython = '^3.10'\njax = '^0.4.30'\n"},
     "pyproject.toml"),
    ({"pyproject.toml": "[tool.poetry.dependencies]\njax = [{version = '>=0.6,<0.13', python = '>=3.12'},\n"
                        "       {version = '~0.4.30', extras = ['tpu'], python = '<3.12'}]\n"}, "pyproject.toml"),
    ({"setup.cfg": "[metadata]\nname = demo\n\n[options]\ninstall_requires =\n    numpy>=1.22\n"
                   "    jax>=0.4.30; python_version >= '3.9'\n"}, "setup.cfg"),
    ({"setup.py": SETUP_RUNS + "from setuptools import setup\n\nsetup(name='demo', install_requires=['numpy', 'jax>=0.4.30'])\n"},
     "setup.py"),
    ({"setup.py": SETUP_RUNS + "import setuptools\n\nREQUIRED = ('jax>=0.4.30', 'chex')\n"
                  "setuptools.setup(name='demo', install_requires=REQUIRED)\n"}, "setup.py"),
    ({"pyproject.toml": PEP621, "requirements.txt": "numpy\njax>=0.4.30  # the oldest we test\n-e .\n"}, "requirements.txt"),
    # rlax 0.1.6: setup.py computes install_requires from requirements/requirements.txt
    ({"setup.py": SETUP_RUNS + "from setuptools import setup\n\ndef _parse(path):\n"
                  "    return [line.strip() for line in open(path)]\n\n"
                  "setup(name='demo', install_requires=_parse('requirements/requirements.txt'))\n",
      "requirements/requirements.txt": "absl-py>=0.9.0\njax>=0.4.30\njaxlib>=0.4.30\n",
      "requirements/requirements-test.txt": "jax==0.6.2\n"}, "requirements/requirements.txt"),
    ({"pyproject.toml": PEP621, "requirements-dev.txt": "-r deps/runtime.txt\npytest\n",
      "deps/runtime.txt": "jax[cuda12]==0.4.30 \\\n    --hash=sha256:0123abcd\n"}, "requirements-dev.txt"),
    ({"pyproject.toml": PEP621, "uv.lock": 'version = 1\n\n[[package]]\nname = "jax"\nversion = "0.4.30"\n'}, "uv.lock"),
    ({"pyproject.toml": PEP621, "poetry.lock": '[[package]]\nname = "jax"\nversion = "0.4.30"\n'}, "poetry.lock"),
], ids=["pep621-optional-dependencies", "poetry", "poetry-per-python", "setup.cfg", "setup.py", "setup.py-name",
        "requirements.txt", "requirements-folder", "requirements-include", "uv.lock", "poetry.lock"])
def test_the_floor_is_read_where_the_project_declares_it(files: dict[str, str], declared_in: str,
                                                           tmp_path: Path) -> None:
    """Each file kind alone declares jax>=0.4.30: jax.enable_x64 (0.8.0) is held back, and the
    summary names the file (the floor was read from [project] dependencies only: the fix was written)."""
    declaring(tmp_path / "proj", files)
    result = fix(tmp_path / "proj")
    assert HELD_BACK in result.output and FIXED not in result.output, result.output
    summary = result.stderr.splitlines()[-1]
    assert summary.endswith(f"; 1 fix held back by jax>=0.4.30 ({Path('proj', declared_in)}): raise it or pass "
                            "--jax-floor"), summary
    assert not (tmp_path / "proj" / "SETUP_PY_WAS_EXECUTED").exists() and not Path("SETUP_PY_WAS_EXECUTED").exists()


@pytest.mark.parametrize(("files", "applies"), [
    ({"pyproject.toml": PEP621 + "dependencies = ['jax>=0.8.0']\n", "requirements.txt": "jax>=0.4.30\n"}, True),
    ({"setup.cfg": "[options]\ninstall_requires =\n    jax>=0.8.0\n", "uv.lock": '[[package]]\nname = "jax"\nversion = "0.4.30"\n'},
     True),
    ({"setup.py": "from setuptools import setup\nsetup(install_requires=['jax'])\n", "requirements.txt": "jax>=0.4.30\n"},
     False),  # jax unbounded in setup.py declares no floor: the next file does
    ({"pyproject.toml": PEP621, "requirements.txt": "jax>=0.8.0\n", "requirements-oldest.txt": "jax==0.4.30\n"}, False),
], ids=["metadata-before-requirements", "setup.cfg-before-the-lock", "unbounded-then-requirements",
        "lowest-requirements-file"])
def test_the_first_file_that_bounds_jax_decides_and_the_lowest_of_its_kind(files: dict[str, str], applies: bool,
                                                                          tmp_path: Path) -> None:
    declaring(tmp_path / "proj", files)
    result = fix(tmp_path / "proj")
    assert (FIXED in result.output) == applies and (HELD_BACK in result.output) != applies, result.output


@pytest.mark.parametrize(("name", "text", "message"), [
    ("requirements.txt", "jax>=banana\n", "requirements.txt: 'jax>=banana': not a version specifier"),
    ("setup.cfg", "[options]\ninstall_requires =\n    jax>=0.4.*\n", "setup.cfg: `options.install_requires` 'jax>=0.4.*'"),
    ("pyproject.toml", "[tool.poetry.dependencies]\njax = '^banana'\n", "`tool.poetry.dependencies.jax` '^banana'"),
], ids=["requirements.txt", "setup.cfg", "poetry"])
def test_a_jax_requirement_that_cannot_be_read_in_any_file_is_an_error_naming_it(name: str, text: str, message: str,
                                                                                  tmp_path: Path) -> None:
    declaring(tmp_path / "proj", {"pyproject.toml": PEP621, name: text})
    result = fix(tmp_path / "proj")
    assert result.exit_code == 2 and message in result.output, result.output


@pytest.mark.parametrize("dependencies", [None, ["jax"], ["numpy>=2"]])
def test_the_summary_says_when_no_floor_is_found(dependencies: Optional[list[str]], tmp_path: Path) -> None:
    project(tmp_path / "proj", dependencies)
    result = fix(tmp_path / "proj")
    assert FIXED in result.output
    assert result.stderr.splitlines()[-1].endswith(
        "(target jax 0.12.0.1 from --jax-version); no jax floor found (no jax>= in pyproject.toml, setup.cfg, setup.py, "
        "requirements*.txt or a lock file): the JAX1xx fixes need only the target; declare the oldest jax supported or "
        "pass --jax-floor"), result.stderr
    declared = fix(tmp_path / "proj", "--jax-floor", "0.8.0")
    assert "no jax floor found" not in declared.stderr, declared.stderr


@pytest.mark.parametrize(("constraint", "floor"), [
    ("^0.4.30", (0, 4, 30)), ("~0.4.30", (0, 4, 30)), ("0.4.30", (0, 4, 30)), ("=0.4.30", (0, 4, 30)),
    ("~=0.4.30", (0, 4, 30)), (">=0.4.30,<0.13", (0, 4, 30)), (">=0.4.30 <0.13", (0, 4, 30)),
    ("^0.6 || ^0.4.30", (0, 4, 30)), ("*", None), ("<0.13", None), ("^0.6 || *", None),
])
def test_the_floor_of_a_poetry_constraint(constraint: str, floor: Optional[tuple[int, ...]]) -> None:
    assert _poetry_floor(constraint, Path("pyproject.toml"), "jax") == floor


def test_requirements_files_that_include_each_other_are_each_read_once(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("-r requirements-dev.txt\njax>=0.6\n")
    (tmp_path / "requirements-dev.txt").write_text("--requirement=requirements.txt\njax>=0.4.30 ; python_version < '3.11'\n")
    assert declared_floor(tmp_path) == ((0, 4, 30), tmp_path / "requirements-dev.txt")


# -- a monorepo: each file held to its own project's floor (issue 49, B3) --

def monorepo(root: Path) -> Path:
    """A repository (a `.git`, nothing declared at its root) of three projects, each with a module
    using jax.experimental.enable_x64: pkg_a declares jax>=0.4.30 in its pyproject.toml (the fix,
    which needs 0.8.0, is held back), pkg_b jax>=0.8.0 in requirements.txt (fixed), pkg_c nothing."""
    declaring(root / "pkg_a", {"pyproject.toml": PEP621 + "dependencies = ['jax>=0.4.30']\n"})
    declaring(root / "pkg_b", {"requirements.txt": "jax>=0.8.0\n"})
    declaring(root / "pkg_c", {"setup.py": "from setuptools import setup\nsetup(name='c')\n"})
    (root / ".git").mkdir()
    return root


def findings_by_project(output: str) -> dict[str, str]:
    return {line.split("/")[0]: line.split(" JAX111 ")[1] for line in output.splitlines() if " JAX111 " in line}


FLOORS = ("; floors: jax>=0.4.30 for pkg_a/ ({a}: 1 fix held back), jax>=0.8.0 for pkg_b/ ({b}): raise them or pass "
          "--jax-floor; no jax floor found for pkg_c/ (no jax>= in pyproject.toml, setup.cfg, setup.py, "
          "requirements*.txt or a lock file): the JAX1xx fixes there need only the target; declare the oldest jax "
          "supported or pass --jax-floor")


def test_each_project_of_a_monorepo_is_held_to_its_own_floor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the root, which declares none: the root's floor was read for every file ("no jax floor
    found"), and pkg_a got a fix its own jax>=0.4.30 lacks. Each file's nearest project decides now."""
    monkeypatch.chdir(monorepo(tmp_path / "mono"))
    result = fix(Path("."))
    found = findings_by_project(result.output)
    assert found["pkg_a"].startswith("[manual]") and HELD_BACK in found["pkg_a"], result.output
    assert found["pkg_b"].startswith("[fixed]") and found["pkg_c"].startswith("[fixed]"), result.output
    summary = result.stderr.splitlines()[-1]
    assert summary.endswith(FLOORS.format(a=Path("pkg_a", "pyproject.toml"),
                                          b=Path("pkg_b", "requirements.txt"))), summary


def test_jax_floor_on_the_command_line_holds_for_every_project(tmp_path: Path) -> None:
    root = monorepo(tmp_path / "mono")
    lowered = fix(root, "--jax-floor", "0.4.30")
    assert all(HELD_BACK in finding for finding in findings_by_project(lowered.output).values()), lowered.output
    assert lowered.stderr.splitlines()[-1].endswith("; 3 fixes held back by --jax-floor 0.4.30: raise it"), lowered.stderr
    raised = fix(root, "--jax-floor", "0.8.0")
    assert all(finding.startswith("[fixed]") for finding in findings_by_project(raised.output).values()), raised.output
    assert raised.stderr.splitlines()[-1].endswith("(target jax 0.12.0.1 from --jax-version)"), raised.stderr


def test_the_patches_summary_names_the_floor_each_owner_was_held_to(tmp_path: Path) -> None:
    root = monorepo(tmp_path / "mono")
    result = fix(root, "--split-by", "directory:1", "--write-patches", str(tmp_path / "patches"))
    assert result.exit_code == 1, result.output
    sections = (tmp_path / "patches" / "SUMMARY.md").read_text().split("\n## ")[1:]
    held_to = {section.split("`")[1]: section.split("held to (the oldest jax each project supports):\n\n```\n")[1]
               .split("\n```")[0] for section in sections}
    a, b = Path("mono", "pkg_a", "pyproject.toml"), Path("mono", "pkg_b", "requirements.txt")
    assert held_to == {
        "pkg_a": f"jax>=0.4.30 for {Path('mono', 'pkg_a')}/ ({a}): 1 file",
        "pkg_b": f"jax>=0.8.0 for {Path('mono', 'pkg_b')}/ ({b}): 1 file",
        "pkg_c": f"no jax floor found for {Path('mono', 'pkg_c')}/ (no jax>= in pyproject.toml, setup.cfg, setup.py, "
                 "requirements*.txt or a lock file): 1 file"}, held_to


def test_one_settings_object_gives_each_file_its_projects_floor_at_every_entry_point(tmp_path: Path) -> None:
    """The server, IPython, explain and libcst's runner call process_source with the settings of
    config.resolve: the file's own floor is applied there, not in the command line's runner."""
    from codemods import registry
    from codemods.engine.runner import process_source

    root = monorepo(tmp_path / "mono")
    config = project_config.load(project_config.find([root]), registry.RULES)
    rules, settings = project_config.resolve(config, registry.RULES, select=["JAX111"], jax_version="0.12.0.1")
    outcome = {}
    for name in ("pkg_a", "pkg_b", "pkg_c"):
        path = root / name / "pkg" / "x64.py"
        [finding] = process_source(path, path.read_bytes(), rules, settings).findings
        outcome[name] = finding.applied
    assert outcome == {"pkg_a": False, "pkg_b": True, "pkg_c": True}


def test_each_project_folder_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tree of many files in a few projects reads each project's declaration once, not per file."""
    root = monorepo(tmp_path / "mono")
    for index in range(20):
        (root / "pkg_a" / "pkg" / f"m{index}.py").write_text(X64)
        (root / "pkg_a" / "pkg" / "deep" / "deeper").mkdir(parents=True, exist_ok=True)
        (root / "pkg_a" / "pkg" / "deep" / "deeper" / f"m{index}.py").write_text(X64)
    read: list[Path] = []
    real = project_config.declared_floor
    monkeypatch.setattr(project_config, "declared_floor",
                        lambda folder, *rest: read.append(folder) or real(folder, *rest))
    floors = project_config.ProjectFloors(project_config.Floor(None), root)
    seen = {floors(path).version for path in sorted(root.rglob("*.py"))}
    assert seen == {(0, 4, 30), (0, 8, 0), None}
    assert sorted(read) == [root / "pkg_a", root / "pkg_b", root / "pkg_c"], read


def _age(root: Path) -> None:
    """Every file of the tree as old as 2020 (the result cache trusts, and replays, only files older
    than the run), the same each time: a module's size and mtime say it is unchanged."""
    for path in root.rglob("*"):
        os.utime(path, (1_577_836_800, 1_577_836_800))


def test_a_floor_changed_in_one_project_invalidates_its_cached_results(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """No module changes, one project's requirement does: the warm run (which replays an unchanged
    tree, and takes unchanged files' results from the cache) must not give the old floor's result."""
    root = monorepo(tmp_path / "mono")
    monkeypatch.chdir(root)
    _age(root)
    cached = ("--select", "JAX111", "--jax-version", "0.12.0.1")
    run = lambda *paths: CliRunner().invoke(app, [*(paths or ["."]), *cached], catch_exceptions=False)  # noqa: E731
    first = run()
    assert findings_by_project(first.output)["pkg_b"].startswith("[fixed]")
    assert run().output == first.output  # replayed
    (root / "pkg_b" / "requirements.txt").write_text("jax>=0.4.30\n")
    _age(root)
    after = findings_by_project(run().output)
    assert HELD_BACK in after["pkg_b"] and HELD_BACK in after["pkg_a"] and after["pkg_c"].startswith("[fixed]"), after
    # and the per-file cache alone (the replay missing: another set of files named)
    (root / "pkg_b" / "requirements.txt").write_text("jax>=0.8.0\n")
    _age(root)
    alone = run("pkg_b", "pkg_a")
    assert findings_by_project(alone.output)["pkg_b"].startswith("[fixed]"), alone.output


def test_a_project_whose_floor_cannot_be_read_has_its_files_reported_and_the_others_processed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = monorepo(tmp_path / "mono")
    (root / "pkg_b" / "requirements.txt").write_text("jax>=banana\n")
    monkeypatch.chdir(root)
    result = fix(Path("."))
    assert result.exit_code == 2
    assert f"{Path('pkg_b', 'pkg', 'x64.py')}: error: {root / 'pkg_b' / 'requirements.txt'}: 'jax>=banana': not a " \
           "version specifier" in result.stderr, result.stderr
    found = findings_by_project(result.output)
    assert set(found) == {"pkg_a", "pkg_c"} and HELD_BACK in found["pkg_a"], result.output
