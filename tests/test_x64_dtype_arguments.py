"""JAX005 reads a dtype wherever a call takes one (codemods/analysis/dtype_arguments.py): by keyword
(`x.astype(dtype=...)`, `lax.convert_element_type(x, new_dtype=...)`) or by position (`jnp.astype(x, d)`,
`jnp.arange(0, n, 1, d)`), in a 64-bit dtype it narrows and in a value whose dtype a sum reads. Each
kernel's input fails to lower for Mosaic TPU under x64, and its output lowers."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

pytest.importorskip("jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from codemods import registry  # noqa: E402
from codemods.capabilities import X64_UNSUPPORTED  # noqa: E402
from codemods.engine.runner import process_source  # noqa: E402
from codemods.settings import Settings  # noqa: E402
from tests import jax_support  # noqa: E402

pytestmark = pytest.mark.jax

_X64 = 'jax.config.update("jax_enable_x64", True)\n'


def _program(line: str, x64: bool) -> str:
    return ("import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n"
            "from jax.experimental.pallas import tpu as pltpu\n"
            f"{_X64 if x64 else ''}\n\ndef kernel(x_ref, o_ref):\n    a = {line}\n"
            "    o_ref[...] = (x_ref[...].astype(jnp.int32) + a).astype(o_ref.dtype)\n\n\n"
            "def run(x):\n    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
            "                          compiler_params=pltpu.CompilerParams())(x)\n")


def _lowering_error(source: str, name: str):
    saved = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)  # as the program's own line sets it, for both kinds of case
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = jax_support.load_program(source, name)
            try:
                jax.export.export(jax.jit(module.run), platforms=["tpu"])(jax.ShapeDtypeStruct((8, 128), jnp.float32))
            except Exception as error:  # noqa: BLE001 - the error is what is compared
                return f"{type(error).__name__}: {error}"
    finally:
        jax.config.update("jax_enable_x64", saved)
    return None


@pytest.mark.parametrize(("line", "fixed", "x64"), [
    # An explicit 64-bit dtype: narrowed with or without x64 in sight.
    ("x_ref[...].astype(dtype=jnp.int64)", "x_ref[...].astype(dtype=jnp.int32)", False),
    ("jnp.astype(x_ref[...], jnp.int64)", "jnp.astype(x_ref[...], jnp.int32)", False),
    ("lax.convert_element_type(x_ref[...], new_dtype=jnp.int64)",
     "lax.convert_element_type(x_ref[...], new_dtype=jnp.int32)", False),
    ("lax.convert_element_type(x_ref[...], jnp.float64)", "lax.convert_element_type(x_ref[...], jnp.float32)", False),
    ("jnp.zeros((8, 128), dtype=jnp.int64)", "jnp.zeros((8, 128), dtype=jnp.int32)", False),
    ("jnp.full_like(x_ref[...], 2, jnp.int64)", "jnp.full_like(x_ref[...], 2, jnp.int32)", False),
    ("jnp.arange(0, 128, 1, jnp.int64)", "jnp.arange(0, 128, 1, jnp.int32)", False),
    # A sum of a value cast to an integer dtype: summed as int64 under x64, given dtype=jnp.int32.
    ("jnp.sum(x_ref[...].astype(dtype=jnp.int32), axis=1, keepdims=True)",
     "jnp.sum(x_ref[...].astype(dtype=jnp.int32), axis=1, keepdims=True, dtype=jnp.int32)", True),
    ("jnp.sum(jnp.astype(x_ref[...], jnp.int32), axis=1, keepdims=True)",
     "jnp.sum(jnp.astype(x_ref[...], jnp.int32), axis=1, keepdims=True, dtype=jnp.int32)", True),
    ("jnp.sum(lax.convert_element_type(x_ref[...], new_dtype=jnp.int32), axis=1, keepdims=True)",
     "jnp.sum(lax.convert_element_type(x_ref[...], new_dtype=jnp.int32), axis=1, keepdims=True, dtype=jnp.int32)",
     True),
    ("jnp.sum(lax.convert_element_type(x_ref[...], jnp.int32), axis=1, keepdims=True)",
     "jnp.sum(lax.convert_element_type(x_ref[...], jnp.int32), axis=1, keepdims=True, dtype=jnp.int32)", True),
])
def test_a_dtype_given_by_keyword_or_position_is_fixed_and_the_output_lowers(line: str, fixed: str, x64: bool,
                                                                             request) -> None:
    source = _program(line, x64)
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX005"]),
                            Settings(jax_support.JAX_VERSION, unsafe_fixes=True))
    assert result.error is None, result.error
    assert [(f.kind.value, f.fix.applicability.value if f.fix else None) for f in result.findings] == \
        [("fixed", "safe")], [f.message for f in result.findings]
    assert result.after is not None and f"    a = {fixed}\n" in result.after
    name = f"x64_dtype_arguments_{request.node.callspec.id}"
    assert X64_UNSUPPORTED in (_lowering_error(source, f"{name}_in") or "")
    assert _lowering_error(result.after, f"{name}_out") is None


def test_an_arange_given_its_dtype_by_position_is_left_as_it_is() -> None:
    """`jnp.arange(0, 128, 1, jnp.int32)` has its dtype (position 3): a `dtype=` added to it was a
    TypeError (an unsafe fix) before the table placed it."""
    source = _program("jnp.arange(0, 128, 1, jnp.int32)", x64=True)
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX005"]),
                            Settings(jax_support.JAX_VERSION, unsafe_fixes=True))
    assert (result.error, result.after or None, result.findings) == (None, None, []), [f.message for f in result.findings]
    assert _lowering_error(source, "x64_dtype_arguments_arange_by_position") is None
