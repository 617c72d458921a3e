"""The tool's output on the bundled examples lowers and computes what plain XLA computes.

This is the end-to-end claim of the project: every example breaks exactly as a seed record says
(tests/test_examples_reproduce.py), the tool rewrites it with every transform enabled, targeting
the installed jax, and the real jax lowering then accepts it; run on the CPU (Pallas interpret
mode, the cuDNN stand-in) it matches the example's XLA reference.
"""

from pathlib import Path

import pytest

pytest.importorskip("jax")

from codemods.engine.runner import process_source
from codemods.registry import RULES
from codemods.settings import Settings
from tests import jax_support

pytestmark = pytest.mark.jax


def rewrite_for_installed_jax(path: Path) -> str:
    result = process_source(path, path.read_bytes(), RULES, Settings(jax_version=jax_support.JAX_VERSION, unsafe_fixes=True))
    assert result.error is None, result.error
    assert result.new_source is not None, f"the tool found nothing to fix in {path.name}"
    return result.after


@pytest.fixture(params=jax_support.EXAMPLE_PATHS, ids=lambda path: path.stem)
def rewritten(request):
    path = request.param
    reason = jax_support.jax_too_old(jax_support.load_program(path, path.stem))
    if reason:
        pytest.skip(reason)
    source = rewrite_for_installed_jax(path)
    return jax_support.load_program(source, f"{path.stem}_rewritten"), source


def test_rewritten_example_lowers(rewritten):
    program, _ = rewritten
    fn, args = program.build()
    with jax_support.cudnn_lstm_on_cpu():
        assert jax_support.lowering_error(fn, args, program.PLATFORM) is None


def test_rewritten_example_matches_xla_reference(rewritten):
    program, _ = rewritten
    jax_support.run_matches_reference(program)


def test_rewritten_example_is_stable(rewritten, tmp_path):
    """A second run finds nothing left to change."""
    _, source = rewritten
    again = tmp_path / "again.py"
    again.write_text(source)
    result = process_source(again, again.read_bytes(), RULES, Settings(jax_version=jax_support.JAX_VERSION, unsafe_fixes=True))
    assert result.error is None and result.new_source is None


def test_plain_xla_code_in_examples_is_untouched():
    """The per-operand precision and the accuracy hint outside kernels are XLA's to honour."""
    path = jax_support.EXAMPLES_DIR / "tpu_conv_block.py"
    if jax_support.jax_too_old(jax_support.load_program(path, path.stem)):
        # No Mosaic TPU conv on this release (nor a Triton one): the kernel's conv gets a [manual]
        # note saying so, and nothing in the file is rewritten.
        result = process_source(path, path.read_bytes(), RULES, Settings(jax_version=jax_support.JAX_VERSION))
        assert result.new_source is None
        assert any("cannot lower conv_general_dilated in a kernel at all" in f.message for f in result.findings)
        conv_block = path.read_text()
    else:
        conv_block = rewrite_for_installed_jax(path)
    stem = conv_block[conv_block.index("def stem"):conv_block.index("def _residual_block_kernel")]
    assert "precision=(lax.Precision.DEFAULT, lax.Precision.HIGH)" in stem
    rms_norm = rewrite_for_installed_jax(jax_support.EXAMPLES_DIR / "gpu_rms_norm.py")
    gate = rms_norm[rms_norm.index("def silu_gate"):]
    assert "accuracy=" in gate.split("\ndef ", 1)[0]
