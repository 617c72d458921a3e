"""The IPython extension (`%load_ext codemods.ipython`), in IPython's own `InteractiveShell` and in a
real Jupyter kernel started through jupyter_client.

The cells define a Pallas TPU kernel with a per-operand precision
(tests/fixtures/precision/dot_pair_jax_0_12.in.py), launch it, and lower it for TPU with jax.export:
the lowering raises the real NotImplementedError on this CPU. The fix must be printed after the
traceback, `%jax_codemod fix` must offer the fixed kernel cell (set_next_input) and that cell, run,
must make the lowering cell pass. Other exceptions print nothing; `%%jax_codemod` checks a cell
without running it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("IPython")

from tests.test_cli import REPO  # noqa: E402

pytestmark = pytest.mark.jax

FIXTURE = (Path(__file__).parent / "fixtures" / "precision" / "dot_pair_jax_0_12.in.py").read_text()
IMPORTS = FIXTURE[FIXTURE.index("import functools"):FIXTURE.index("\n\n\ndef kernel")]
KERNEL = FIXTURE[FIXTURE.index("def kernel"):FIXTURE.index("\n\n\nmatmul")] + "\n"
LAUNCH = FIXTURE[FIXTURE.index("matmul = "):]
LOWER = ("args = (jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32))\n"
         "exported = jax.export.export(jax.jit(matmul), platforms=['tpu'])(*args)\n")
ERROR = "NotImplementedError: Per-operand dot precision unsupported"
# The scalar the installed jax lowers (HIGH from 0.11.1, else HIGHEST), in the cell's own spelling.
FIXED_KERNEL = re.compile(r"def kernel\(x_ref, y_ref, o_ref\):\n    o_ref\[\.\.\.\] = jnp\.dot\(x_ref\[\.\.\.\], "
                          r"y_ref\[\.\.\.\], precision=lax\.Precision\.HIGH(?:EST)?\)\n?$")
HELPER = '''\
import jax.numpy as jnp
from jax import lax


def project(x, w):
    return jnp.dot(x, w, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))
'''


@pytest.fixture(scope="module")
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.colors = "nocolor"
    shell.run_line_magic("load_ext", "codemods.ipython")
    offered: list[str] = []
    shell.set_next_input = lambda text, replace=False: offered.append(text)
    shell.offered = offered
    yield shell
    shell.run_line_magic("unload_ext", "codemods.ipython")


def run(shell, cell: str):
    """Run a cell as the user would (stored in history, counted); (result, what it printed)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        result = shell.run_cell(cell, store_history=True)
    return result, out.getvalue()


def test_a_cell_that_fails_to_lower_shows_the_fix_after_the_traceback(shell) -> None:
    for cell in (IMPORTS, KERNEL, LAUNCH):
        result, printed = run(shell, cell)
        assert result.success and printed == "", printed
    kernel_cell = shell.execution_count - 2
    result, printed = run(shell, LOWER)
    assert isinstance(result.error_in_exec, NotImplementedError)
    assert printed.count(ERROR) >= 1 and "Traceback (most recent call last)" in printed
    notice = printed.index("jax-codemod: this error is one it fixes")
    assert notice > printed.rindex(ERROR)  # after IPython's own traceback, which is whole
    report = printed[notice:]
    assert f"In [{kernel_cell}]:2: JAX001: the traceback's `Per-operand dot precision unsupported`" in report
    assert re.search(rf"In \[{kernel_cell}\]:2:60: JAX001 \[fixed\] jnp\.dot: precision \(DEFAULT, HIGH\)", report)
    assert f"--- a/In [{kernel_cell}]\n+++ b/In [{kernel_cell}]\n" in report
    assert "-    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))" in report
    assert re.search(r"\n\+    o_ref\[\.\.\.\] = jnp\.dot\(.*precision=lax\.Precision\.HIGH(EST)?\)\n", report), report

    # %jax_codemod fix: the fixed kernel cell in the next input; run, it makes the lowering pass.
    shell.offered.clear()
    result, printed = run(shell, "%jax_codemod fix")
    assert result.success and printed == "", printed
    assert len(shell.offered) == 1 and FIXED_KERNEL.match(shell.offered[0]), shell.offered
    result, printed = run(shell, shell.offered[0])
    assert result.success and printed == "", printed
    for cell in (LAUNCH, LOWER):
        result, printed = run(shell, cell)
        assert result.error_in_exec is None and printed == "", printed
    assert shell.user_ns["exported"].mlir_module()


def test_other_exceptions_print_nothing_more(shell) -> None:
    result, printed = run(shell, "x = 1\n1 / x / 0\n")
    assert isinstance(result.error_in_exec, ZeroDivisionError)
    assert "ZeroDivisionError" in printed and "jax-codemod" not in printed
    result, printed = run(shell, "raise NotImplementedError('something else entirely')")
    assert "NotImplementedError" in printed and "jax-codemod" not in printed


def test_the_cell_magic_checks_a_cell_without_running_it(shell) -> None:
    run(shell, IMPORTS)
    cell = (KERNEL.replace("def kernel", "def kernel_two") + "\n\n" + LAUNCH.replace("(kernel,", "(kernel_two,")
            .replace("matmul", "matmul_two") + "\nSIDE_EFFECT = 1\n")
    result, printed = run(shell, "%%jax_codemod\n" + cell)
    assert result.success
    number = shell.execution_count - 1
    assert re.search(rf"^In \[{number}\]:2:60: JAX001 \[fixed\]", printed, re.M), printed
    assert f"--- a/In [{number}]\n" in printed and "\n+    o_ref[...] = jnp.dot(" in printed
    assert "SIDE_EFFECT" not in shell.user_ns and "kernel_two" not in shell.user_ns
    result, printed = run(shell, "%%jax_codemod\ny = 2\n")
    assert printed == "jax-codemod: nothing to change in this cell\n" and "y" not in shell.user_ns


def test_the_cell_magic_shows_an_unsafe_fix_it_could_not_apply(shell) -> None:
    """A cell whose only fix is unsafe (JAX002 drops `accuracy=` in a TPU kernel): the finding and
    the diff it leaves out are printed, not a NotebookError traceback."""
    run(shell, IMPORTS + "\nfrom jax.experimental.pallas import tpu as pltpu\n")
    cell = ("def kernel_exp(x_ref, o_ref):\n    o_ref[...] = lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST)\n\n\n"
            "exp = pl.pallas_call(kernel_exp, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),\n"
            "                     compiler_params=pltpu.CompilerParams())\n")
    result, printed = run(shell, "%%jax_codemod\n" + cell)
    number = shell.execution_count - 1
    assert result.success and "Traceback" not in printed, printed
    assert re.search(rf"^In \[{number}\]:2:\d+: JAX002 \[dropped, unsafe fix", printed, re.M), printed
    assert (f"--- a/In [{number}]\n" in printed and "\n-    o_ref[...] = lax.exp(x_ref[...], accuracy=" in printed
            and "\n+    o_ref[...] = lax.exp(x_ref[...])\n" in printed), printed


def test_a_helper_imported_from_a_file_is_followed(shell, tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "shared_math_nb.py").write_text(HELPER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    run(shell, IMPORTS + "\nfrom shared_math_nb import project\n")
    run(shell, "def kernel_helper(x_ref, w_ref, o_ref):\n    o_ref[...] = project(x_ref[...], w_ref[...])\n")
    run(shell, "matmul = pl.pallas_call(kernel_helper, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))\n")
    result, printed = run(shell, LOWER)
    assert isinstance(result.error_in_exec, NotImplementedError)
    report = printed[printed.index("jax-codemod: this error is one it fixes"):]
    assert "shared_math_nb.py:6: JAX001: the traceback's" in report, report
    assert "shared_math_nb.py\n" in report and "+    return jnp.dot(x, w, precision=lax.Precision.HIGHEST)" in report
    assert (tmp_path / "shared_math_nb.py").read_text() == HELPER  # shown, never written
    shell.offered.clear()
    result, printed = run(shell, "%jax_codemod fix")
    assert shell.offered == [] and "the fix is in " in printed and "shared_math_nb.py, not in a cell" in printed


WRAPPER = """\
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def _kernel(x_ref, w_ref, o_ref, *, precision):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)


def mm(x, w, precision=None):
    body = functools.partial(_kernel, precision=precision)
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x, w)
"""


# A cell handing a pair to `mm` of a project's package, whose kernel binds it.
WRAPPED_CELL = ("def wrapped(x, w):\n    return mm(x, w, precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n\n\n"
                "args = (jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32))\n"
                "exported = jax.export.export(jax.jit(wrapped), platforms=['tpu'])(*args)\n")


def check_wrapped_cell(shell, root: Path, package: str, monkeypatch) -> str:
    """Write `package` (WRAPPER as its `mm`) under `root`, import `mm` from it, run `%%jax_codemod` on
    WRAPPED_CELL: the pair is fixed in the cell. The fixed line."""
    (root / package).mkdir()
    (root / package / "__init__.py").write_text("")
    (root / package / "mm.py").write_text(WRAPPER)
    monkeypatch.syspath_prepend(str(root))
    run(shell, IMPORTS + f"\nfrom {package}.mm import mm\n")
    result, printed = run(shell, "%%jax_codemod\n" + WRAPPED_CELL)
    number = shell.execution_count - 1
    assert re.search(rf"^In \[{number}\]:2:\d+: JAX001 \[fixed\]", printed, re.M), printed
    fixed = re.search(r"^\+    return mm\(.*\)$", printed, re.M)
    assert fixed, printed
    return fixed.group(0)[1:]


def test_the_cell_magic_follows_a_pair_into_a_wrapper_of_the_current_folder(shell, tmp_path: Path, monkeypatch) -> None:
    """A cell handing a pair to a project module's wrapper, whose kernel binds it: the session is one
    more module of the folder's project, so the pair is fixed in the cell (a new user's trial,
    bench/TRIAL_2026-12-06d.md S1: "nothing to change in this cell", and the cell failed to lower)."""
    monkeypatch.chdir(tmp_path)
    fixed = check_wrapped_cell(shell, tmp_path, "wrappers_nb", monkeypatch)
    result, printed = run(shell, WRAPPED_CELL)
    assert isinstance(result.error_in_exec, NotImplementedError) and ERROR in printed
    result, printed = run(shell, WRAPPED_CELL.replace(WRAPPED_CELL.splitlines()[1], fixed))
    assert result.error_in_exec is None, printed
    assert shell.user_ns["exported"].mlir_module()


def test_the_cell_magic_reads_the_whole_project_from_a_folder_inside_it(shell, tmp_path: Path, monkeypatch) -> None:
    """From `notebooks/` of a project (its pyproject.toml one folder up) the session is a module of
    that project, not of `notebooks/` alone: the wrapper in the project's package is followed."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    check_wrapped_cell(shell, tmp_path, "wrappers_sub", monkeypatch)


def test_the_note_after_an_error_follows_a_pair_from_a_cell_into_a_wrapper_of_the_current_folder(
        shell, tmp_path: Path, monkeypatch) -> None:
    """The same cell, run: the error raised in the wrapper's kernel is placed there, and the note says
    where the pair is written, the cell, with its fix, which `%jax_codemod fix` offers (a new user's
    trial, bench/TRIAL_2026-12-06d.md M3: "finds nothing to change at this call ... please report
    this traceback", and no fix to offer: the note read no project)."""
    (tmp_path / "wrappers_run").mkdir()
    (tmp_path / "wrappers_run" / "__init__.py").write_text("")
    (tmp_path / "wrappers_run" / "mm.py").write_text(WRAPPER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    run(shell, IMPORTS + "\nfrom wrappers_run.mm import mm\n")
    cell = ("def wrapped(x, w):\n    return mm(x, w, precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))\n\n\n"
            "args = (jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32))\n"
            "exported = jax.export.export(jax.jit(wrapped), platforms=['tpu'])(*args)\n")
    result, printed = run(shell, cell)
    assert isinstance(result.error_in_exec, NotImplementedError)
    number = shell.execution_count - 1
    report = printed[printed.index("jax-codemod: this error is one it fixes"):]
    assert "finds nothing to change" not in report, report
    assert "wrappers_run/mm.py:9: JAX001: the traceback's `Per-operand dot precision unsupported`" in report, report
    assert re.search(rf"^In \[{number}\]:2:\d+: JAX001 \[fixed\]", report, re.M), report
    # (the session's earlier cells are its module too: an earlier test's cell passing its own pair is fixed as well)
    assert re.search(rf"the value it is given is written in (In \[\d+\]:2, )*In \[{number}\]:2: fixed there \(above\)",
                     report), report
    assert (tmp_path / "wrappers_run" / "mm.py").read_text() == WRAPPER
    shell.offered.clear()
    result, printed = run(shell, "%jax_codemod fix")
    assert result.success and printed == "", printed
    [offered] = shell.offered
    assert offered != cell and "precision=(" not in offered, offered
    result, printed = run(shell, offered)
    assert result.error_in_exec is None, printed
    assert shell.user_ns["exported"].mlir_module()


def test_a_removed_name_in_a_timeit_line_is_fixed_inside_the_magic(shell) -> None:
    """`%timeit jax.tree_map(...)` raises AttributeError on jax >= 0.6: the fix is printed after the
    traceback (IPython quotes the line as `get_ipython().run_line_magic(...)`), offered with the
    magic kept, and the offered cell runs. `%%jax_codemod` finds the same in a `%time` line."""
    run(shell, "import jax\nparams = {'w': 1.0}\n")
    cell = "%timeit -n 1 -r 1 jax.tree_map(lambda a: 2 * a, params)"
    result, printed = run(shell, cell)
    assert isinstance(result.error_in_exec, AttributeError), printed
    number = shell.execution_count - 1
    report = printed[printed.index("jax-codemod: this error is one it fixes"):]
    assert f"In [{number}]:1: JAX101: the traceback's `module 'jax' has no attribute 'tree_map'`" in report, report
    assert f"In [{number}]:1:19: JAX101 [fixed] jax.tree_map -> jax.tree.map" in report
    shell.offered.clear()
    run(shell, "%jax_codemod fix")
    assert shell.offered == [cell.replace("jax.tree_map", "jax.tree.map")]
    result, printed = run(shell, shell.offered[0])
    assert result.error_in_exec is None and "per loop" in printed, printed
    result, printed = run(shell, "%%jax_codemod\n%time doubled = jax.tree_map(lambda a: 2 * a, params)\n")
    number = shell.execution_count - 1
    assert f"In [{number}]:1:17: JAX101 [fixed] jax.tree_map -> jax.tree.map" in printed, printed
    assert "+%time doubled = jax.tree.map(lambda a: 2 * a, params)\n" in printed and "doubled" not in shell.user_ns


def test_a_rule_left_out_is_named_in_the_cells_terms(tmp_path: Path) -> None:
    """explain --notebook names a placed call by its cell and line in the cell, not its module line."""
    path = tmp_path / "nb.ipynb"
    cells = [IMPORTS, KERNEL, LAUNCH, LOWER]
    document = {"cells": [{"cell_type": "code", "execution_count": n, "metadata": {}, "outputs": [], "source": c}
                          for n, c in enumerate(cells, 1)], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(document))
    log = ("Traceback (most recent call last):\n  File \"<ipython-input-2-abc>\", line 2, in kernel\n"
           "    " + KERNEL.splitlines()[1].strip() + "\nNotImplementedError: Per-operand dot precision unsupported\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "codemods", "explain", "--notebook", "nb.ipynb", "--select", "JAX002"],
                          input=log, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "nb.ipynb:cell 2:2: JAX001: the traceback's `Per-operand dot precision unsupported` comes from this call, but JAX001 is not selected" in proc.stderr


def test_importing_it_without_ipython_names_the_extra() -> None:
    code = "import sys; sys.modules['IPython'] = None; import codemods.ipython"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 1
    assert " -m pip install " in proc.stderr and "[ipython]'" in proc.stderr, proc.stderr


# --- a real kernel, through jupyter_client -------------------------------------------------------


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    pytest.importorskip("ipykernel")
    manager_module = pytest.importorskip("jupyter_client.manager")
    from jupyter_client.kernelspec import KernelSpecManager

    specs = tmp_path_factory.mktemp("kernels")
    spec = specs / "jax-codemod-test"
    spec.mkdir()
    # This interpreter (the venv's), not whatever `python3` kernel Jupyter would find.
    spec.joinpath("kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "jax-codemod test", "language": "python"}))
    manager = manager_module.KernelManager(kernel_name="jax-codemod-test",
                                           kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(specs)]))
    env = {**os.environ, "JAX_PLATFORMS": "cpu",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    manager.start_kernel(env=env, cwd=str(tmp_path_factory.mktemp("kernel_cwd")))
    client = manager.client()
    try:
        client.start_channels()
        client.wait_for_ready(timeout=120)
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def execute(client, code: str) -> tuple[dict, list[dict]]:
    """Run a cell in the kernel: its execute_reply, and its iopub messages in order."""
    messages: list[dict] = []
    reply = client.execute_interactive(code, timeout=240, output_hook=messages.append)
    return reply, messages


def test_in_a_jupyter_kernel_the_fix_is_printed_and_offered(kernel) -> None:
    reply, _ = execute(kernel, "%load_ext codemods.ipython")
    assert reply["content"]["status"] == "ok", reply["content"]
    kernel_count = None
    for cell in (IMPORTS, KERNEL, LAUNCH):
        reply, _ = execute(kernel, cell)
        assert reply["content"]["status"] == "ok", reply["content"]
        kernel_count = kernel_count or (reply["content"]["execution_count"] if cell is KERNEL else None)
    reply, messages = execute(kernel, LOWER)
    assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "NotImplementedError"
    kinds = [(message["msg_type"], message["content"]) for message in messages]
    errors = [index for index, (kind, _) in enumerate(kinds) if kind == "error"]
    printed = [(index, content["text"]) for index, (kind, content) in enumerate(kinds) if kind == "stream"]
    text = "".join(chunk for _, chunk in printed)
    assert errors and "jax-codemod: this error is one it fixes" in text, kinds
    first = next(index for index, chunk in printed if "jax-codemod" in chunk)
    assert first > errors[0]  # after the traceback Jupyter shows
    assert f"--- a/In [{kernel_count}]" in text and "\n+    o_ref[...] = jnp.dot(" in text, text

    reply, _ = execute(kernel, "%jax_codemod fix")
    payloads = [p for p in reply["content"].get("payload", []) if p.get("source") == "set_next_input"]
    assert len(payloads) == 1 and FIXED_KERNEL.match(payloads[0]["text"]), reply["content"]
    for cell in (payloads[0]["text"], LAUNCH, LOWER):
        reply, messages = execute(kernel, cell)
        assert reply["content"]["status"] == "ok", reply["content"]
    reply, messages = execute(kernel, "1 / 0")
    assert reply["content"]["status"] == "error"
    assert not any("jax-codemod" in m["content"].get("text", "") for m in messages if m["msg_type"] == "stream")
