"""JAX005 (codemods/rules/x64_values.py) in the test's process: each outcome's exact source and finding.
The goldens x64/* lower the whole-module cases with real jax under x64 (tests/test_x64_jax.py). No jax here."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Optional

import pytest

from codemods import registry
from codemods.analysis.module import ModuleIndex
from codemods.analysis.visible_dtypes import dtype_named, value_dtype
from codemods.capabilities import X64_UNSUPPORTED, x64_rejection
from codemods.engine.runner import process_source
from codemods.rules.x64_values import enables_x64
from codemods.settings import Scope, Settings

HEAD = "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n" \
       "from jax.experimental.pallas import tpu as pltpu\n"
X64 = 'jax.config.update("jax_enable_x64", True)\n'
TPU = "\n\nf = pl.pallas_call(kernel, out_shape=None, compiler_params=pltpu.CompilerParams())\n"


def _run(source: str, proven: Optional[frozenset[int]] = None, scope: Scope = Scope.KERNELS):
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX005"]),
                            Settings((0, 12, 0, 1), scope, unsafe_fixes=True),
                            None if proven is None else {"JAX005": proven})
    assert result.error is None, result.error
    return (result.after or source), [(f.line, f.kind.value, f.message, f.fix.applicability.value if f.fix else None)
                                      for f in result.findings]


def _kernel(line: str, x64: bool = True, launch: str = TPU, head: str = HEAD) -> str:
    return f"{head}{X64 if x64 else ''}\n\ndef kernel(x_ref, o_ref):\n    {line}\n{launch}"


def _changed_line(source: str) -> str:
    return source.splitlines()[source.splitlines().index("def kernel(x_ref, o_ref):") + 1].strip()


@pytest.mark.parametrize(("line", "fixed"), [
    ("a = jnp.zeros((8, 128), dtype=jnp.int64)", "a = jnp.zeros((8, 128), dtype=jnp.int32)"),
    ("a = jnp.zeros((8, 128), jnp.float64)", "a = jnp.zeros((8, 128), jnp.float32)"),
    ("a = x_ref[...].astype('uint64')", "a = x_ref[...].astype('uint32')"),
    ("a = x_ref[...].astype(jnp.dtype('int64'))", "a = x_ref[...].astype(jnp.dtype('int32'))"),
    ("a = x_ref[...].astype(int)", "a = x_ref[...].astype(jnp.int32)"),
    ("a = jnp.full((8, 128), 1, dtype=float)", "a = jnp.full((8, 128), 1, dtype=jnp.float32)"),
    ("a = jnp.int64(3) + x_ref[0]", "a = jnp.int32(3) + x_ref[0]"),
    ("a = jax.lax.broadcasted_iota(jnp.int64, (8, 128), 1)", "a = jax.lax.broadcasted_iota(jnp.int32, (8, 128), 1)"),
])
def test_an_explicit_64_bit_dtype_is_narrowed_without_x64_in_sight(line: str, fixed: str) -> None:
    """Without x64 jax makes these 32-bit already (a UserWarning): the fix changes nothing there."""
    after, findings = _run(_kernel(line, x64=False))
    assert _changed_line(after) == fixed
    assert [(kind, applicability) for _, kind, _, applicability in findings] == [("fixed", "safe")]
    assert X64_UNSUPPORTED in findings[0][2]


@pytest.mark.parametrize(("line", "fixed", "case"), [
    ("a = jnp.zeros((8, 128))", "a = jnp.zeros((8, 128), dtype=jnp.float32)", "float64 value"),
    ("a = jnp.ones(x_ref.shape) + x_ref[...]", "a = jnp.ones(x_ref.shape, dtype=jnp.float32) + x_ref[...]",
     "float64 value"),
    ("a = jnp.arange(128)", "a = jnp.arange(128, dtype=jnp.int32)", "iota"),
    ("a = jnp.arange(x_ref.shape[1] // 2)", "a = jnp.arange(x_ref.shape[1] // 2, dtype=jnp.int32)", "iota"),
    ("a = jnp.arange(0.0, 1.0, 0.125)", "a = jnp.arange(0.0, 1.0, 0.125, dtype=jnp.float32)", "float64 value"),
    ("a = jnp.sum(x_ref[...] > 0, axis=1)", "a = jnp.sum(x_ref[...] > 0, axis=1, dtype=jnp.int32)", "integer sum"),
    ("a = jnp.prod(x_ref[...].astype(jnp.uint8))", "a = jnp.prod(x_ref[...].astype(jnp.uint8), dtype=jnp.uint32)",
     "integer sum"),
    ("a = jnp.argmax(x_ref[...], axis=1)", "a = argmax_tpu(x_ref[...], 1)", "argmax"),
    ("a = jnp.argmin(x_ref[...], 0)", "a = argmin_tpu(x_ref[...], 0)", "argmax"),
    ("a = jnp.argmax(x_ref[...], axis=-1)", "a = argmax_tpu(x_ref[...], -1)", "argmax"),
    ("a = jnp.argmax(x_ref[...], axis=1, keepdims=True)", "a = argmax_tpu(x_ref[...], 1, keepdims=True)", "argmax"),
    ("a = jnp.argmin(x_ref[...], 1, None, False)", "a = argmin_tpu(x_ref[...], 1)", "argmax"),
])
def test_a_64_bit_default_is_fixed_where_the_module_turns_x64_on(line: str, fixed: str, case: str) -> None:
    after, findings = _run(_kernel(line))
    assert _changed_line(after) == fixed
    assert [(kind, applicability) for _, kind, _, applicability in findings] == [("fixed", "safe")]
    assert x64_rejection("mosaic_tpu", case, (0, 12, 0, 1)) in findings[0][2]
    untouched, none = _run(_kernel(line, x64=False))
    assert none == [] and _changed_line(untouched) == line


@pytest.mark.parametrize("line", [
    "a = jnp.zeros((8, 128), dtype=jnp.float32)",
    "a = jnp.arange(128, dtype=jnp.int32)",
    "a = jnp.sum(x_ref[...], axis=1)",  # its dtype is not visible: a float sum stays float
    "a = jnp.sum(x_ref[...].astype(jnp.float32) > 0.5, dtype=jnp.int32)",
    "a = jnp.sum(x_ref[...].astype(jnp.bfloat16))",
    "a = jnp.zeros_like(x_ref[...])",
    "a = jnp.full((8, 128), 1.0)",  # a Python scalar stays weakly typed: 32-bit
    "a = jnp.zeros((8, 128), **options)",
])
def test_what_is_no_64_bit_value_is_left_alone(line: str) -> None:
    assert _run(_kernel(line)) == (_kernel(line), [])


def test_outside_kernels_and_in_triton_only_kernels_nothing_changes() -> None:
    xla = f"{HEAD}{X64}\n\ndef f(x):\n    return jnp.zeros(4, dtype=jnp.int64) + jnp.arange(4)\n"
    assert _run(xla) == (xla, [])
    triton = _kernel("a = jnp.zeros((8, 128), dtype=jnp.int64)", launch=(
        "\n\nfrom jax.experimental.pallas import triton as plt\n"
        "f = pl.pallas_call(kernel, out_shape=None, compiler_params=plt.CompilerParams())\n"))
    assert _run(triton) == (triton, [])
    after, findings = _run(xla, scope=Scope.ALL)
    assert "jnp.int32" in after and "dtype=jnp.int32" in after and len(findings) == 2


def test_a_kernel_triton_lowers_too_is_fixed_unsafe() -> None:
    """Under x64 Triton lowers 64-bit values: the fix makes them 32-bit there too."""
    source = _kernel("a = jnp.zeros((8, 128), dtype=jnp.int64)", launch="\n\nf = pl.pallas_call(kernel, out_shape=None)\n")
    after, findings = _run(source)
    assert "dtype=jnp.int32" in after
    assert findings[0][1:] == ("fixed", findings[0][2], "unsafe")
    assert "forced by Mosaic TPU: under x64 Triton now computes it in 32 bits too" in findings[0][2]


def test_an_arange_bound_not_visibly_int_is_fixed_unsafe() -> None:
    after, findings = _run(_kernel("a = jnp.arange(n)", head=HEAD + "n = compute()\n"))
    assert "jnp.arange(n, dtype=jnp.int32)" in after
    assert findings[0][3] == "unsafe" and "a float bound would now give int32 values" in findings[0][2]


@pytest.mark.parametrize("line", [
    "a = jnp.argmax(x_ref[...])",
    "a = jnp.argmax(x_ref[...], axis=k)",
    "a = jnp.argmax(x_ref[...], axis=1, keepdims=flag)",
    "a = jnp.argmax(x_ref[...], 1, out)",
])
def test_an_argmax_the_tool_cannot_rewrite_gets_a_note(line: str) -> None:
    after, findings = _run(_kernel(line))
    assert _changed_line(after) == line
    assert [kind for _, kind, _, _ in findings] == ["manual"]
    assert "argmax_tpu(x, axis)" in findings[0][2]
    assert "out=, an unwritten axis, a keepdims= not written True or False" in findings[0][2]


WITHOUT_JAX = "import os\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n" \
              "from jax.experimental.pallas import tpu as pltpu\nos.environ['JAX_ENABLE_X64'] = '1'\n"


def test_an_argmax_in_a_module_without_jax_lax_imports_it() -> None:
    """A kernel module importing only jax.numpy and pallas (the sixth trial's qkern/x64k.py) was a note."""
    after, findings = _run(_kernel("a = jnp.argmax(x_ref[...], axis=1)", x64=False, head=WITHOUT_JAX))
    assert _changed_line(after) == "a = argmax_tpu(x_ref[...], 1)"
    assert "from jax import lax\n" in after  # argmax_tpu's body uses it
    assert [(kind, applicability) for _, kind, _, applicability in findings] == [("fixed", "safe")]


def test_an_argmax_in_a_module_whose_lax_is_something_else_imports_lax_under_a_free_name() -> None:
    head = WITHOUT_JAX + "lax = None\n"
    after, findings = _run(_kernel("a = jnp.argmax(x_ref[...], axis=1)", x64=False, head=head))
    assert [kind for _, kind, _, _ in findings] == ["fixed"]
    assert "from jax import lax as lax_2\n" in after and "lax_2.broadcasted_iota(" in after


def test_a_dtype_parameter_where_a_traceback_proves_a_64_bit_value_gets_a_note() -> None:
    """The sixth trial's x64_count: `dtype=acc_dtype`, bound by a caller's partial to a config field's
    jnp.int64; explain could not place the traceback ("no call there that JAX005 rewrites")."""
    source = _kernel("acc = jnp.zeros((8, 128), dtype=acc_dtype)\n    o_ref[...] = acc.astype(jnp.float32)",
                     x64=False).replace("def kernel(x_ref, o_ref):", "def kernel(x_ref, o_ref, *, acc_dtype):")
    assert _run(source) == (source, [])
    line = source.splitlines().index("    acc = jnp.zeros((8, 128), dtype=acc_dtype)") + 1
    after, findings = _run(source, proven=frozenset({line}))
    assert after == source
    assert [(found, kind) for found, kind, _, _ in findings] == [(line, "manual")]
    assert "`acc_dtype` is a dtype this code does not show" in findings[0][2]
    assert X64_UNSUPPORTED in findings[0][2]


def test_a_traceback_proves_x64_on_in_its_kernel_function() -> None:
    """explain: the failing line may be the one that adds, not the one that makes, the 64-bit value;
    every default of that kernel function is fixed, and a sum of unknown dtype gets a note."""
    source = _kernel("acc = jnp.zeros((8, 128))\n    n = jnp.sum(x_ref[...])\n    o_ref[...] = acc + x_ref[...]",
                     x64=False)
    assert _run(source) == (source, [])
    line = source.splitlines().index("    o_ref[...] = acc + x_ref[...]") + 1
    after, findings = _run(source, proven=frozenset({line}))
    assert "jnp.zeros((8, 128), dtype=jnp.float32)" in after
    assert [kind for _, kind, _, _ in findings] == ["fixed", "manual"]
    assert "pass dtype=jnp.int32 (its dtype is not visible here)" in findings[1][2]
    # A proven line elsewhere (another function) proves nothing about this kernel.
    assert _run(source, proven=frozenset({1})) == (source, [])


@pytest.mark.parametrize(("setting", "on"), [
    ('jax.config.update("jax_enable_x64", True)', True),
    ("from jax import config\nconfig.update('jax_enable_x64', 1)", True),
    ('jax.config.update("jax_enable_x64", False)', False),
    ("import os\nos.environ['JAX_ENABLE_X64'] = '1'", True),
    ("from jax.experimental import enable_x64\nwith enable_x64():\n    pass", True),
    ("jax.config.jax_enable_x64 = True", True),
    ("# jax_enable_x64 in a comment", False),
    ("", False),
])
def test_the_spellings_that_turn_x64_on(setting: str, on: bool) -> None:
    source = f"import jax\n{setting}\n"
    assert enables_x64(ModuleIndex(source, ast.parse(source))) is on


@pytest.mark.parametrize(("expression", "dtype"), [
    ("jnp.int64", "int64"), ("np.float64", "float64"), ("'bfloat16'", "bfloat16"), ("jnp.dtype('int8')", "int8"),
    ("int", None), ("'float128'", None), ("jnp.zeros", None),
])
def test_dtype_named(expression: str, dtype) -> None:
    source = f"import numpy as np\nimport jax.numpy as jnp\nv = {expression}"
    module = ModuleIndex(source, ast.parse(source))
    assert dtype_named(module.tree.body[-1].value, module) == dtype


@pytest.mark.parametrize(("expression", "dtype"), [
    ("x.astype(jnp.int8)", "int8"), ("x > 0", "bool_"), ("jnp.zeros(4, dtype='bfloat16')[0]", "bfloat16"),
    ("jnp.bfloat16(1.0) * 2", "bfloat16"), ("-x.astype(jnp.int16)", "int16"), ("y", "int8"),
    ("x.astype(jnp.int8) + x.astype(jnp.int16)", None), ("x", None), ("jnp.arange(4)", None),
])
def test_value_dtype(expression: str, dtype) -> None:
    source = f"import jax.numpy as jnp\ny = x.astype(jnp.int8)\nv = {expression}"
    module = ModuleIndex(source, ast.parse(source))
    assert value_dtype(module.tree.body[-1].value, module) == dtype


def test_a_helper_plain_xla_code_calls_too_is_reported_not_rewritten() -> None:
    """Under x64 the XLA caller keeps its int64 values: narrowing them in the shared helper would change it."""
    source = (f"{HEAD}\n\ndef widen(v):\n    return v.astype(jnp.int64)\n\n\n"
              "def kernel(x_ref, o_ref):\n    o_ref[...] = widen(x_ref[...])\n"
              f"{TPU}\n\ndef xla(x):\n    return widen(x)\n")
    after, findings = _run(source)
    assert after == source
    assert [kind for _, kind, _, _ in findings] == ["manual"]
    assert "`widen` runs in kernels and in plain XLA code" in findings[0][2]


OPERANDS = '''\
def kernel(ids_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def metadata(n):
    ids = jnp.arange(n)
    return ids, jnp.arange(n) + 1


def run(x, n):
    ids, unused = metadata(n)
    grid = jnp.arange(3)
    return pl.pallas_call(kernel, out_shape=None, compiler_params=COMPILER_PARAMS)(ids, x)
'''


def test_a_value_xla_code_makes_for_a_launch_is_fixed_where_it_is_made() -> None:
    """`ids` reaches the launch through a returned tuple: its arange gets the dtype; the tuple's other
    element and an arange that reaches no launch are left as they are."""
    source = f"{HEAD}{X64}\n{OPERANDS.replace('COMPILER_PARAMS', 'pltpu.CompilerParams()')}"
    after, findings = _run(source)
    assert [line for line in after.splitlines() if "arange" in line] == [
        "    ids = jnp.arange(n, dtype=jnp.int32)", "    return ids, jnp.arange(n) + 1", "    grid = jnp.arange(3)"]
    assert [(line, kind, applicability) for line, kind, _, applicability in findings] == [(12, "fixed", "unsafe")]
    assert "it reaches operand 0 (`ids`) of the Mosaic TPU launch at line 19" in findings[0][2]


def test_launch_operands_are_left_without_x64_in_the_module_and_in_triton_launches() -> None:
    without_x64 = f"{HEAD}\n{OPERANDS.replace('COMPILER_PARAMS', 'pltpu.CompilerParams()')}"
    assert _run(without_x64) == (without_x64, [])
    triton = (f"{HEAD}{X64}from jax.experimental.pallas import triton as plt\n\n"
              f"{OPERANDS.replace('COMPILER_PARAMS', 'plt.CompilerParams()')}")
    assert _run(triton) == (triton, [])


def test_an_operand_handed_in_a_starred_tuple_is_named_without_a_position() -> None:
    source = (f"{HEAD}{X64}\n{OPERANDS.replace('COMPILER_PARAMS', 'pltpu.CompilerParams()')}"
              "\n\ndef run_all(x):\n    operands = (jnp.full((1,), 3, jnp.int64), x)\n"
              "    return pl.pallas_call(kernel, out_shape=None, compiler_params=pltpu.CompilerParams())(*operands)\n")
    after, findings = _run(source)
    assert "jnp.full((1,), 3, jnp.int32)" in after
    assert "it reaches an operand (`*operands`) of the Mosaic TPU launch at line 24" in findings[-1][2]


@pytest.mark.parametrize("other", ["jnp.int32", "jnp.float64"])
def test_a_dtype_bound_to_a_64_bit_one_and_another_is_a_note_in_any_process(other: str) -> None:
    """`dt` bound to jnp.int64 in one branch and to another dtype in the other: no one dtype to write (`"int32"` for a float64 branch turned its
    values to integers); which of the two was taken depended on the process's string hashing (PYTHONHASHSEED),
    so the same file was fixed one way in one run and another way, or not at all, in the next (scipy's
    interpolate/_bsplines.py under --scope all)."""
    source = _kernel(f"dt = {other}\n    if x_ref.shape[0] > 8:\n        dt = jnp.int64\n    o_ref[...] = x_ref[...].astype(dt)")
    after, findings = _run(source)
    assert after == source
    [(_, kind, message, _)] = findings
    assert kind == "manual" and "`dt` may be " in message and "int64" in message


def test_an_argmax_xla_code_makes_for_a_launch_becomes_lax_argmax_on_axis_0() -> None:
    """XLA code's argmax keeps jnp's ties with lax.argmax (argmax_tpu is for kernels), axis 0 included."""
    source = f"{HEAD}{X64}\n{OPERANDS.replace('COMPILER_PARAMS', 'pltpu.CompilerParams()')}".replace(
        "ids = jnp.arange(n)", "ids = jnp.argmax(jnp.ones((n, 4)), axis=0)")
    after, findings = _run(source)
    assert "    ids = jax.lax.argmax(jnp.ones((n, 4)), 0, jnp.int32)" in after.splitlines(), after
    assert "argmax_tpu" not in after and [kind for _, kind, _, _ in findings] == ["fixed"], findings


def test_an_argmax_with_a_helpers_module_imports_the_helper_and_not_lax() -> None:
    """With `--helpers-module` the helper's body is not in the module: no `lax` import is added for it."""
    source = _kernel("a = jnp.argmax(x_ref[...], axis=1)", x64=False, head=WITHOUT_JAX)
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX005"]),
                            Settings((0, 12, 0, 1), Scope.KERNELS, helpers_module="pkg.jax_compat"))
    assert result.error is None and "from pkg.jax_compat import argmax_tpu\n" in result.after, result.after
    assert "lax" not in result.after, result.after
