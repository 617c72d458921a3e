"""`jax-codemod explain` for the errors a jax upgrade brings, each produced by running the old
spelling on a real jax: an AttributeError, ImportError or ModuleNotFoundError on a name jax removed
(the installed jax), and jax's DeprecationWarning as `warnings` prints it, as pytest's warnings
summary lists it and raised under `-W error` (the installed jax for `pjit`, jax 0.4.30 for
`jax.tree_map`). The log leads to the JAX1xx row's fix at the user's line, obeying the target and
the floor as `fix` does; after `explain --write` the program runs, warning-free.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")

from codemods.api_changes import TABLE  # noqa: E402
from tests import jax_support, warm_python  # noqa: E402
from tests.test_explain import explain  # noqa: E402
from tests.test_upgrades_jax import PROOF_ROOT  # noqa: E402

pytestmark = pytest.mark.jax

ROWS = {row.code: row for row in TABLE}


def run_python(script: Path, *options: str, python: str = sys.executable) -> subprocess.CompletedProcess:
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    if "-m" in options:  # a module run as a program (pytest): a fresh interpreter
        return subprocess.run([python, *options, script.name], capture_output=True, text=True, env=env, timeout=300,
                              cwd=script.parent)
    return warm_python.run([script.name], python=python, options=options, env=env, timeout=300, cwd=script.parent)


def failing(code: str, program: str, folder: Path) -> tuple[Path, str]:
    """The user's script and the traceback the installed jax gives it (skipped where it still runs)."""
    if ROWS[code].state(jax_support.JAX_VERSION) != "fails":
        pytest.skip(f"{code}'s old spelling still runs on the installed jax")
    script = folder / "user.py"
    script.write_text(program)
    ran = run_python(script)
    assert ran.returncode != 0 and "Traceback (most recent call last)" in ran.stderr, ran.stderr
    return script, ran.stderr


TREE_MAP = "import jax\n\nparams = {'w': 1.0}\nprint(jax.tree_map(lambda a: 2 * a, params))\n"
BLOCK_SPEC = """\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


out = pl.pallas_call(
    kernel,
    out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
    grid=(1,),
    in_specs=[pl.BlockSpec(lambda i: (i, 0), (8, 128))],
    out_specs=pl.BlockSpec(lambda i: (i, 0), (8, 128)),
    interpret=True,
)(jnp.ones((8, 128)))
print(out.sum())
"""


@pytest.mark.parametrize("code, program, error, line, fixed", [
    pytest.param("JAX101", TREE_MAP, "module 'jax' has no attribute 'tree_map'", 4,
                 "print(jax.tree.map(lambda a: 2 * a, params))", id="attribute"),
    pytest.param("JAX151", "import jax.experimental.pallas.tpu as pltpu\n\n"
                 "params = pltpu.TPUCompilerParams(dimension_semantics=('parallel',))\nprint(params)\n",
                 "module 'jax.experimental.pallas.tpu' has no attribute 'TPUCompilerParams'", 3,
                 "params = pltpu.CompilerParams(dimension_semantics=('parallel',))", id="pallas-attribute"),
    pytest.param("JAX101", "from jax import tree_map\n\nprint(tree_map(lambda a: 2 * a, {'w': 1.0}))\n",
                 "cannot import name 'tree_map' from 'jax'", 1, "from jax.tree_util import tree_map\n",
                 id="import-name"),
    pytest.param("JAX110", "from jax.config import config\n\nconfig.update('jax_enable_x64', False)\n",
                 "No module named 'jax.config'", 1, "from jax import config\n", id="module-not-found"),
    # The module is gone: the import's line names the use below it, which is what changes.
    pytest.param("JAX112", "from jax.lib import xla_bridge\n\nprint(xla_bridge.get_backend().platform)\n",
                 "cannot import name 'xla_bridge' from 'jax.lib'", 1,
                 "print(jax.extend.backend.get_backend().platform)", id="module-gone"),
    # A keyword a release removed: Python's TypeError names the function, the row the call.
    pytest.param("JAX140", "import jax.numpy as jnp\n\nprint(jnp.clip(jnp.ones(2), a_min=0.0))\n",
                 "clip() got an unexpected keyword argument 'a_min'", 3,
                 "print(jnp.clip(jnp.ones(2), min=0.0))", id="removed-keyword"),
    # An old spelling that fails in the call it is handed to: the traceback names pallas_call's line,
    # whose statement holds the BlockSpec (the seventh trial's X1: "no error jax-codemod fixes").
    pytest.param("JAX173", BLOCK_SPEC, "TypeError: 'function' object is not iterable", 10,
                 "    in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],", id="raised-in-pallas_call"),
    # The same where the named line is not the statement's first (the call inside parentheses).
    pytest.param("JAX173", BLOCK_SPEC.replace("out = pl.pallas_call(\n", "out = (\n    pl.pallas_call(\n").replace(
        ")(jnp.ones((8, 128)))\n", ")(jnp.ones((8, 128))))\n"), "TypeError: 'function' object is not iterable", 11,
                 "    in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],", id="raised-in-pallas_call-parenthesized"),
])
def test_a_removed_name_is_fixed_where_the_traceback_says(code: str, program: str, error: str, line: int,
                                                          fixed: str, tmp_path: Path) -> None:
    script, log = failing(code, program, tmp_path)
    assert error in log
    proc = explain(log, tmp_path, "--write")
    assert proc.returncode == 0, proc.stderr
    assert f"user.py:{line}: {code}: the traceback's `{error}` comes from this call" in proc.stderr
    assert fixed in script.read_text()
    rerun = run_python(script, "-W", "error::DeprecationWarning")
    assert rerun.returncode == 0, rerun.stderr


def test_a_removed_name_without_a_replacement_is_named_at_the_users_line(tmp_path: Path) -> None:
    """chex 0.1.85's fake.py on jax 0.12: `jax.lib.xla_bridge._backends` has no public successor,
    so explain names the line and what a person must do (JAX195), and writes nothing."""
    program = "import jax\n\n\ndef cpu():\n    return (jax.lib.xla_bridge._backends or {}).get('cpu')\n\n\ncpu()\n"
    script, log = failing("JAX195", program, tmp_path)
    assert "module 'jax.lib' has no attribute 'xla_bridge'" in log
    proc = explain(log, tmp_path, "--write")
    assert proc.returncode == 1, proc.stderr
    assert "user.py:5:13: JAX195 [manual] jax.lib.xla_bridge: removed in jax 0.8.0 (raises AttributeError" in proc.stderr
    assert "user.py:5: JAX195: no fix can be written for this call" in proc.stderr
    assert script.read_text() == program


def test_only_the_line_the_traceback_names_is_fixed_and_the_others_are_counted(tmp_path: Path) -> None:
    """explain fixes what the log proves; the file's other old spellings are named, for `fix`."""
    script, log = failing("JAX101", TREE_MAP + "print(jax.tree_map(str, params))\n", tmp_path)
    proc = explain(log, tmp_path, "--write")
    assert proc.returncode == 0, proc.stderr
    assert script.read_text() == TREE_MAP.replace("jax.tree_map", "jax.tree.map") + "print(jax.tree_map(str, params))\n"
    assert ("user.py: JAX101: 1 more reference(s) to the same old spelling in this file, which the log does not "
            "name: `jax-codemod --select JAX101 --write ") in proc.stderr


def test_the_target_and_the_floor_hold_the_fix_back_as_fix_does(tmp_path: Path) -> None:
    script, log = failing("JAX101", TREE_MAP, tmp_path)
    # A target that still has jax.tree_map: nothing to fix there, and the way out is named.
    proc = explain(log, tmp_path, "--write", "--jax-version", "0.4.20")
    assert proc.returncode == 2 and script.read_text() == TREE_MAP
    assert ("user.py:4: JAX101: jax.tree_map is deprecated in jax 0.4.26, removed in jax 0.6.0, but the target, "
            "jax 0.4.20, still has it: pass --jax-version") in proc.stderr
    # A floor without any spelling of the replacement (jax.tree_util.tree_map is read from 0.3.0 on):
    # a [manual] finding, the file unchanged.
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "user"\ndependencies = ["jax>=0.2.0"]\n')
    proc = explain(log, tmp_path, "--write")
    assert proc.returncode == 1 and script.read_text() == TREE_MAP
    assert "user.py:4:7: JAX101 [manual] jax.tree_map -> jax.tree.map" in proc.stderr
    assert "the project supports jax >= 0.2.0" in proc.stderr
    assert "user.py:4: JAX101: no fix can be written for this call" in proc.stderr
    # A floor without jax.tree.map (0.4.25) but with jax.tree_util.tree_map: the spelling both run.
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "user"\ndependencies = ["jax>=0.4.20"]\n')
    proc = explain(log, tmp_path, "--write")
    assert script.read_text() == TREE_MAP.replace("jax.tree_map", "jax.tree_util.tree_map"), proc.stderr


PJIT_TEST = '''\
import jax
from jax.experimental.pjit import pjit


def test_double():
    assert pjit(lambda x: x * 2)(1.0) == 2.0


if __name__ == "__main__":
    test_double()
'''


@pytest.mark.parametrize("how", ["warnings", "pytest-summary", "-W error"])
def test_a_deprecation_warning_of_the_installed_jax_leads_to_its_fix(how: str, tmp_path: Path) -> None:
    """pjit warns from jax 0.8.0 and is not removed: the warning is what the user sees."""
    if ROWS["JAX130"].state(jax_support.JAX_VERSION) != "warns":
        pytest.skip("pjit does not warn on the installed jax")
    script = tmp_path / "test_user.py"
    script.write_text(PJIT_TEST)
    if how == "pytest-summary":
        ran = run_python(script, "-m", "pytest", "-q", "-p", "no:cacheprovider")
        assert ran.returncode == 0 and "warnings summary" in ran.stdout, ran.stdout
        log = ran.stdout
    else:
        ran = run_python(script, "-W", "default" if how == "warnings" else "error::DeprecationWarning")
        assert (ran.returncode == 0) == (how == "warnings"), ran.stderr
        log = ran.stderr
    assert "DeprecationWarning: jax.experimental.pjit.pjit has been deprecated" in log
    proc = explain(log, tmp_path, "--write")
    assert proc.returncode == 0, proc.stderr
    assert "test_user.py:2: JAX130: the traceback's `jax.experimental.pjit.pjit has been deprecated" in proc.stderr
    assert script.read_text() == PJIT_TEST.replace("from jax.experimental.pjit import pjit\n", "").replace(
        "pjit(lambda", "jax.jit(lambda")
    rerun = run_python(script, "-W", "error::DeprecationWarning")
    assert rerun.returncode == 0, rerun.stderr


HELPERS = "import jax\n\n\ndef double_all(tree):\n    return jax.tree_map(lambda x: 2 * x, tree)\n"
TEST_HELPERS = "from helpers import double_all\n\n\ndef test_double():\n    assert double_all([1, 2]) == [2, 4]\n"


def pytest_log(tmp_path: Path, *options: str) -> str:
    """What pytest prints for a test whose helper module calls a name the installed jax removed."""
    if ROWS["JAX101"].state(jax_support.JAX_VERSION) != "fails":
        pytest.skip("jax.tree_map still runs on the installed jax")
    (tmp_path / "helpers.py").write_text(HELPERS)
    script = tmp_path / "test_helpers.py"
    script.write_text(TEST_HELPERS)
    ran = run_python(script, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options)
    assert ran.returncode == 1 and "AttributeError: module 'jax' has no attribute 'tree_map'" in ran.stdout, ran.stdout
    return ran.stdout


@pytest.mark.parametrize("tb", ["auto", "long", "short", "native"])
def test_every_pytest_traceback_style_leads_to_the_fix(tb: str, tmp_path: Path) -> None:
    """pytest's own layouts (--tb=auto, the default, and long: each frame's source with the failing
    line marked `>`; short: `path:line: in f` and the line) are read as Python's (native)."""
    log = pytest_log(tmp_path, f"--tb={tb}")
    proc = explain(log, tmp_path, "--write")
    assert proc.returncode == 0, proc.stderr + log
    assert "helpers.py:5: JAX101: the traceback's `module 'jax' has no attribute 'tree_map'` comes from this call" \
        in proc.stderr
    assert (tmp_path / "helpers.py").read_text() == HELPERS.replace("jax.tree_map", "jax.tree.map")
    assert run_python(tmp_path / "test_helpers.py", "-m", "pytest", "-q", "-p", "no:cacheprovider").returncode == 0


def test_pytests_one_line_style_says_which_style_shows_the_users_frames(tmp_path: Path) -> None:
    """--tb=line prints only the frame that raised, jax's own: the error is named, not guessed at."""
    log = pytest_log(tmp_path, "--tb=line")
    proc = explain(log, tmp_path, "--write")
    assert proc.returncode == 2 and (tmp_path / "helpers.py").read_text() == HELPERS
    assert ("explain: cannot place `module 'jax' has no attribute 'tree_map'`: no frame of the user's code in the "
            "traceback (pytest's --tb=line shows only the frame that raised: run pytest with --tb=short or --tb=long "
            "for the frames of your code)") in proc.stderr


def test_a_test_module_that_fails_to_import_leads_to_the_fix(tmp_path: Path) -> None:
    """pytest's collection error (`ImportError while importing test module`, then `Traceback:` and
    short frames) for an import of a name jax removed, in the test module itself."""
    if ROWS["JAX101"].state(jax_support.JAX_VERSION) != "fails":
        pytest.skip("jax.tree_map still runs on the installed jax")
    program = "from jax import tree_map\n\n\ndef test_double():\n    assert tree_map(lambda x: 2 * x, [1]) == [2]\n"
    script = tmp_path / "test_import.py"
    script.write_text(program)
    ran = run_python(script, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    assert ran.returncode == 2 and "ImportError while importing test module" in ran.stdout, ran.stdout
    proc = explain(ran.stdout, tmp_path, "--write")
    assert proc.returncode == 0, proc.stderr + ran.stdout
    assert script.read_text() == program.replace("from jax import tree_map", "from jax.tree_util import tree_map")
    assert run_python(script, "-m", "pytest", "-q", "-p", "no:cacheprovider").returncode == 0


def test_a_github_actions_log_with_its_timestamps_leads_to_the_fix(tmp_path: Path) -> None:
    """A CI log downloaded from GitHub Actions: every line after a timestamp, ANSI colours kept."""
    log = pytest_log(tmp_path, "--color=yes", "--tb=native")  # the layout explain read before it read CI logs
    assert "\x1b[" in log
    stamped = "".join(f"2026-12-06T04:07:{index % 60:02d}.{index:07d}Z {line}" for index, line in
                      enumerate(log.splitlines(keepends=True)))
    proc = explain(stamped, tmp_path, "--write")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "helpers.py").read_text() == HELPERS.replace("jax.tree_map", "jax.tree.map")


def test_a_deprecation_warning_of_an_older_jax_is_fixed_for_that_target(tmp_path: Path) -> None:
    """jax.tree_map warns on jax 0.4.30 (the proof venv, which has jax only): explain, targeting
    0.4.30, fixes it, and the rewrite runs there without the warning."""
    python = PROOF_ROOT / ".venv-jax0.4.30" / "bin" / "python"
    assert python.exists(), f"{python} is missing: `make test` builds it (PROOF_RELEASES in the Makefile)"
    script = tmp_path / "user.py"
    script.write_text(TREE_MAP)
    ran = run_python(script, "-W", "default", python=str(python))
    assert ran.returncode == 0 and "user.py:4: DeprecationWarning: jax.tree_map is deprecated" in ran.stderr, ran.stderr
    proc = explain(ran.stderr, tmp_path, "--write", "--jax-version", "0.4.30")
    assert proc.returncode == 0, proc.stderr
    assert "JAX101 [fixed] jax.tree_map -> jax.tree.map: deprecated since jax 0.4.26" in proc.stderr
    assert script.read_text() == TREE_MAP.replace("jax.tree_map", "jax.tree.map")
    rerun = run_python(script, "-W", "error::DeprecationWarning", python=str(python))
    assert rerun.returncode == 0, rerun.stderr


def test_a_notebook_cells_removed_name_is_fixed_in_that_cell(tmp_path: Path) -> None:
    """The traceback of a notebook cell (ipykernel's file for it), placed with --notebook."""
    import json

    failing("JAX101", TREE_MAP, tmp_path)
    cells = ["import jax\nparams = {'w': 1.0}\n", "doubled = jax.tree_map(lambda a: 2 * a, params)"]
    document = {"cells": [{"cell_type": "code", "execution_count": n, "metadata": {}, "outputs": [], "source": c}
                          for n, c in enumerate(cells, 1)], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text(json.dumps(document, indent=1))
    script = tmp_path / "cell.py"  # the cells, run as IPython runs them: each under its cell's file name
    script.write_text("".join(f"exec(compile({cell!r}, '<ipython-input-{n}-3f1a>', 'exec'))\n"
                              for n, cell in enumerate(cells, 1)))
    ran = run_python(script)
    assert 'File "<ipython-input-2-3f1a>", line 1' in ran.stderr, ran.stderr
    proc = explain(ran.stderr, tmp_path, "--write", "--notebook", "nb.ipynb")
    assert proc.returncode == 0, proc.stderr
    assert "nb.ipynb:cell 2:1: JAX101: the traceback's `module 'jax' has no attribute 'tree_map'`" in proc.stderr
    assert notebook.read_text() == json.dumps(document, indent=1).replace("jax.tree_map", "jax.tree.map")


@pytest.mark.parametrize("line, codes", [
    ("ModuleNotFoundError: No module named 'jax.lib.xla_bridge'", ["JAX109", "JAX112", "JAX113", "JAX195"]),  # the frame's line decides
    ("ModuleNotFoundError: No module named 'jax'", []),  # jax is not installed: no upgrade fixes that
    ("AttributeError: module 'jax.numpy' has no attribute 'frobnicate'", []),
    ("AttributeError: 'ArrayImpl' object has no attribute 'device_buffer'", ["JAX120"]),
    ("AttributeError: 'NoneType' object has no attribute 'shape'", []),
    ("DeprecationWarning: jax.tree_map is deprecated: use jax.tree.map or jax.tree_util.tree_map", ["JAX101"]),
])
def test_an_error_names_the_rows_of_the_name_it_says_is_gone(line: str, codes: list[str]) -> None:
    from codemods import explain as tracebacks

    log = f'Traceback (most recent call last):\n  File "user.py", line 1, in <module>\n    x\n{line}\n'
    assert [error.rule for error in tracebacks.parse_log(log)] == codes

