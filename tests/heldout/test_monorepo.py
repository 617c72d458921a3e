"""The held-out set laid out as one monorepo: every project a script folder under one pyproject.toml,
each with its own `entry.py`, `ops.py`, `kernels.py` ... as teams lay out examples and benchmarks.
Python imports each folder's modules as its own (the folder is the script's `sys.path[0]`); the tool
must too (codemods/engine/programs.py): the findings on each project are those of the project run
alone, whether the monorepo is run whole or from the project's folder.

Before the split, a module name two folders shared was indexed for the first folder only: the
others' imports were linked into it, and their kernels' findings vanished (held-out 96 and 99 were
silent) or named other folders' callers.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import measure  # noqa: E402 - tests/heldout/measure.py: the tool's CLI run in-process in a folder
finally:
    sys.path.remove(str(HERE))

from codemods.engine.programs import programs  # noqa: E402

PROJECTS = sorted(path for path in measure.PROJECTS.iterdir() if (path / "expect.toml").is_file())
# folders whose names an earlier folder's modules hold (entry, ops, kernels, model ...), run from inside
FROM_INSIDE = ("96_int8_operand_cast_through_import_jax", "99_int8_operand_through_star_args",
               "56_kwargs_two_wrapper_layers", "67_accuracy_dict_call_splat", "97_int8_rebound_in_straight_line")


def _copy(project: Path, to: Path) -> None:
    shutil.copytree(project, to, ignore=shutil.ignore_patterns("__pycache__", "expect.toml"))


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list]:
    """Each project's findings, run alone in a folder of its own."""
    found = {}
    for project in PROJECTS:
        folder = tmp_path_factory.mktemp("alone") / project.name
        _copy(project, folder)
        found[project.name] = sorted(measure.tool(folder).findings)
    return found


@pytest.fixture(scope="module")
def monorepo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("monorepo")
    (root / "pyproject.toml").write_text("[project]\nname = 'examples'\n")
    for project in PROJECTS:
        _copy(project, root / project.name)
    return root


def test_the_set_shares_module_names(monorepo: Path) -> None:
    """The layout this file is about: folders holding modules of the same name, so a run splits."""
    files = sorted(str(path) for path in monorepo.rglob("*.py"))
    assert len(programs(files, files)) > len(PROJECTS) // 2


def test_whole_monorepo_finds_what_each_project_alone_finds(monorepo: Path, alone: dict[str, list]) -> None:
    by_project: dict[str, list] = {name: [] for name in alone}
    for path, *rest in measure.tool(monorepo).findings:
        project, _, file = path.partition("/")
        by_project[project].append((file, *rest))
    differing = [name for name in alone if sorted(by_project[name]) != alone[name]]
    assert not differing, f"{len(differing)} projects: {differing[:5]}"
    assert sum(map(len, alone.values())) > len(PROJECTS) // 2  # (findings there are, to differ)


@pytest.mark.parametrize("name", FROM_INSIDE)
def test_run_from_a_project_folder_finds_what_it_alone_finds(monorepo: Path, alone: dict[str, list], name: str) -> None:
    """The project root is the monorepo's (its pyproject.toml): the whole tree is indexed, the run's
    own folder's modules win."""
    assert sorted(measure.tool(monorepo / name).findings) == alone[name]
    assert alone[name]


@pytest.mark.parametrize("name", ["97_int8_rebound_in_straight_line", "56_kwargs_two_wrapper_layers",
                                  "67_accuracy_dict_call_splat"])
def test_explain_from_the_monorepo_root_fixes_the_traceback_of_a_project(
        monorepo: Path, tmp_path: Path, name: str) -> None:
    """A traceback is one process, whose imports are its folder's: explain, run at the monorepo's root
    (the project root), fixes the project so that JAX lowers it."""
    root = tmp_path / "monorepo"
    shutil.copytree(monorepo, root)
    before = measure.lower(root / name)
    assert before.error is not None
    log = tmp_path / "traceback.log"
    log.write_text(before.log)
    code, _, err = measure._cli(root, ["explain", "--write", "--unsafe-fixes", "--jax-version", measure.jax.__version__,
                                       str(log)])
    assert code == 0, err
    assert measure.lower(root / name).error is None


_KERNELS = """
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

import config


def body(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=config.PAIR)


def run():
    x = jnp.ones((8, 128), jnp.float32)
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x, x.T @ x)
"""


def test_check_on_one_file_of_a_script_folder_without_kernel_words(tmp_path: Path) -> None:
    """`--check b/config.py` from the monorepo's root (pre-commit on the file a fix belongs in):
    the file says nothing of pallas, and its folder's `config`/`entry` names are an earlier
    folder's too. It was run with the earlier folder's modules (its kernels' imports linked
    there: no finding); its folder decides now, whose kernels read its pair."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mono'\n")
    for folder, pair in (("a", "lax.Precision.HIGHEST"), ("b", "(lax.Precision.HIGHEST, lax.Precision.DEFAULT)")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "config.py").write_text(f"from jax import lax\n\nPAIR = {pair}\n")
        (tmp_path / folder / "entry.py").write_text(_KERNELS)
    assert measure.lower(tmp_path / "b").error is not None
    code, _, err = measure._cli(tmp_path, ["--write", "--no-cache", "--jax-version", measure.jax.__version__,
                                           str(Path("b") / "config.py")])
    assert code == 0, err
    assert "PAIR = lax.Precision.HIGHEST" in (tmp_path / "b" / "config.py").read_text()
    assert measure.lower(tmp_path / "b").error is None
