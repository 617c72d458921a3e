"""tests/tpu/check_tpu.py keeps working where CI runs (no TPU): its --simulate-on-cpu mode goes through
the same steps (original error, rewrite, the bfloat16 advice followed, the goldens' claims, a site of
jax's own matmul op injected, rewritten and run, the table, the exit status) with cross-platform
lowering in place of Mosaic's compiler and Pallas' TPU interpreter in place of the chip. The script is
run as a program, never imported, so a TPU-less pytest run loads nothing of it.
"""

import os
from pathlib import Path

import pytest

pytest.importorskip("jax")

from tests import warm_python  # noqa: E402

pytestmark = pytest.mark.jax

SCRIPT = Path(__file__).resolve().parent / "check_tpu.py"
EXAMPLES = SCRIPT.parents[2] / "examples"


def run_script(*args: str):
    env = {k: v for k, v in os.environ.items() if k not in ("OUT", "JAX_PLATFORMS")}
    return warm_python.run([SCRIPT, *args], env=env, timeout=600)


def _rows(stdout: str) -> dict[str, str]:
    lines = [line for line in stdout.splitlines() if line.startswith("| ") and "---" not in line]
    return {line.split(" | ")[0][2:]: line for line in lines[1:]}


def test_simulated_run_passes_on_examples_goldens_and_a_real_kernel(tmp_path):
    out = tmp_path / "table.md"
    done = run_script("--simulate-on-cpu", "--allow-skip", "--goldens", "dot_pair_jax_0_10",
                      "--kernels", "tpu/matmul.py", "--sites", "1", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    rows = _rows(done.stdout)
    assert rows["tpu_matmul"].endswith("| pass |")
    assert "raises `Per-operand dot precision unsupported`" in rows["tpu_matmul"]
    # The fix's finding says what to write for bfloat16 operands; the check writes it and runs that.
    assert "bf16 advice followed: HIGHEST -> DEFAULT" in rows["tpu_matmul (bfloat16 operands)"]
    assert rows["tpu_matmul (bfloat16 operands)"].endswith("| pass |")
    assert rows["tpu_softmax_accuracy"].endswith("| pass |") and "JAX002 dropped" in rows["tpu_softmax_accuracy"]
    golden = rows["precision/dot_pair_jax_0_10.matmul"]
    assert "fails: `NotImplementedError: Per-operand dot precision unsupported`" in golden and golden.endswith("| pass |")
    kernel = next(row for name, row in rows.items() if name.startswith("tpu/matmul.py:"))
    assert "raises `NotImplementedError: Per-operand dot precision unsupported`" in kernel
    assert "JAX001 fixed" in kernel and kernel.endswith("| pass |")
    assert out.read_text().rstrip().endswith(done.stdout.rstrip().splitlines()[-1])


def test_simulated_run_fails_on_a_wrong_reference(tmp_path):
    source = (EXAMPLES / "tpu_matmul.py").read_text()
    broken = source.replace('return jnp.dot(hidden, params["w2"], precision=Precision.HIGHEST) + params["b2"]',
                            'return 1.001 * jnp.dot(hidden, params["w2"], precision=Precision.HIGHEST) + params["b2"]')
    assert broken != source
    path = tmp_path / "tpu_matmul_wrong_reference.py"
    path.write_text(broken)
    done = run_script("--simulate-on-cpu", "--sections", "examples", str(path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL: does not match the XLA reference" in done.stdout


def test_without_a_tpu_it_says_so_and_exits_2():
    import jax

    if jax.default_backend() == "tpu":
        pytest.skip("this machine has a TPU")
    done = run_script("--sections", "examples")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout.startswith("no TPU")
