"""`jax-codemod explain`, fed the tracebacks the installed jax really prints.

Each broken program is lowered in a subprocess (the way a user meets the error), its stderr is
handed to `explain`, and after `explain --write` the same program lowers. Tracebacks are taken with
JAX's traceback filtering on and off, from a checkout at another path than the one being fixed
(paths are matched on their longest existing suffix), several at once, and for a kernel whose
helper lives in another module, which only the traceback can place.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")

from tests import jax_support  # noqa: E402
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


def kernel(x_ref, w_ref, o_ref):
    o_ref[...] = project(x_ref[...], w_ref[...])


def build():
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return jax.jit(call), (jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((128, 128), jnp.float32))
'''


def lower(program: Path, tmp_path: Path, *, filtering: str = "auto") -> subprocess.CompletedProcess:
    script = tmp_path / "lower_program.py"
    script.write_text(LOWER)
    env = {**os.environ, "JAX_TRACEBACK_FILTERING": filtering, "JAX_PLATFORMS": "cpu"}
    return subprocess.run([sys.executable, str(script), str(program), str(program.parent)], capture_output=True,
                          text=True, env=env, timeout=300, cwd=program.parent)


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
    static = subprocess.run([sys.executable, "-m", "codemods", "--no-cache", "."], cwd=project, capture_output=True,
                            text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert static.returncode == 0, "the static analysis cannot know project() runs in a kernel"

    failed = lower(project / "model.py", tmp_path)
    assert "Per-operand dot precision unsupported" in failed.stderr
    result = explain(failed.stderr, project, "--write")
    assert result.returncode == 0, result.stderr
    assert "shared_math.py:6: JAX001" in result.stderr
    assert "precision=lax.Precision.HIGHEST" in (project / "shared_math.py").read_text()
    assert (project / "model.py").read_text() == KERNEL_USING_IT
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
    assert len(result.stderr.strip().splitlines()) == 1


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
