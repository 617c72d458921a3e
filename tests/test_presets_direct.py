"""Dot algorithm presets in JAX001 (codemods/analysis/presets.py and `_plan_preset`), in the test's
process: each outcome's exact source and finding. The goldens precision/dot_algorithm_presets_*
lower the whole-module cases with real jax. No jax here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from codemods import registry
from codemods.analysis.module import ModuleIndex
from codemods.analysis.presets import PRESET_ERROR, dot_algorithm, spell_dtype, spell_precision
from codemods.capabilities import DOT_ALGORITHM_PRESETS, Level, lowered_presets
from codemods.engine.runner import process_source
from codemods.settings import Settings

HEAD = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import pallas as pl\n\n"
TPU = "\n\nf = pl.pallas_call(kernel, out_shape=None, compiler_params=pltpu.CompilerParams())\n"
TPU_HEAD = HEAD + "from jax.experimental.pallas import tpu as pltpu\n\n"
FAILS = f'(a dot algorithm preset is rejected in Mosaic TPU kernels: "{PRESET_ERROR}")'


def _run(source: str, version=(0, 12, 0, 1)):
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX001"]), Settings(version, unsafe_fixes=True))
    assert result.error is None, result.error
    return (result.after or source), [(f.line, f.kind.value, f.message, f.fix.applicability.value if f.fix else None)
                                      for f in result.findings]


def _tpu_kernel(line: str, head: str = TPU_HEAD) -> str:
    return f"{head}def kernel(x, w, o):\n    {line}\n{TPU}"


def test_the_table_maps_every_preset_and_no_mosaic_tpu_release_lowers_one() -> None:
    assert lowered_presets("mosaic_tpu", (0, 12, 0, 1)) == lowered_presets("mosaic_tpu", None) == frozenset()
    assert lowered_presets("triton", (0, 10, 2)) == frozenset(DOT_ALGORITHM_PRESETS) - {
        "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM",
        "F64_F64_F64"}


@pytest.mark.parametrize(("source", "expected"), [
    ("from jax import lax\nv = lax.DotAlgorithmPreset.F32_F32_F32", "F32_F32_F32"),
    ("import jax\nv = jax.lax.DotAlgorithmPreset.BF16_BF16_F32", "BF16_BF16_F32"),
    ("from jax.lax import DotAlgorithmPreset as D\nv = D.TF32_TF32_F32", "TF32_TF32_F32"),
    ("v = 'BF16_BF16_F32_X3'", "BF16_BF16_F32_X3"),
    ("from jax import lax\nFAST = lax.DotAlgorithmPreset.DEFAULT\nv = FAST", "DEFAULT"),
    ("import jax.numpy as jnp\nfrom jax import lax\nv = lax.DotAlgorithm(jnp.bfloat16, jnp.bfloat16, jnp.float32)", None),
])
def test_a_preset_is_read_through_any_spelling(source: str, expected) -> None:
    module = ModuleIndex(source, ast.parse(source))
    found = dot_algorithm(module.tree.body[-1].value, module)
    assert found is not None and found.name == expected


@pytest.mark.parametrize("source", ["v = 'bf16_bf16_f32'", "v = 'highest'", "class lax:\n    pass\nv = lax.F32_F32_F32",
                                    "from jax import lax\nv = lax.Precision.HIGHEST"])
def test_what_is_no_preset(source: str) -> None:
    module = ModuleIndex(source, ast.parse(source))
    assert dot_algorithm(module.tree.body[-1].value, module) is None


@pytest.mark.parametrize(("source", "precision", "dtype"), [
    ("import jax.numpy as np\nfrom jax import lax\nv = lax.DotAlgorithmPreset.F32_F32_F32", "lax.Precision.HIGH",
     "np.bfloat16"),
    ("import jax\nv = jax.lax.DotAlgorithmPreset.F32_F32_F32", "jax.lax.Precision.HIGH", "jax.numpy.bfloat16"),
    ("from jax.lax import DotAlgorithmPreset\nv = DotAlgorithmPreset.F32_F32_F32", '"high"', '"bfloat16"'),
    ("v = 'F32_F32_F32'", "'high'", "'bfloat16'"),
    # a new string in the module's own quotes (the trial of 2026-12-07e, N2)
    ("from jax.lax import DotAlgorithmPreset\nNAME = 'k'\nv = DotAlgorithmPreset.F32_F32_F32", "'high'", "'bfloat16'"),
])
def test_a_precision_and_a_dtype_are_spelt_in_the_modules_own_names(source: str, precision: str, dtype: str) -> None:
    module = ModuleIndex(source, ast.parse(source))
    preset = dot_algorithm(module.tree.body[-1].value, module)
    assert spell_precision(preset, Level.HIGH, module) == precision
    assert spell_dtype("bfloat16", module) == dtype


def test_a_given_preferred_element_type_is_kept_and_not_written_twice() -> None:
    line = "o[...] = jnp.dot(x[...], w[...], precision=lax.DotAlgorithmPreset.BF16_BF16_F32, preferred_element_type=jnp.bfloat16)"
    after, findings = _run(_tpu_kernel(line))
    assert after == _tpu_kernel("o[...] = jnp.dot(x[...].astype(jnp.bfloat16), w[...].astype(jnp.bfloat16), "
                                "precision=lax.Precision.DEFAULT, preferred_element_type=jnp.bfloat16)")
    assert findings == [(9, "fixed", "jnp.dot: precision DotAlgorithmPreset.BF16_BF16_F32 -> DEFAULT, operands "
                         f"`x[...]`, `w[...]` cast to bfloat16 {FAILS}; one pass on bfloat16 inputs, float32 accumulation",
                         "safe")]


def test_the_default_preset_is_the_default_precision() -> None:
    after, findings = _run(_tpu_kernel("o[...] = lax.dot(x[...], w[...], precision=lax.DotAlgorithmPreset.DEFAULT)"))
    assert after == _tpu_kernel("o[...] = lax.dot(x[...], w[...], precision=lax.Precision.DEFAULT)")
    assert findings == [(9, "fixed", f"lax.dot: precision DotAlgorithmPreset.DEFAULT -> DEFAULT {FAILS}; the default "
                         "algorithm", "safe")]


def test_outside_kernels_and_in_triton_kernels_a_preset_it_lowers_is_left_alone() -> None:
    source = (HEAD + "from jax.experimental.pallas import triton as pltriton\n\n"
              "def kernel(x, w, o):\n    o[...] = jnp.dot(x[...], w[...], precision=lax.DotAlgorithmPreset.BF16_BF16_F32)\n"
              "    o[...] = jnp.dot(x[...], w[...], precision=lax.DotAlgorithmPreset.F64_F64_F64)\n\n\n"
              "def plain(x, w):\n    return jnp.dot(x, w, precision=lax.DotAlgorithmPreset.F64_F64_F64)\n\n\n"
              "f = pl.pallas_call(kernel, out_shape=None, compiler_params=pltriton.CompilerParams())\n")
    after, findings = _run(source)
    assert after == source
    assert findings == [(10, "manual", "jnp.dot: precision DotAlgorithmPreset.F64_F64_F64: Triton lowers no fp8 or "
                         'float64 preset ("Unsupported dot algorithm: F64_F64_F64."): write the types its operands '
                         "should have", None)]


@pytest.mark.parametrize(("line", "why"), [
    ("o[...] = jnp.dot(x[...], w[...], precision=lax.DotAlgorithmPreset.BF16_BF16_F32_X9)",
     "nine bfloat16 passes: HIGHEST, Mosaic TPU's most accurate, is six"),
    ("o[...] = jnp.dot(*xs, precision=lax.DotAlgorithmPreset.BF16_BF16_F32)",
     "its operands are not written out, to be cast to bfloat16"),
])
def test_what_no_spelling_mosaic_tpu_lowers_keeps_is_a_note(line: str, why: str) -> None:
    source = _tpu_kernel(line)
    after, findings = _run(source)
    preset = line.split("DotAlgorithmPreset.")[1].rstrip(")")
    assert after == source
    assert findings == [(9, "manual", f"jnp.dot: precision DotAlgorithmPreset.{preset} {FAILS}: {why}", None)]


def test_a_dot_algorithm_is_a_note_that_quotes_its_error() -> None:
    source = _tpu_kernel("o[...] = jnp.dot(x[...], w[...], precision=lax.DotAlgorithm(jnp.bfloat16, jnp.bfloat16, "
                         "jnp.float32))")
    after, findings = _run(source)
    assert after == source
    assert findings == [(9, "manual", "jnp.dot: precision lax.DotAlgorithm(...) (a lax.DotAlgorithm is rejected in "
                         "Mosaic TPU kernels: \"NotImplementedError: Unsupported dot precision: <class "
                         "'jax.numpy.bfloat16'>\"): write the precision its types name as a lax.Precision, with "
                         "operand casts", None)]


def test_batch_matmul_takes_no_preferred_element_type() -> None:
    source = _tpu_kernel("o[...] = lax.batch_matmul(x[...], w[...], precision=lax.DotAlgorithmPreset.BF16_BF16_F32)")
    after, findings = _run(source)
    assert after == source
    assert findings == [(9, "manual", f"lax.batch_matmul: precision DotAlgorithmPreset.BF16_BF16_F32 {FAILS}: "
                         "lax.batch_matmul takes no preferred_element_type for the preset's float32 accumulation; "
                         "use lax.dot_general", None)]


def test_a_preset_bound_to_a_kernel_parameter_is_a_note_that_names_it() -> None:
    """Followed through functools.partial to the kernel's precision: the note says what it is (before:
    "read from the imported `jax.lax`", as if it were any precision the analysis cannot see)."""
    source = (HEAD + "import functools\n\ndef kernel(x, w, o, *, precision):\n"
              "    o[...] = jnp.dot(x[...], w[...], precision=precision)\n\n\n"
              "f = pl.pallas_call(functools.partial(kernel, precision=lax.DotAlgorithmPreset.F32_F32_F32), "
              "out_shape=None)\n")
    after, findings = _run(source)
    assert after == source
    assert findings == [(9, "manual", "jnp.dot: precision `precision` is a kernel parameter bound to "
                         "`lax.DotAlgorithmPreset.F32_F32_F32`, not a literal (it can be DotAlgorithmPreset.F32_F32_F32, "
                         "a dot algorithm preset, which Mosaic TPU kernels reject; JAX001 rewrites one written at the "
                         "dot call itself): if it is not a single scalar the Mosaic TPU lowering accepts, Mosaic TPU "
                         'raises "Per-operand dot precision unsupported" for a pair', None)]


def test_a_partial_of_the_dot_casts_no_operand_it_does_not_show() -> None:
    """`functools.partial(jnp.dot, x, precision=BF16_BF16_F32)`: the partial's first argument is the
    dot itself, and its other operand comes where the partial is called, so there are no operands to
    cast (the fix wrote `jnp.dot.astype(jnp.bfloat16)`): a [manual] note."""
    source = _tpu_kernel("import functools\n    mm = functools.partial(jnp.dot, x[...], "
                         "precision=lax.DotAlgorithmPreset.BF16_BF16_F32)\n    o[...] = mm(w[...])")
    after, findings = _run(source)
    assert after == source
    assert [f[1] for f in findings] == ["manual"] and "its operands are not written out" in findings[0][2]
