"""Kernel backends against the real compiler: where the tool says a kernel reaches Mosaic TPU, the
input fails to lower for tpu and the tool's output lowers (both jax releases of `make test`).

Triton-only and Mosaic-GPU-only kernels are left byte-identical (their goldens say so); this file
proves the other side: the launches the tool reads as TPU-reachable really go through Mosaic TPU.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from codemods.engine.runner import process_source  # noqa: E402
from codemods.registry import select  # noqa: E402
from codemods.settings import Settings  # noqa: E402
from tests import jax_support  # noqa: E402

pytestmark = pytest.mark.jax

FIXTURES = Path(__file__).parent / "fixtures" / "precision"
PER_OPERAND = "Per-operand dot precision unsupported"
# (golden case, entry point, operand shapes): launches configured for Mosaic TPU. The legacy
# `compiler_params=dict(mosaic=...)` spelling (backend_dict_compiler_params) is read by the tool but
# no longer accepted by jax 0.10.2 or 0.12 ("unhashable type: 'dict'"), so it cannot be lowered here.
TPU_LAUNCHES = [
    ("backend_tpu_compiler_params", "run", ((8, 128), (128, 128))),
]


@pytest.mark.parametrize("case, entry, shapes", TPU_LAUNCHES, ids=[case for case, _, _ in TPU_LAUNCHES])
def test_tpu_launch_lowers_only_after_the_rewrite(case: str, entry: str, shapes: tuple) -> None:
    source = (FIXTURES / f"{case}.in.py").read_text()
    result = process_source(Path(f"{case}.py"), source.encode(), select(["JAX001"]), Settings(jax_support.JAX_VERSION))
    assert result.error is None and result.new_source is not None, result.error
    operands = [jax.ShapeDtypeStruct(shape, jnp.float32) for shape in shapes]

    original = jax_support.load_program(source, f"{case}_original")
    assert jax_support.lowering_error(jax.jit(getattr(original, entry)), operands, "tpu") == PER_OPERAND
    rewritten = jax_support.load_program(result.after, f"{case}_rewritten")
    assert jax_support.lowering_error(jax.jit(getattr(rewritten, entry)), operands, "tpu") is None
