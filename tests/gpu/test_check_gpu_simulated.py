"""tests/gpu/check_gpu.py keeps working where CI runs (no GPU): its --simulate-on-cpu mode goes
through the same steps (rewrite, original error, lowering for "cuda", run, compare, table, exit
status) with Pallas interpret mode and the cuDNN CPU stand-in. The script is run as a program,
never imported, so a GPU-less pytest run loads nothing of it.
"""

import os
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("jax")

from tests import warm_python  # noqa: E402

pytestmark = pytest.mark.jax

SCRIPT = Path(__file__).resolve().parent / "check_gpu.py"
EXAMPLES = SCRIPT.parents[2] / "examples"


def run_script(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("OUT", "JAX_PLATFORMS")}
    return warm_python.run([SCRIPT, *args], env=env, timeout=300)


def test_simulated_run_passes_on_the_gpu_examples():
    done = run_script("--simulate-on-cpu")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and "---" not in line]
    assert [row.split(" | ")[0] for row in rows[1:]] == ["| bf16_lstm", "| gpu_rms_norm"]
    assert all(row.endswith("| pass |") for row in rows[1:]), done.stdout
    assert "raises `bfloat16 support not implemented for LSTM`" in done.stdout
    assert "raises `Not implemented: accuracy`" in done.stdout
    assert "[float32, tf32 off]" in done.stdout


def test_simulated_run_fails_on_a_wrong_reference(tmp_path):
    source = (EXAMPLES / "gpu_rms_norm.py").read_text()
    broken = source.replace("return normalized * z", "return 1.001 * normalized * z")
    assert broken != source
    path = tmp_path / "gpu_rms_norm_wrong_reference.py"
    path.write_text(broken)
    done = run_script("--simulate-on-cpu", str(path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL: does not match the XLA reference" in done.stdout


def test_a_skipped_row_is_not_a_pass_unless_allowed(tmp_path):
    """A program the script cannot exercise (here: one that is neither a Mosaic GPU nor an LSTM
    example) makes the run exit 3, and 0 only with --allow-skip."""
    path = tmp_path / "tpu_only.py"
    path.write_text((EXAMPLES / "tpu_matmul.py").read_text())
    done = run_script("--simulate-on-cpu", str(EXAMPLES / "gpu_rms_norm.py"), str(path))
    assert done.returncode == 3, done.stdout + done.stderr
    assert "1 SKIPPED (not exercised)" in done.stdout and "not exercised here: tpu_only" in done.stderr
    allowed = run_script("--simulate-on-cpu", "--allow-skip", str(EXAMPLES / "gpu_rms_norm.py"), str(path))
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr


def test_without_a_gpu_it_says_so_and_exits_2():
    import jax

    try:
        jax.devices("cuda")
    except RuntimeError:
        pass
    else:
        pytest.skip("this machine has a CUDA GPU")
    done = run_script()
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout.startswith("no GPU")
