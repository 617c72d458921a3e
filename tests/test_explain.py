"""`jax-codemod explain`, fed the tracebacks the installed jax really prints.

Each broken program is lowered in a subprocess (the way a user meets the error), its stderr is
handed to `explain`, and after `explain --write` the same program lowers. Tracebacks are taken with
JAX's traceback filtering on and off, from a checkout at another path than the one being fixed
(paths are matched on their longest existing suffix), several at once, for a helper in another
module used by a kernel launched through a registry (only the traceback can place it), for calls
through module-level partials, and for failing calls a `# jax-codemod: ignore` comment silences.
Every placed error gets an answer (the in-process tests at the end use a stub rule for the answers
no real rule gives today).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")

from codemods import explain as tracebacks  # noqa: E402
from codemods.engine import runner  # noqa: E402
from codemods.engine.diagnostics import Applicability, Finding, Fix, Kind  # noqa: E402
from codemods.engine.fixes import Edit, FixPlan  # noqa: E402
from codemods.engine.rule import Rule  # noqa: E402
from codemods.settings import Settings  # noqa: E402
from tests import jax_support, warm_python  # noqa: E402
from tests.test_cli import REPO  # noqa: E402

pytestmark = pytest.mark.jax

LOWER = '''\
"""Lower a program for its platform, as a user would: the traceback is the one JAX prints."""
import importlib.util, sys
import jax
sys.path.insert(0, sys.argv[2])
spec = importlib.util.spec_from_file_location("program", sys.argv[1])
program = importlib.util.module_from_spec(spec)
spec.loader.exec_module(program)
fn, args = program.build()
jax.export.export(fn, platforms=[program.PLATFORM])(*args)
print("lowered")
'''
HELPER_MODULE = '''\
import jax.numpy as jnp
from jax import lax


def project(x, w):
    return jnp.dot(x, w, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))
'''
KERNEL_USING_IT = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from shared_math import project

PLATFORM = "tpu"
KERNELS = {}


def register(body):
    KERNELS[body.__name__] = body
    return body


@register
def kernel(x_ref, w_ref, o_ref):
    o_ref[...] = project(x_ref[...], w_ref[...])


def build(name="kernel"):
    call = pl.pallas_call(KERNELS[name], out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return jax.jit(call), (jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32))
'''


def lower(program: Path, tmp_path: Path, *, filtering: str = "auto") -> subprocess.CompletedProcess:
    script = tmp_path / "lower_program.py"
    script.write_text(LOWER)
    env = {**os.environ, "JAX_TRACEBACK_FILTERING": filtering, "JAX_PLATFORMS": "cpu"}
    return warm_python.run([script, program, program.parent], env=env, timeout=300, cwd=program.parent)


def explain(log: str, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "codemods", "explain", *args], input=log, capture_output=True,
                          text=True, env=env, timeout=120, cwd=cwd)


def examples_in(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for path in jax_support.EXAMPLE_PATHS:
        shutil.copy(path, folder / path.name)
    return folder


FIXABLE = [path.stem for path in jax_support.EXAMPLE_PATHS if path.stem != "bf16_lstm"]


@pytest.mark.parametrize("filtering", ["auto", "off"])
@pytest.mark.parametrize("stem", FIXABLE)
def test_explain_write_fixes_what_the_traceback_names(stem: str, filtering: str, tmp_path: Path) -> None:
    program = jax_support.load_program(jax_support.EXAMPLES_DIR / f"{stem}.py", f"explain_{stem}")
    reason = jax_support.jax_too_old(program)
    if reason:
        pytest.skip(reason)
    where_it_failed = examples_in(tmp_path / "ci" / "build" / "examples")
    failed = lower(where_it_failed / f"{stem}.py", tmp_path, filtering=filtering)
    assert program.EXPECTED_ERROR in failed.stderr, failed.stderr[-2000:]

    shutil.rmtree(tmp_path / "ci")  # the log comes from another machine: its paths do not exist here
    checkout = examples_in(tmp_path / "laptop" / "examples")  # the same files under another prefix
    dry = explain(failed.stderr, tmp_path / "laptop", "--root", str(tmp_path / "laptop"))
    assert dry.returncode == 1, dry.stderr
    assert f"examples/{stem}.py:" in dry.stderr and "comes from this call" in dry.stderr
    assert dry.stdout.startswith("--- a/")
    assert (checkout / f"{stem}.py").read_bytes() == (jax_support.EXAMPLES_DIR / f"{stem}.py").read_bytes()

    unsafe = any("unsafe fix" in line for line in dry.stderr.splitlines())
    if unsafe:  # a dropped accuracy hint: shown, written only with --unsafe-fixes
        assert "[dropped, unsafe fix: --unsafe-fixes]" in dry.stderr
        refused = explain(failed.stderr, tmp_path / "laptop", "--root", str(tmp_path / "laptop"), "--write")
        assert refused.returncode == 1, refused.stderr
        assert (checkout / f"{stem}.py").read_bytes() == (jax_support.EXAMPLES_DIR / f"{stem}.py").read_bytes()
    written = explain(failed.stderr, tmp_path / "laptop", "--root", str(tmp_path / "laptop"), "--write",
                      *(["--unsafe-fixes"] if unsafe else []))
    assert written.returncode == 0, written.stderr
    fixed = lower(checkout / f"{stem}.py", tmp_path)
    assert fixed.stdout.strip() == "lowered", fixed.stderr[-3000:]


def test_a_helper_in_another_module_is_placed_by_the_traceback_alone(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "shared_math.py").write_text(HELPER_MODULE)
    (project / "model.py").write_text(KERNEL_USING_IT)
    failed = lower(project / "model.py", tmp_path)
    assert "Per-operand dot precision unsupported" in failed.stderr
    result = explain(failed.stderr, project, "--write")
    assert result.returncode == 0, result.stderr
    assert "shared_math.py:6: JAX001" in result.stderr
    assert "precision=lax.Precision.HIGHEST" in (project / "shared_math.py").read_text()
    assert (project / "model.py").read_text() == KERNEL_USING_IT
    assert lower(project / "model.py", tmp_path).stdout.strip() == "lowered"


KERNEL_TAKING_PRECISION = '''\
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def matmul_kernel(x_ref, w_ref, o_ref, *, precision):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=precision)


def matmul(x, w, precision=None):
    body = functools.partial(matmul_kernel, precision=precision)
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x, w)
'''
CALLER_PASSING_A_PAIR = '''\
import jax
import jax.numpy as jnp
from jax import lax

from ops import matmul

PLATFORM = "tpu"
PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)


def layer(x, w):
    return matmul(x, w, precision=PAIR)


def build():
    return jax.jit(layer), (jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32))
'''


def test_a_kernels_precision_written_in_its_caller_is_fixed_where_it_is_written(tmp_path: Path) -> None:
    """The traceback ends at the kernel's `jnp.dot(..., precision=precision)`; the pair is the
    caller's constant in another module, which `fix` rewrites. explain said "no fix can be written
    for this call: a person must change it" (a new user's trial, 2026-12-06)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "ops.py").write_text(KERNEL_TAKING_PRECISION)
    (project / "model.py").write_text(CALLER_PASSING_A_PAIR)
    failed = lower(project / "model.py", tmp_path)
    assert "Per-operand dot precision unsupported" in failed.stderr, failed.stderr[-2000:]
    dry = explain(failed.stderr, project, "--jax-version", "0.12.0.1")
    assert "no fix can be written" not in dry.stderr and "finds nothing to change" not in dry.stderr, dry.stderr
    # (safe: the whole-program link finds that only the kernel's dot reads the pair)
    assert "ops.py:9: JAX001: the value it is given is written in model.py:8: fixed there (above)" in dry.stderr, \
        dry.stderr
    assert dry.returncode == 1 and "+PAIR = lax.Precision.HIGHEST" in dry.stdout, dry.stdout + dry.stderr
    assert (project / "model.py").read_text() == CALLER_PASSING_A_PAIR
    result = explain(failed.stderr, project, "--jax-version", "0.12.0.1", "--write")
    assert "ops.py:9: JAX001: the value it is given is written in model.py:8: fixed there (above)" in result.stderr
    assert result.returncode == 0, result.stderr
    assert "PAIR = lax.Precision.HIGHEST" in (project / "model.py").read_text()
    assert (project / "ops.py").read_text() == KERNEL_TAKING_PRECISION
    assert lower(project / "model.py", tmp_path).stdout.strip() == "lowered"


def test_a_value_written_in_a_file_the_log_also_places_an_error_in_is_shown_and_written_once(tmp_path: Path) -> None:
    """The log holds the kernel's error and one in the caller's own file (`jax.tree_map`): the
    caller's file is fixed once, both its fixes in one diff, and the kernel's line names it."""
    project = tmp_path / "project"
    project.mkdir()
    caller = CALLER_PASSING_A_PAIR + "\n\ndef norms(params):\n    return jax.tree_map(jnp.linalg.norm, params)\n"
    (project / "ops.py").write_text(KERNEL_TAKING_PRECISION)
    (project / "model.py").write_text(caller)
    (project / "norms.py").write_text("import jax.numpy as jnp\nimport model\n\nmodel.norms({'w': jnp.ones(3)})\n")
    failed = lower(project / "model.py", tmp_path)
    removed = subprocess.run([sys.executable, "norms.py"], cwd=project, capture_output=True, text=True, timeout=300,
                             env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert "has no attribute 'tree_map'" in removed.stderr, removed.stderr[-2000:]
    log = failed.stderr + removed.stderr
    dry = explain(log, project, "--jax-version", "0.12.0.1", "--unsafe-fixes")
    assert dry.stdout.count("+PAIR = lax.Precision.HIGHEST") == 1 and dry.stdout.count("--- a/") == 1, dry.stdout
    assert "+    return jax.tree.map(jnp.linalg.norm, params)" in dry.stdout, dry.stdout
    assert "ops.py:9: JAX001: the value it is given is written in model.py:8: fixed there (above)" in dry.stderr
    result = explain(log, project, "--jax-version", "0.12.0.1", "--unsafe-fixes", "--write")
    assert result.returncode == 0, result.stderr
    assert (project / "model.py").read_text() == caller.replace(
        "PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)", "PAIR = lax.Precision.HIGHEST").replace(
        "jax.tree_map(", "jax.tree.map(")
    assert lower(project / "model.py", tmp_path).stdout.strip() == "lowered"


def test_a_kernel_reached_through_a_registry_is_found_by_the_value_flow(tmp_path: Path) -> None:
    """`@register` stores the body in a dict the launch reads: `fix` itself rewrites the helper."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "shared_math.py").write_text(HELPER_MODULE)
    (project / "model.py").write_text(KERNEL_USING_IT)
    static = subprocess.run([sys.executable, "-m", "codemods", "--no-cache", "--write", "."], cwd=project,
                            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert static.returncode == 0 and "shared_math.py:6:" in static.stderr, static.stdout + static.stderr
    assert lower(project / "model.py", tmp_path).stdout.strip() == "lowered"


PRESET_KERNEL = '''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

PLATFORM = "tpu"


def kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=lax.DotAlgorithmPreset.BF16_BF16_F32)


def build():
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return jax.jit(call), (jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32))
'''


def test_a_dot_algorithm_preset_is_explained_from_its_typeerror(tmp_path: Path) -> None:
    """Mosaic TPU's lowering indexes the precision as a pair, so a preset dies with a TypeError that
    names no precision at all: explain maps it to JAX001, whose fix (bfloat16 operand casts, DEFAULT,
    float32 accumulation) lowers."""
    program = tmp_path / "preset.py"
    program.write_text(PRESET_KERNEL)
    failed = lower(program, tmp_path)
    assert "TypeError: 'DotAlgorithmPreset' object is not subscriptable" in failed.stderr, failed.stderr[-2000:]
    result = explain(failed.stderr, tmp_path, "--write")
    assert result.returncode == 0, result.stderr
    assert "preset.py:10: JAX001" in result.stderr, result.stderr
    assert "x_ref[...].astype(jnp.bfloat16), w_ref[...].astype(jnp.bfloat16), precision=lax.Precision.DEFAULT, " \
        "preferred_element_type=jnp.float32)" in program.read_text()
    assert lower(program, tmp_path).stdout.strip() == "lowered"


HELPER_PARTIAL = '''\
import functools

import jax.numpy as jnp
from jax import lax

project = functools.partial(jnp.dot, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))
'''


def test_a_partial_imported_from_another_module_is_placed_where_it_is_bound(tmp_path: Path) -> None:
    """JAX's traceback names `project(...)` in the kernel; the partial runs no frame of its own. Before:
    "no call there that JAX001 rewrites" and exit 2, though `fix` rewrites that partial."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "shared_math.py").write_text(HELPER_PARTIAL)
    (project / "model.py").write_text(KERNEL_USING_IT.replace("@register\n", "").replace("KERNELS[name]", "kernel"))
    failed = lower(project / "model.py", tmp_path)
    assert "Per-operand dot precision unsupported" in failed.stderr, failed.stderr[-2000:]
    result = explain(failed.stderr, project, "--write")
    assert result.returncode == 0, result.stderr
    assert "shared_math.py:6: JAX001: the traceback's" in result.stderr, result.stderr
    assert "precision=lax.Precision.HIGHEST)" in (project / "shared_math.py").read_text()
    assert lower(project / "model.py", tmp_path).stdout.strip() == "lowered"


OPS_TABLE = '''\
import functools

from jax import lax

OPS = {
    "rsqrt": functools.partial(lax.rsqrt, accuracy=lax.AccuracyMode.HIGHEST),
    "exp": lax.exp,
}
'''
KERNEL_PICKING_AN_OP = '''\
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from ops import OPS

PLATFORM = "tpu"


def _pointwise(x_ref, o_ref, *, op):
    o_ref[...] = op(x_ref[...])


def build(name="rsqrt"):
    kernel = functools.partial(_pointwise, op=OPS[name])
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return jax.jit(call), (jax.ShapeDtypeStruct((8, 128), jnp.float32),)
'''


def test_an_op_a_kernel_is_handed_from_another_modules_table_is_fixed_where_it_is_written(tmp_path: Path) -> None:
    """JAX's traceback names `op(x_ref[...])`, a line with no call JAX002 rewrites: `op` is a partial
    of `lax.rsqrt` with a hint, from a table in ops.py, bound by a partial's keyword. Before: "cannot
    place" and exit 2, though `fix` drops the hint in the table (the link's answer at that line)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "ops.py").write_text(OPS_TABLE)
    (project / "kernels.py").write_text(KERNEL_PICKING_AN_OP)
    failed = lower(project / "kernels.py", tmp_path)
    assert "Not implemented: accuracy" in failed.stderr, failed.stderr[-2000:]
    result = explain(failed.stderr, project, "--write")
    assert result.returncode == 0, result.stderr
    assert "kernels.py:13: JAX002: the value it is given is written in ops.py:6: fixed there" in result.stderr, \
        result.stderr
    assert "functools.partial" not in (project / "ops.py").read_text()
    assert lower(project / "kernels.py", tmp_path).stdout.strip() == "lowered"


HELPER_WITH_A_DEFAULT = '''\
import jax.numpy as jnp
from jax import lax

MIXED = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)


def project(x, w, precision=MIXED):
    return jnp.dot(x, w, precision=precision)
'''


def test_a_helper_whose_default_fails_gets_the_fix_fix_gives_it(tmp_path: Path) -> None:
    """The failing call's precision is a parameter's default, the kernel in another module leaves it
    unset: with the project's facts (as `fix` has them) the default is fixed, not a [manual] note."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "shared_math.py").write_text(HELPER_WITH_A_DEFAULT)
    (project / "model.py").write_text(KERNEL_USING_IT.replace("@register\n", "").replace(
        "KERNELS[name]", "kernel"))  # launched directly: `fix` sees the launch
    fixed_by_fix = tmp_path / "fixed_by_fix"
    shutil.copytree(project, fixed_by_fix)
    subprocess.run([sys.executable, "-m", "codemods", "--no-cache", "--write", "."], cwd=fixed_by_fix, check=True,
                   env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True)
    assert (fixed_by_fix / "shared_math.py").read_text() != HELPER_WITH_A_DEFAULT

    failed = lower(project / "model.py", tmp_path)
    assert "Per-operand dot precision unsupported" in failed.stderr
    result = explain(failed.stderr, project, "--write")
    assert result.returncode == 0, result.stderr
    assert (project / "shared_math.py").read_text() == (fixed_by_fix / "shared_math.py").read_text()
    assert lower(project / "model.py", tmp_path).stdout.strip() == "lowered"


def test_several_errors_in_one_log_and_a_file_changed_since(tmp_path: Path) -> None:
    folder = examples_in(tmp_path / "examples")
    logs = [lower(folder / f"{stem}.py", tmp_path).stderr for stem in ("tpu_matmul", "tpu_softmax_accuracy")]
    both = explain("\n".join(logs), tmp_path, "--write", "--unsafe-fixes")  # the softmax hints are unsafe
    assert both.returncode == 0, both.stderr
    for stem in ("tpu_matmul", "tpu_softmax_accuracy"):
        assert lower(folder / f"{stem}.py", tmp_path).stdout.strip() == "lowered", stem

    again = examples_in(tmp_path / "changed")
    log = lower(again / "tpu_matmul.py", tmp_path).stderr
    text = (again / "tpu_matmul.py").read_text()
    (again / "tpu_matmul.py").write_text(text.replace("precision=(Precision.DEFAULT, Precision.HIGHEST)",
                                                      "precision=(Precision.HIGH, Precision.HIGHEST)"))
    changed = explain(log, tmp_path, "--write")
    assert changed.returncode == 2 and "changed since the traceback" in changed.stderr
    assert "Precision.HIGH, Precision.HIGHEST" in (again / "tpu_matmul.py").read_text(), "nothing written"


@pytest.mark.parametrize("log, why", [
    ("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nValueError: bad shape\n", "no error"),
    ("Traceback (most recent call last):\n  File \"/nowhere/kernel.py\", line 3, in k\n    jnp.dot(a, b)\n"
     "NotImplementedError: Per-operand dot precision unsupported\n", "the file is not here"),
])
def test_what_cannot_be_placed_is_explained_in_one_line(log: str, why: str, tmp_path: Path) -> None:
    result = explain(log, tmp_path, "--write")
    assert result.returncode == 2 and why in result.stderr and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("explain: ")


def test_the_lstm_gate_error_is_placed_and_fixed(tmp_path: Path) -> None:
    """The bf16 LSTM error is raised while tracing: after `explain --write` the program gets past the
    gate (on a CPU it then stops for want of cuDNN, as any float32 LSTM does: shared/NOTES.md)."""
    folder = examples_in(tmp_path / "examples")
    failed = lower(folder / "bf16_lstm.py", tmp_path)
    assert "bfloat16 support not implemented for LSTM" in failed.stderr
    result = explain(failed.stderr, tmp_path, "--write")
    assert result.returncode == 0 and "bf16_lstm.py:35: JAX003" in result.stderr, result.stderr
    again = lower(folder / "bf16_lstm.py", tmp_path)
    assert "bfloat16 support not implemented for LSTM" not in again.stderr
    # Past the gate, it fails only where any float32 LSTM fails without cuDNN (the CPU jaxlib's
    # gpu_rnn stub), or lowers where cuDNN is there: any other crash is a broken rewrite.
    without_cudnn = ("AttributeError: module 'jaxlib.gpu_rnn' has no attribute "
                     "'compute_rnn_workspace_reserve_space_sizes'")
    lowered = again.returncode == 0 and again.stdout.strip() == "lowered"
    raised = [line for line in again.stderr.splitlines() if re.match(r"[A-Za-z_][\w.]*(?:Error|Exception): ", line)]
    assert lowered or raised[-1:] == [without_cudnn], again.stderr


# Module-level partials of each rule's op, called elsewhere (issue 17): the traceback names the call
# through the partial; the fix belongs where the partial binds the value.
PARTIALS = {
    "accuracy": ("JAX002", '''\
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

PLATFORM = "tpu"

exp_hi = functools.partial(lax.exp, accuracy=lax.AccuracyMode.HIGHEST)


def kernel(x_ref, o_ref):
    o_ref[...] = exp_hi(x_ref[...])


def build():
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return jax.jit(call), (jax.ShapeDtypeStruct((8, 128), jnp.float32),)
''', "accuracy="),
    "precision": ("JAX001", '''\
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

PLATFORM = "tpu"
P = lax.Precision

mm = functools.partial(jnp.dot, precision=(P.DEFAULT, P.HIGHEST))


def kernel(x_ref, w_ref, o_ref):
    o_ref[...] = mm(x_ref[...], w_ref[...])


def build():
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return jax.jit(call), (jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32))
''', "(P.DEFAULT, P.HIGHEST)"),
    "lstm": ("JAX003", '''\
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import rnn

PLATFORM = "cpu"

lstm_fn = functools.partial(rnn.lstm, input_size=8, hidden_size=16, num_layers=1, dropout=0.0,
                            bidirectional=False, precision=lax.Precision.DEFAULT)


def run(x, h, c, w, lengths):
    _, h_n, _ = lstm_fn(x, h, c, w, lengths)
    return h_n


def build():
    size = rnn.get_num_params_in_lstm(8, 16, 1, False)
    x = jnp.zeros((2, 4, 8), jnp.bfloat16)
    h = jnp.zeros((1, 2, 16), jnp.bfloat16)
    w = jnp.zeros((size,), jnp.bfloat16)
    return jax.jit(run), (x, h, h, w, np.array([4, 3], np.int32))
''', "precision=lax.Precision.DEFAULT"),
}


def line_of(source: str, text: str) -> int:
    return next(number for number, line in enumerate(source.splitlines(), 1) if text in line)


def pointing_at(log: str, path: Path, line: int, source: str) -> str:
    """`log` with every frame in `path` moved to `line` of `source` (the quoted code too)."""
    lines = log.splitlines()
    for index, text in enumerate(lines):
        if text.strip().startswith(f'File "{path}", line '):
            lines[index] = f'  File "{path}", line {line}, in <module>'
            if index + 1 < len(lines) and lines[index + 1].startswith("    "):
                lines[index + 1] = "    " + source.splitlines()[line - 1].strip()
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("where", ["call", "partial"])
@pytest.mark.parametrize("kind", sorted(PARTIALS))
def test_a_module_level_partial_is_placed_and_fixed_where_it_binds_the_value(kind: str, where: str,
                                                                             tmp_path: Path) -> None:
    """The traceback names the call through the partial (what JAX prints), or the partial's own line
    (a log that quotes where it was made): either way the partial's keyword is fixed, and the program
    lowers. Before: "no call there that JAX00x rewrites" for the call, and exit 2."""
    code, source, wrong = PARTIALS[kind]
    program = tmp_path / f"{kind}_partial.py"
    program.write_text(source)
    failed = lower(program, tmp_path)
    assert ERROR_OF[code] in failed.stderr, failed.stderr[-2000:]
    call_line = line_of(source, "_fn(x" if kind == "lstm" else "(x_ref[...]")
    partial_line = line_of(source, "functools.partial(")
    log = failed.stderr if where == "call" else pointing_at(failed.stderr, program, partial_line, source)
    placed = call_line if where == "call" else partial_line

    dry = explain(log, tmp_path)
    assert dry.returncode == 1, dry.stderr
    assert f"{program.name}:{placed}: {code}: the traceback's" in dry.stderr, dry.stderr
    assert f"-{source.splitlines()[partial_line - 1]}" in dry.stdout.splitlines(), dry.stdout
    assert program.read_text() == source

    unsafe = ["--unsafe-fixes"] if kind == "accuracy" else []  # a dropped accuracy hint is an unsafe fix
    written = explain(log, tmp_path, "--write", *unsafe)
    assert written.returncode == 0, written.stderr
    fixed = program.read_text()
    assert wrong not in fixed and source.splitlines()[call_line - 1] in fixed.splitlines(), fixed  # the call: as it was
    again = lower(program, tmp_path)
    if kind == "lstm":  # past the gate; on a CPU it then stops for want of cuDNN (test_the_lstm_gate_error...)
        assert ERROR_OF[code] not in again.stderr, again.stderr[-2000:]
    else:
        assert again.stdout.strip() == "lowered", again.stderr[-2000:]


ERROR_OF = {"JAX001": "Per-operand dot precision unsupported", "JAX002": "Not implemented: accuracy",
            "JAX003": "bfloat16 support not implemented for LSTM"}
TWO_KERNELS = '''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

PLATFORM = "tpu"
MIXED = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)
SHAPES = (jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32))


def scale_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=(lax.Precision.HIGH, lax.Precision.HIGHEST))


def project_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], precision=PRECISION)


def build_scale():
    return jax.jit(pl.pallas_call(scale_kernel, out_shape=SHAPES[0])), SHAPES


def build():
    return jax.jit(pl.pallas_call(project_kernel, out_shape=SHAPES[0])), SHAPES
'''


@pytest.mark.parametrize("precision", ["(lax.Precision.DEFAULT, lax.Precision.HIGHEST)", "MIXED"],
                         ids=["at-the-call", "a-constant"])
def test_explain_fixes_the_call_the_traceback_names_not_the_files_other_calls(precision: str, tmp_path: Path) -> None:
    """The file holds another kernel's fix (scale_kernel's pair): the traceback names project_kernel's
    dot, whose pair is written at the call or in a constant. Only that fix is shown and written, a line
    counts the other, and the program lowers; scale_kernel is left as it was. Before, its fix was in
    the diff and written too."""
    source = TWO_KERNELS.replace("PRECISION", precision)
    program = tmp_path / "two_kernels.py"
    program.write_text(source)
    failed = lower(program, tmp_path)
    assert ERROR_OF["JAX001"] in failed.stderr, failed.stderr[-2000:]
    other = line_of(source, "(lax.Precision.HIGH, lax.Precision.HIGHEST)")

    dry = explain(failed.stderr, tmp_path)
    assert dry.returncode == 1, dry.stderr
    assert f"{program.name}:{other}:" not in dry.stderr and "HIGH," not in dry.stdout, dry.stdout
    assert dry.stderr.splitlines()[-1] == (
        f"{program.name}: JAX001: 1 other finding(s) in this file, at calls the log does not name (not shown "
        f"here): `jax-codemod --select JAX001 {program.name}` shows them")  # (from the current folder, as `fix`)

    written = explain(failed.stderr, tmp_path, "--write")
    assert written.returncode == 0, written.stderr
    fixed = program.read_text()
    written_at = line_of(source, "MIXED =" if precision == "MIXED" else "precision=(lax.Precision.DEFAULT")
    assert [number for number, (before, after) in enumerate(zip(source.splitlines(), fixed.splitlines()), 1)
            if before != after] == [written_at], fixed
    again = lower(program, tmp_path)
    assert again.stdout.strip() == "lowered", again.stderr[-2000:]


SUPPRESSED_KERNEL = '''\
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

PLATFORM = "tpu"

exp_hi = functools.partial(lax.exp, accuracy=lax.AccuracyMode.HIGHEST){on_partial}


def kernel(x_ref, o_ref):
    o_ref[...] = lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST) + exp_hi(x_ref[...]){on_call}


def build():
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return jax.jit(call), (jax.ShapeDtypeStruct((8, 128), jnp.float32),)
'''


def test_a_suppressed_failing_call_of_a_shipped_example_is_named(tmp_path: Path) -> None:
    """The softmax example with its failing tanh silenced: explain names the comment, writes nothing on
    that line, exits 1. Before: the silenced finding vanished, and --write exited 0 with the error."""
    folder = examples_in(tmp_path / "examples")
    program = folder / "tpu_softmax_accuracy.py"
    source = program.read_text()
    line = line_of(source, "lax.tanh(")
    lines = source.splitlines()
    lines[line - 1] += "  # jax-codemod: ignore[JAX002]"
    program.write_text("\n".join(lines) + "\n")
    failed = lower(program, tmp_path)
    assert "Not implemented: accuracy" in failed.stderr, failed.stderr[-2000:]
    result = explain(failed.stderr, tmp_path, "--write", "--unsafe-fixes")
    assert result.returncode == 1, result.stderr
    assert (f"tpu_softmax_accuracy.py:{line}: JAX002: suppressed by `# jax-codemod: ignore[JAX002]`: the error stays"
            in result.stderr), result.stderr
    assert program.read_text().splitlines()[line - 1] == lines[line - 1]


@pytest.mark.parametrize("on_call, on_partial, silenced_on", [
    ("  # jax-codemod: ignore[JAX002]", "  # jax-codemod: ignore[JAX002]", (14, 10)),
    ("  # jax-codemod: ignore", "  # jax-codemod: ignore", (14, 10)),
    ("  # jax-codemod: ignore[JAX002]", "", (14,)),  # the partial's hint is still fixed; the call's is not
    ("", "  # jax-codemod: ignore[JAX002]", (10,)),  # the call's hint is fixed; exp_hi's, through the partial, is not
    ("  # jax-codemod: ignore[JAX001]", "  # noqa: E501", ()),  # another rule's code silences nothing here
])
def test_a_suppressed_failing_call_is_named_with_its_comment(on_call: str, on_partial: str,
                                                             silenced_on: tuple[int, ...], tmp_path: Path) -> None:
    """The traceback proves the call fails; a `# jax-codemod: ignore` comment keeps explain from fixing
    it. Before, the silenced finding vanished: nothing printed, exit 0, and the error stayed."""
    source = SUPPRESSED_KERNEL.format(on_call=on_call, on_partial=on_partial)
    program = tmp_path / "kernel.py"
    program.write_text(source)
    failed = lower(program, tmp_path)
    assert "Not implemented: accuracy" in failed.stderr, failed.stderr[-2000:]

    result = explain(failed.stderr, tmp_path, "--write", "--unsafe-fixes")
    for line in silenced_on:
        comment = (on_call if line == 14 else on_partial).strip()
        where = "" if line == 14 else f" (on line {line}, where its fix goes)"
        assert f"kernel.py:14: JAX002: suppressed by `{comment}`{where}: the error stays" in result.stderr, result.stderr
    assert result.stderr.count("suppressed by") == len(silenced_on), result.stderr
    assert result.returncode == (1 if silenced_on else 0), result.stderr
    fixed = program.read_text()  # what is not silenced is fixed alongside
    assert ("lax.exp(x_ref[...], accuracy=lax.AccuracyMode.HIGHEST) + exp_hi" in fixed) is (14 in silenced_on)
    assert ("exp_hi = functools.partial(lax.exp, accuracy=lax.AccuracyMode.HIGHEST)" in fixed) is (10 in silenced_on)
    if not silenced_on:
        assert lower(program, tmp_path).stdout.strip() == "lowered"


# A kernel factory whose hint comes through **options, from the keyword its caller writes.
HINT_THROUGH_OPTIONS = '''\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

PLATFORM = "tpu"


def make_kernel(**options):
    def kernel(x_ref, o_ref):
        o_ref[...] = lax.exp(x_ref[...], **options)
    return kernel


def build():
    kernel = make_kernel(accuracy=lax.AccuracyMode.HIGHEST)
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return jax.jit(call), (jax.ShapeDtypeStruct((8, 128), jnp.float32),)
'''


# The same hint in a dict plain XLA code splats too: only a [manual] finding answers the kernel's call.
SHARED_HINT = HINT_THROUGH_OPTIONS.replace("make_kernel(accuracy=lax.AccuracyMode.HIGHEST)",
                                          "make_kernel(**OPTIONS)") + (
    '\n\nOPTIONS = {"accuracy": lax.AccuracyMode.HIGHEST}\n\n\n'
    'def reference(x):\n    return lax.exp(x, **OPTIONS)  # plain XLA code: XLA honours the hint\n')


def test_a_placed_call_with_no_fix_exits_non_zero_with_its_finding(tmp_path: Path) -> None:
    """Only a [manual] finding answers the call (its hint comes through **options from a dict plain
    XLA code reads too): the error stays, so even --write exits 1 (it exited 0) and says a person
    must change it."""
    program = tmp_path / "factory.py"
    program.write_text(SHARED_HINT)
    failed = lower(program, tmp_path)
    assert "Not implemented: accuracy" in failed.stderr, failed.stderr[-2000:]
    result = explain(failed.stderr, tmp_path, "--write", "--unsafe-fixes")
    assert result.returncode == 1, result.stderr
    assert "factory.py:11:22: JAX002 [manual]" in result.stderr
    assert "factory.py:11: JAX002: no fix can be written for this call" in result.stderr
    assert program.read_text() == SHARED_HINT and result.stdout == ""


def test_a_failing_exp_whose_hint_comes_through_kwargs_is_dropped_where_it_is_written(tmp_path: Path) -> None:
    """JAX002 places the failing call although it spells no hint (**options carries one), and the
    whole-program value flow follows the factory's **options to the keyword its caller writes:
    dropped there (unsafe), and the program lowers (it was a [manual] finding, exit 1)."""
    program = tmp_path / "factory.py"
    program.write_text(HINT_THROUGH_OPTIONS)
    failed = lower(program, tmp_path)
    assert "Not implemented: accuracy" in failed.stderr, failed.stderr[-2000:]
    result = explain(failed.stderr, tmp_path, "--write", "--unsafe-fixes")
    assert result.returncode == 0, result.stderr
    assert "factory.py:16:26: JAX002 [dropped, unsafe] dropped accuracy=lax.AccuracyMode.HIGHEST" in result.stderr, \
        result.stderr
    assert lower(program, tmp_path).returncode == 0


PAIR_THROUGH_OPTIONS = HINT_THROUGH_OPTIONS.replace(
    "def kernel(x_ref, o_ref):\n        o_ref[...] = lax.exp(x_ref[...], **options)",
    "def kernel(x_ref, y_ref, o_ref):\n        o_ref[...] = jnp.dot(x_ref[...], y_ref[...], **options)",
).replace("make_kernel(accuracy=lax.AccuracyMode.HIGHEST)",
          "make_kernel(precision=(lax.Precision.DEFAULT, lax.Precision.HIGH))").replace(
    "(jax.ShapeDtypeStruct((8, 128), jnp.float32),)",
    "(jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32))")


def test_a_failing_dot_whose_precision_comes_through_kwargs_is_fixed_where_the_pair_is_written(tmp_path: Path) -> None:
    """JAX001 places the failing call although it spells no precision (**options carries one), and the
    whole-program value flow follows the factory's **options to the pair its caller writes: fixed
    there, and the program lowers."""
    program = tmp_path / "factory.py"
    program.write_text(PAIR_THROUGH_OPTIONS)
    failed = lower(program, tmp_path)
    assert "Per-operand dot precision unsupported" in failed.stderr, failed.stderr[-2000:]
    result = explain(failed.stderr, tmp_path, "--write")
    assert result.returncode == 0, result.stderr
    assert "factory.py:11: JAX001: the traceback's `Per-operand dot precision unsupported` comes from this call" \
        in result.stderr, result.stderr
    assert "factory.py:16:36: JAX001 [fixed] precision (DEFAULT, HIGH) -> HIGH" in result.stderr, result.stderr
    assert lower(program, tmp_path).returncode == 0


def stub_rule(findings):
    """JAX002 as a rule that matches every call and reports `findings(file)`."""
    return Rule(code="JAX002", name="stub-rule", summary="", what="", why="", example="", words=(b"",),
                kernel_scoped=False, check=lambda rule, file: findings(file), matches=lambda rule, file, call: True)


STUB_SOURCE = "import jax\n\n\ndef kernel(x):\n    return jax.lax.exp(x)\n"


def stub_log(path: Path, code: str = "return jax.lax.exp(x)") -> str:
    """The shape of the log JAX prints: the user's frame, then the same error again from jax's frames."""
    return (f'Traceback (most recent call last):\n  File "{path}", line 5, in kernel\n    {code}\n'
            "jax._src.source_info_util.JaxStackTraceBeforeTransformation: NotImplementedError: Not implemented: accuracy\n"
            "\nThe above exception was the direct cause of the following exception:\n\n"
            'Traceback (most recent call last):\n  File "/site-packages/jax/_src/pallas/mosaic/lowering.py", line 4135, '
            'in _exp_lowering_rule\n    raise NotImplementedError("Not implemented: accuracy")\n'
            "NotImplementedError: Not implemented: accuracy\n")


def run_explain(path: Path, findings, *, write: bool = True, code: str = "return jax.lax.exp(x)"
                ) -> tuple[int, str, bytes]:
    """`explain` in this process, on `stub_log(path, code)`: its exit status (as the command's), stderr, stdout."""
    out, err = io.BytesIO(), io.StringIO()
    status = tracebacks.run(stub_log(path, code), path.parent, {"JAX002": stub_rule(findings)}, Settings(),
                            write=write, out=out, err=err)
    return status.value, err.getvalue(), out.getvalue()


@pytest.mark.parametrize("write", [True, False])
def test_a_placed_call_the_rule_finds_nothing_at_is_said_and_exits_2(write: bool, tmp_path: Path) -> None:
    """The issue's "placed, nothing printed, exit 0": the traceback places the call, the rule then
    reports nothing for it. Now one line says so and the exit is 2."""
    (tmp_path / "kernel.py").write_text(STUB_SOURCE)
    status, err, out = run_explain(tmp_path / "kernel.py", lambda file: [], write=write)
    assert status == 2 and out == b""
    assert err.splitlines() == [
        f"{tmp_path / 'kernel.py'}:5: JAX002: the traceback's `Not implemented: accuracy` comes from this call",
        f"{tmp_path / 'kernel.py'}:5: JAX002: stub-rule finds nothing to change at this call, so the error stays; "
        "please report this traceback and file"]


def test_a_finding_about_another_placed_call_does_not_answer_this_one(tmp_path: Path) -> None:
    """Two calls placed in one file; the rule's one finding is about the first: the second is still
    said to have nothing (a finding inside another placed call answers only that one), exit 2."""
    (tmp_path / "kernel.py").write_text(STUB_SOURCE + "\n\ndef other(x):\n    return jax.lax.exp(x)\n")
    log = stub_log(tmp_path / "kernel.py")
    log += log.replace("line 5, in kernel", "line 9, in other")
    err = io.StringIO()
    rule = stub_rule(lambda file: [Finding("JAX002", Kind.MANUAL, 5, 12, "about the first call")])
    status = tracebacks.run(log, tmp_path, {"JAX002": rule}, Settings(), write=True, out=io.BytesIO(), err=err)
    assert status is tracebacks.Outcome.UNRESOLVED, err.getvalue()
    assert ("kernel.py:5: JAX002: no fix can be written for this call: a person must change it, as the finding "
            "above says\n") in err.getvalue()
    assert "kernel.py:9: JAX002: stub-rule finds nothing to change at this call" in err.getvalue()


def test_a_fixed_call_does_not_end_the_report_on_the_next_placed_call(tmp_path: Path) -> None:
    """Two calls placed in one file: the first one's fix is written, the second has none; the second
    is still said to need a person (and the exit is 1, not 0)."""
    source = STUB_SOURCE + "\n\ndef other(x):\n    return jax.lax.exp(x)\n"
    (tmp_path / "kernel.py").write_text(source)
    log = stub_log(tmp_path / "kernel.py")
    log += log.replace("line 5, in kernel", "line 9, in other")
    first = source.index("jax.lax.exp(x)")
    fix = Fix(Applicability.SAFE, plan=FixPlan([Edit(first, first + len("jax.lax.exp(x)"), lambda text: text + " * 1")]))
    rule = stub_rule(lambda file: [Finding("JAX002", Kind.FIXED, 5, 12, "fixed here", fix=fix),
                                   Finding("JAX002", Kind.MANUAL, 9, 12, "hand-checked")])
    err = io.StringIO()
    status = tracebacks.run(log, tmp_path, {"JAX002": rule}, Settings(), write=True, out=io.BytesIO(), err=err)
    assert status is tracebacks.Outcome.PENDING, err.getvalue()
    assert "kernel.py:9: JAX002: no fix can be written for this call" in err.getvalue()
    assert "kernel.py:5: JAX002: no fix" not in err.getvalue()
    assert (tmp_path / "kernel.py").read_text() == source.replace("jax.lax.exp(x)", "jax.lax.exp(x) * 1", 1)


def test_an_error_jax_prints_twice_that_cannot_be_placed_gets_one_line(tmp_path: Path) -> None:
    status, err, out = run_explain(tmp_path / "gone" / "kernel.py", lambda file: [])
    assert status == 2 and out == b""
    assert err.splitlines() == [f"explain: cannot place `Not implemented: accuracy`: {tmp_path / 'gone' / 'kernel.py'}:5 "
                                "(kernel): the file is not here"]


@pytest.mark.parametrize("comment, silences", [
    ("# jax-codemod: ignore[JAX002]", True), ("# jax-codemod: ignore", True), ("# jax-codemod: ignore[JAX001]", False),
    ("# jax-codemod:ignore[jax003, jax002]", True),
])
def test_a_silenced_finding_on_the_placed_line_names_its_comment(comment: str, silences: bool, tmp_path: Path) -> None:
    """Without jax: the engine drops the silenced finding; explain finds it again and names the comment."""
    code = f"return jax.lax.exp(x)  {comment}"
    (tmp_path / "kernel.py").write_text(STUB_SOURCE.replace("return jax.lax.exp(x)", code))
    status, err, out = run_explain(tmp_path / "kernel.py",
                                   lambda file: [Finding("JAX002", Kind.MANUAL, 5, 12, "hand-checked")], code=code)
    assert status == 1 and out == b""
    suppressed = f"kernel.py:5: JAX002: suppressed by `{comment}`: the error stays"
    assert (suppressed in err) is silences, err
    assert ("kernel.py:5: JAX002: no fix can be written" in err) is not silences, err


def test_a_fix_elsewhere_does_not_answer_a_call_that_has_its_own_finding(tmp_path: Path) -> None:
    """The placed call's own finding has no fix; the rule also fixes something outside it (line 1),
    which does not answer it: that fix is counted, not written (it was), and the call's error stays:
    the exit is 1, not 0."""
    (tmp_path / "kernel.py").write_text(STUB_SOURCE)
    elsewhere = Fix(Applicability.SAFE, plan=FixPlan([Edit(0, len("import jax"), lambda text: text + "  # touched")]))
    status, err, out = run_explain(tmp_path / "kernel.py", lambda file: [
        Finding("JAX002", Kind.MANUAL, 5, 12, "hand-checked"), Finding("JAX002", Kind.FIXED, 1, 1, "elsewhere", fix=elsewhere)])
    assert status == 1, err
    assert "kernel.py:5: JAX002: no fix can be written for this call" in err
    assert "kernel.py: JAX002: 1 other finding(s) in this file, at calls the log does not name" in err, err
    assert (tmp_path / "kernel.py").read_text() == STUB_SOURCE


def test_a_file_too_large_to_analyse_is_said_and_exits_2(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "kernel.py").write_text(STUB_SOURCE)
    monkeypatch.setattr(runner, "MAX_SOURCE_BYTES", 10)
    status, err, out = run_explain(tmp_path / "kernel.py", lambda file: [])
    assert status == 2 and out == b""
    assert err.splitlines()[-1].startswith(f"{tmp_path / 'kernel.py'}: skipped: "), err


X64_SETUP = '''\
import jax

jax.config.update("jax_enable_x64", True)
'''
X64_KERNEL = '''\
import importlib

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

importlib.import_module("x64_setup")  # turns jax_enable_x64 on: an import the project index does not read

PLATFORM = "tpu"


def kernel(x_ref, o_ref):
    acc = jnp.zeros((8, 128))
    best = jnp.argmax(x_ref[...], axis=1)
    o_ref[...] = acc + x_ref[...] + best[:, None].astype(jnp.float32)


def build():
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return jax.jit(call), (jax.ShapeDtypeStruct((8, 128), jnp.float32),)
'''


def test_x64_turned_on_in_another_module_is_explained_from_the_traceback(tmp_path: Path) -> None:
    """x64 is turned on where the kernel's module cannot see it (a module it imports by name, an
    import the project index does not read: tests/test_x64_elsewhere.py has one it reads), so `fix` leaves its float64 zeros
    and int64 argmax alone; the traceback (the float64 sum stored to the float32 ref, on the line
    that adds them, not the ones that make them) proves x64 on in that kernel, and explain fixes
    both: the program then lowers."""
    (tmp_path / "x64_setup.py").write_text(X64_SETUP)
    program = tmp_path / "x64_kernel.py"
    program.write_text(X64_KERNEL)
    unseen = subprocess.run([sys.executable, "-m", "codemods", "--check", "--select", "JAX005", str(program)],
                            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=tmp_path)
    assert unseen.returncode == 0, unseen.stderr
    failed = lower(program, tmp_path)
    assert "ValueError: Invalid dtype for `swap`. Ref dtype: float32. Value dtype: float64" in failed.stderr, \
        failed.stderr[-2000:]
    result = explain(failed.stderr, tmp_path, "--write")
    assert result.returncode == 0, result.stderr
    assert "x64_kernel.py:" in result.stderr and "JAX005" in result.stderr, result.stderr
    fixed = program.read_text()
    assert "jnp.zeros((8, 128), dtype=jnp.float32)" in fixed and "argmax_tpu(x_ref[...], 1)" in fixed
    assert lower(program, tmp_path).stdout.strip() == "lowered"


X64_DTYPE_PARAMETER_KERNEL = '''\
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

import x64_setup  # turns jax_enable_x64 on: this module does not say so

PLATFORM = "tpu"


def count_kernel(x_ref, o_ref, *, acc_dtype):
    acc = jnp.zeros(o_ref.shape, dtype=acc_dtype)
    o_ref[...] = (acc + (x_ref[...] > 0).astype(acc_dtype)).astype(jnp.float32)


def build():
    body = functools.partial(count_kernel, acc_dtype=jnp.int64)
    call = pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return jax.jit(call), (jax.ShapeDtypeStruct((8, 128), jnp.float32),)
'''


@pytest.mark.parametrize("bound, said", [
    ("jnp.int64", "JAX005 [fixed, unsafe fix: --unsafe-fixes] acc_dtype -> jnp.int32: every call of the kernel"),
    ('jnp.dtype("int64")', "JAX005 [fixed, unsafe fix: --unsafe-fixes] acc_dtype -> jnp.int32: every call of the kernel"),
    ('jnp.arange(1, dtype=jnp.int64).dtype', "JAX005 [manual] `acc_dtype` is a dtype this code does not show")])
def test_a_64_bit_dtype_handed_in_as_a_parameter_is_placed_with_a_note(bound: str, said: str, tmp_path: Path) -> None:
    """The sixth trial's x64_count: the kernel's dtype is its parameter, bound elsewhere to jnp.int64.
    explain said "cannot place ...: no call there that JAX005 rewrites" (exit 2); then a [manual]
    note on the lines that use the parameter said to give it a 32-bit dtype where it is set. Since the
    link carries dtypes to parameters (h60dtype), one it names is fixed (unsafe: `jnp.dtype("int64")` too,
    since session 26); one it does not (an array's `.dtype`, a value it does not fold) keeps the note."""
    (tmp_path / "x64_setup.py").write_text(X64_SETUP)
    program = tmp_path / "x64_dtype_parameter.py"
    program.write_text(X64_DTYPE_PARAMETER_KERNEL.replace("acc_dtype=jnp.int64", f"acc_dtype={bound}"))
    failed = lower(program, tmp_path)
    assert "64-bit types are not supported" in failed.stderr, failed.stderr[-2000:]
    result = explain(failed.stderr, tmp_path)
    assert result.returncode == 1, result.stderr
    assert said in result.stderr, result.stderr


X64_OPERAND_KERNEL = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

import x64_setup  # turns jax_enable_x64 on: this module does not say so

PLATFORM = "tpu"
S = (8, 128)


def make_ids():
    return jnp.repeat(jnp.arange(3), 3, total_repeat_length=S[0])


def kernel(ids_ref, x_ref, o_ref):
    rows = jax.lax.broadcasted_iota(jnp.int32, S, 0)
    o_ref[...] = jnp.where(rows < ids_ref[S[0] - 1], x_ref[...], 0.0)


def run(x):
    block = pl.BlockSpec(S, lambda i, ids: (0, 0))
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(S, jnp.float32),
                          grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(1,),
                                                                 in_specs=[block], out_specs=block),
                          compiler_params=pltpu.CompilerParams())
    return call(make_ids(), x)


def build():
    return jax.jit(run), (jax.ShapeDtypeStruct(S, jnp.float32),)
'''


def test_a_64_bit_scalar_prefetch_operand_is_explained_where_xla_code_makes_it(tmp_path: Path) -> None:
    """The traceback names the kernel line that reads the int64 operand; x64 is on only through another
    module; explain fixes the arange in the XLA code that makes the operand, and the program lowers."""
    (tmp_path / "x64_setup.py").write_text(X64_SETUP)
    program = tmp_path / "x64_operand.py"
    program.write_text(X64_OPERAND_KERNEL)
    failed = lower(program, tmp_path)
    assert "NotImplementedError: 64-bit types are not supported" in failed.stderr, failed.stderr[-2000:]
    result = explain(failed.stderr, tmp_path, "--write")
    assert result.returncode == 0, result.stderr
    assert "x64_operand.py:18: JAX005: the traceback's `64-bit types are not supported` comes from this call" \
        in result.stderr, result.stderr
    assert "it reaches operand 0 (`make_ids()`) of the Mosaic TPU launch at line 27" in result.stderr
    assert "jnp.repeat(jnp.arange(3, dtype=jnp.int32), 3, total_repeat_length=S[0])" in program.read_text()
    assert lower(program, tmp_path).stdout.strip() == "lowered"


DEBUG_PRINT_KERNEL = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

PLATFORM = "tpu"


def kernel(x_ref, o_ref):
    q = x_ref[...].astype(jnp.int8)
    pl.debug_print("q {}", q[0, 0])
    o_ref[...] = x_ref[...]


def build():
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return jax.jit(call), (jax.ShapeDtypeStruct((8, 128), jnp.float32),)
'''


def test_a_debug_print_argument_is_explained_from_its_valueerror(tmp_path: Path) -> None:
    """An int8 vector indexed down to a scalar for pl.debug_print: Mosaic TPU's "Only arrays with
    32-bit element types can be converted to scalars" is JAX008's, whose fix (cast the vector
    before the index) lowers."""
    program = tmp_path / "debug_print.py"
    program.write_text(DEBUG_PRINT_KERNEL)
    failed = lower(program, tmp_path)
    assert "Only arrays with 32-bit element types can be converted to scalars" in failed.stderr, failed.stderr[-2000:]
    result = explain(failed.stderr, tmp_path, "--write")
    assert result.returncode == 0, result.stderr
    assert "debug_print.py:10: JAX008" in result.stderr, result.stderr
    assert 'pl.debug_print("q {}", q.astype(jnp.int32)[0, 0])' in program.read_text()
    assert lower(program, tmp_path).stdout.strip() == "lowered"
