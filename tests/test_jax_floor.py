"""The lowest jax a project supports, read from its pyproject.toml as Ruff reads `requires-python`:
a JAX1xx fix must not write an API that release lacks. Nothing here imports jax.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest
from typer.testing import CliRunner

from codemods import config as project_config
from codemods.cli import app
from codemods.config import declared_jax_floor

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


def test_the_file_with_the_table_declares_the_floor(tmp_path: Path) -> None:
    """A nearer pyproject.toml without the table is not the project whose settings apply."""
    project(tmp_path / "outer", ["jax>=0.4.30"], "")
    project(tmp_path / "outer" / "inner", ["jax>=0.8.0"])
    assert HELD_BACK in fix(tmp_path / "outer" / "inner").output


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
