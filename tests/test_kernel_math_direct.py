"""codemods/rules/kernel_math.py (JAX007) run in the test's process, without jax.

Each case runs JAX007 alone through `process_source` on a small module and checks the text the
kernel's line becomes and every finding (line, column, kind, applicability, the start of its
message): only calls in Mosaic TPU kernels are rewritten (not plain XLA code, not Triton-only
kernels), parentheses where an operator holds the rewritten call, the user's own spelling of the
module (`lax.atan2`, `jax.numpy`), an import of jax.numpy where the module has none, [manual]
findings for what has no rewrite, and the capability table deciding: a release that lowers a
primitive gets no finding for it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods import capabilities, registry
from codemods.capabilities import ALL, Span
from codemods.engine.runner import process_source
from codemods.settings import Scope, Settings

TARGET = Settings((0, 12, 0, 1), unsafe_fixes=True)
HEAD = ("import functools\nimport jax\nimport jax.numpy as jnp\nfrom jax import lax\n"
        "from jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\n"
        "from jax.experimental.pallas import triton as plt\n")
TPU_LAUNCH = "\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=pltpu.CompilerParams())(x)\n"


def _run(source: str, settings: Settings = TARGET):
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX007"]), settings)
    assert result.error is None, result.error
    return result.after or source, [(f.line, f.column, f.kind.value, f.fix.applicability.value if f.fix else None,
                                     f.message) for f in result.findings]


def _kernel(line: str, launch: str = TPU_LAUNCH, head: str = HEAD) -> str:
    return f"{head}def k(x_ref, o_ref):\n    x = x_ref[...]\n    {line}\n{launch}"


def _kernel_line(text: str) -> str:
    return text.split("def k(x_ref, o_ref):\n    x = x_ref[...]\n    ", 1)[1].split("\n", 1)[0]


@pytest.mark.parametrize("line, rewritten, applicability", [
    ("o_ref[...] = jnp.arctan(x)", "o_ref[...] = jnp.arctan2(x, 1.0)", "safe"),
    ("o_ref[...] = lax.atan(x) * 2", "o_ref[...] = lax.atan2(x, 1.0) * 2", "safe"),
    ("o_ref[...] = 2 * jnp.expm1(x + 1)", "o_ref[...] = 2 * expm1_tpu(x + 1)", "unsafe"),
    ("o_ref[...] = jax.nn.elu(x)", "o_ref[...] = jnp.maximum(x, 0.0) + expm1_tpu(jnp.minimum(x, 0.0))", "unsafe"),
    ("o_ref[...] = 2 * jax.nn.elu(x, alpha=-a)",
     "o_ref[...] = 2 * (jnp.maximum(x, 0.0) + (-a) * expm1_tpu(jnp.minimum(x, 0.0)))", "unsafe"),
    ("o_ref[...] = jax.nn.celu(x, 0.5)",
     "o_ref[...] = jnp.maximum(x, 0.0) + 0.5 * expm1_tpu(jnp.minimum(x, 0.0) / 0.5)", "unsafe"),
    ("o_ref[...] = -jax.nn.selu(x)",
     "o_ref[...] = -(1.0507009873554805 * (jnp.maximum(x, 0.0) + 1.6732632423543772 * "
     "expm1_tpu(jnp.minimum(x, 0.0))))", "unsafe"),
    ("o_ref[...] = jax.nn.gelu(x + 1, approximate=False)",
     "o_ref[...] = 0.5 * (x + 1) * erfc_tpu(-(x + 1) * 0.7071067811865476)", "unsafe"),
    ("o_ref[...] = lax.erfc(x, accuracy=None)", "o_ref[...] = erfc_tpu(x)", "unsafe"),
    ("o_ref[...] = (jnp.sinh(x), jnp.cosh(x), jnp.arcsin(x), lax.acos(x))[0]",
     "o_ref[...] = (sinh_tpu(x), cosh_tpu(x), arcsin_tpu(x), arccos_tpu(x))[0]", "unsafe"),
    ("o_ref[...] = jnp.cumsum(x, -1) + lax.cumsum(x) + jnp.cumulative_prod(x, axis=0)",
     "o_ref[...] = cumsum_tpu(x, -1) + cumsum_tpu(x, 0) + cumprod_tpu(x, 0)", "unsafe"),
])
def test_a_call_in_a_mosaic_tpu_kernel_is_rewritten(line: str, rewritten: str, applicability: str) -> None:
    text, findings = _run(_kernel(line))
    assert _kernel_line(text) == rewritten
    assert findings and all(f[2:4] == ("fixed", applicability) for f in findings), findings
    assert all("has no lowering in Mosaic TPU kernels: \"Unimplemented primitive in Pallas TPU lowering for tc: "
               in f[4] for f in findings)
    assert all(f[4].endswith("; numerics change") == (applicability == "unsafe") for f in findings)


def test_the_helpers_are_inserted_once_with_what_they_import() -> None:
    text, _ = _run(_kernel("o_ref[...] = jnp.cumsum(x, 1) + jnp.cumsum(x, 0) + jnp.expm1(x)"))
    assert text.count("def cumsum_tpu(x, axis):") == 1 and text.count("def expm1_tpu(x):") == 1
    assert text.count("from jax.experimental.pallas import tpu as pltpu") == 1  # cumsum_tpu's roll: already there


def test_a_module_without_jax_numpy_gets_it_for_an_expression() -> None:
    head = "import jax\nfrom jax.experimental import pallas as pl\nfrom jax.nn import elu\nfrom jax.numpy import arctan\n"
    text, findings = _run(_kernel("o_ref[...] = elu(x) + arctan(x)", head=head))
    assert _kernel_line(text) == "o_ref[...] = (jnp.maximum(x, 0.0) + expm1_tpu(jnp.minimum(x, 0.0))) + jnp.arctan2(x, 1.0)"
    assert text.count("import jax.numpy as jnp") == 1
    assert "from jax.nn import elu" not in text and "from jax.numpy import arctan" not in text
    bare = "from jax.experimental import pallas as pl\nfrom jax.numpy import arctan\n"
    text, _ = _run(_kernel("o_ref[...] = arctan(x)", head=bare))
    assert "import jax.numpy as jnp" in text and _kernel_line(text) == "o_ref[...] = jnp.arctan2(x, 1.0)"


@pytest.mark.parametrize("line, why", [
    ("o_ref[...] = lax.lgamma(x)", "no rewrite is written for it"),
    ("o_ref[...] = jax.scipy.special.digamma(x)", "no rewrite is written for it"),
    ("o_ref[...] = jnp.argsort(x, axis=1)", "a sort is no elementwise operation"),
    ("o_ref[...] = jnp.cumsum(x)", "without an axis it scans the flattened array"),
    ("o_ref[...] = jnp.cumsum(x, axis=None)", "without an axis it scans the flattened array"),
    ("o_ref[...] = jnp.cumsum(x, 1, jnp.int32)", "dtype=jnp.int32 has no rewrite here"),
    ("o_ref[...] = lax.cumprod(x, 1, reverse=flag)", "reverse=flag has no rewrite here"),
    ("o_ref[...] = jnp.cumulative_sum(x, axis=1, include_initial=True)", "include_initial=True has no rewrite"),
    ("o_ref[...] = lax.expm1(x, accuracy=lax.AccuracyMode.HIGHEST)", "accuracy=lax.AccuracyMode.HIGHEST has no"),
    ("o_ref[...] = jnp.expm1(*xs)", "its arguments come from *args or **kwargs"),
    ("o_ref[...] = jax.nn.elu(x, 1.0, 2.0)", "it passes arguments the rewrite does not take (by position)"),
    ("o_ref[...] = jax.nn.gelu(x, approximate=exact)", "approximate=exact is not a literal: where it is False"),
    ("o_ref[...] = functools.partial(jnp.cumsum, axis=1)(x)", "a functools.partial of it"),
])
def test_what_has_no_rewrite_is_a_manual_finding(line: str, why: str) -> None:
    text, findings = _run(_kernel(line))
    assert _kernel_line(text) == line
    assert [f[2] for f in findings] == ["manual"] and why in findings[0][4], findings


@pytest.mark.parametrize("source", [
    _kernel("o_ref[...] = jax.nn.gelu(x) + jax.nn.gelu(x, approximate=True) + jnp.exp(x) + jnp.arctan2(x, 1.0)"),
    # Plain XLA code computes these itself.
    HEAD + "def f(x):\n    return jnp.expm1(x) + jnp.cumsum(x) + jnp.sort(x) + jax.nn.elu(x)\n",
    # A kernel launched for Triton only: not Mosaic TPU's wall.
    _kernel("o_ref[...] = jnp.expm1(x)", launch="\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, "
            "compiler_params=plt.CompilerParams())(x)\n"),
])
def test_what_lowers_or_runs_elsewhere_is_left_alone(source: str) -> None:
    assert _run(source) == (source, [])


def test_scope_all_rewrites_plain_xla_code_too() -> None:
    source = HEAD + "def f(x):\n    return jnp.arctan(x)\n"
    text, findings = _run(source, Settings((0, 12, 0, 1), Scope.ALL, unsafe_fixes=True))
    assert "return jnp.arctan2(x, 1.0)" in text and [f[2] for f in findings] == ["fixed"]


def test_a_body_an_unresolved_launch_may_run_gets_a_manual_note() -> None:
    source = HEAD + ("import sys\ndef k(x_ref, o_ref):\n    o_ref[...] = jnp.expm1(x_ref[...])\ndef run(name, x):\n"
                     "    return pl.pallas_call(getattr(sys.modules[__name__], name), out_shape=x)(x)\n")
    text, findings = _run(source)
    assert text == source
    assert [f[2] for f in findings] == ["manual"] and "may run in a kernel" in findings[0][4]
    assert findings[0][4].endswith('if it does, expm1 has no lowering in Mosaic TPU kernels: "Unimplemented primitive '
                                   'in Pallas TPU lowering for tc: expm1"')


def test_a_helper_plain_xla_code_shares_is_not_rewritten() -> None:
    source = HEAD + ("def act(v):\n    return jnp.sinh(v)\ndef k(x_ref, o_ref):\n    o_ref[...] = act(x_ref[...])\n"
                     + TPU_LAUNCH + "def xla(x):\n    return act(x)\n")
    text, findings = _run(source)
    assert text == source and [f[2] for f in findings] == ["manual"] and "plain XLA code" in findings[0][4]


def test_a_release_that_lowers_a_primitive_gets_no_finding_for_it(monkeypatch) -> None:
    """The capability table decides: a future jax whose Mosaic TPU lowers expm1 (and so elu) has nothing
    to fix there, while atan, still unlowered, is fixed; an unknown release gets what no release lowers."""
    source = _kernel("o_ref[...] = jnp.expm1(x) + jax.nn.elu(x) + jnp.arctan(x)")
    everything = capabilities.MATH_UNLOWERED["mosaic_tpu"][0][1]
    monkeypatch.setitem(capabilities.MATH_UNLOWERED, "mosaic_tpu", [
        (Span(until=(0, 13)), everything), (Span(since=(0, 13)), everything - {"expm1"})])
    for version, primitives in (((0, 12, 0, 1), ["expm1", "expm1", "atan"]), ((0, 13, 0), ["atan"]),
                                (None, ["atan"])):
        _, findings = _run(source, Settings(version, unsafe_fixes=True))
        assert [f[4].split(" has no lowering")[0].split("(")[-1] for f in findings] == primitives, version


def test_explain_matches_the_calls_it_rewrites() -> None:
    from codemods.analysis.module import ModuleIndex
    from codemods.engine.rule import ParsedFile
    from codemods.rules.kernel_math import RULE

    module = ModuleIndex.parse(_kernel("o_ref[...] = jax.nn.elu(x) + jnp.exp(x) + jnp.sort(x)"))
    file = ParsedFile(Path("m.py"), module, TARGET)
    matched = sorted(module.segment(call.func) for call in module.calls if RULE.matches(RULE, file, call))
    assert matched == ["jax.nn.elu", "jnp.sort"]


# -- Triton's walls: erf, erfc, round, jnp.all/any, cumprod ---------------------------------------

TRITON_LAUNCH = "\ndef run(x):\n    return pl.pallas_call(k, out_shape=x, compiler_params=plt.CompilerParams())(x)\n"
TRITON_ERROR = "has no lowering in Triton kernels: \"Unimplemented primitive in Pallas Triton lowering: "


@pytest.mark.parametrize("line, rewritten, applicability", [
    ("o_ref[...] = lax.erf(x) + jax.scipy.special.erf(x)", "o_ref[...] = erf_triton(x) + erf_triton(x)", "unsafe"),
    ("o_ref[...] = jnp.round(x) + jnp.around(x, 2)", "o_ref[...] = round_triton(x) + round_triton(x, 2)", "safe"),
    ("o_ref[...] = jnp.round(x, decimals=0) - jnp.round(x, 1)", "o_ref[...] = round_triton(x) - round_triton(x, 1)",
     "safe"),
    ("o_ref[...] = lax.round(x) + lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)",
     "o_ref[...] = round_triton(x, half_to_even=False) + round_triton(x)", "safe"),
    ("o_ref[...] = lax.round(x, rounding_method=1) + lax.round(x, jax.lax.RoundingMethod.AWAY_FROM_ZERO)",
     "o_ref[...] = round_triton(x) + round_triton(x, half_to_even=False)", "safe"),
    ("o_ref[...] = jnp.where(jnp.all(x > 0, axis=1, keepdims=True) | jnp.any(x > 1), x, 0.0)",
     "o_ref[...] = jnp.where(bool_reduction_triton(x > 0, axis=1, keepdims=True) | "
     "bool_reduction_triton(x > 1, every=False), x, 0.0)", "safe"),
    ("o_ref[...] = jnp.where(jnp.any(x, 0), x, 0.0)",
     "o_ref[...] = jnp.where(bool_reduction_triton(x, axis=0, every=False), x, 0.0)", "safe"),
    ("o_ref[...] = jax.nn.gelu(x, approximate=False) + lax.erfc(x)",
     "o_ref[...] = (0.5 * x * erfc_tpu(-x * 0.7071067811865476)) + erfc_tpu(x)", "unsafe"),
])
def test_a_call_in_a_triton_kernel_is_rewritten(line: str, rewritten: str, applicability: str) -> None:
    text, findings = _run(_kernel(line, launch=TRITON_LAUNCH))
    assert _kernel_line(text) == rewritten
    assert findings and all(f[2:4] == ("fixed", applicability) for f in findings), findings
    assert all(TRITON_ERROR in f[4] and "Mosaic TPU" not in f[4] for f in findings), findings
    assert all(f[4].endswith("; numerics change") == (applicability == "unsafe") for f in findings)


def test_what_mosaic_tpu_lowers_is_left_alone_in_its_kernels() -> None:
    """erf, round and jnp.all/any lower in Mosaic TPU kernels: Triton's walls are no finding there."""
    source = _kernel("o_ref[...] = jnp.where(jnp.all(x > 0), lax.erf(x), jnp.round(x) + lax.round(x))")
    assert _run(source) == (source, [])


def test_a_launch_of_either_backend_names_both_and_what_still_fails_on_triton() -> None:
    """A plain pallas_call reaches Mosaic TPU on a TPU and Triton on a GPU: erfc's helper lowers on both;
    cumprod_tpu's roll lowers on Mosaic TPU only, so the finding says Triton still cannot lower it."""
    plain = "\ndef run(x):\n    return pl.pallas_call(k, out_shape=x)(x)\n"
    text, findings = _run(_kernel("o_ref[...] = lax.erfc(x) + jnp.cumprod(x, axis=1)", launch=plain))
    assert _kernel_line(text) == "o_ref[...] = erfc_tpu(x) + cumprod_tpu(x, 1)"
    assert all("in Mosaic TPU kernels: \"Unimplemented primitive in Pallas TPU lowering for tc: " in f[4]
               and ", nor in Triton kernels: \"Unimplemented primitive in Pallas Triton lowering: " in f[4]
               for f in findings), findings
    assert [f[4].endswith('Triton cannot lower cumprod_tpu either ("Unimplemented primitive in Pallas Triton '
                          'lowering: roll")') for f in findings] == [False, True]


@pytest.mark.parametrize("line, why", [
    ("o_ref[...] = jnp.cumprod(x, axis=1)", "cumprod_tpu's pltpu.roll has no Triton lowering either"),
    ("o_ref[...] = jnp.round(x, n)", "decimals=n is not a literal int from 0 up"),
    ("o_ref[...] = jnp.round(x, -1)", "decimals=-1 is not a literal int from 0 up"),
    ("o_ref[...] = lax.round(x, method)", "rounding_method=method is not a literal RoundingMethod"),
    ("o_ref[...] = jnp.where(jnp.all(x, where=x > 0), x, 0.0)", "where="),
])
def test_what_has_no_triton_rewrite_is_a_manual_finding(line: str, why: str) -> None:
    source = _kernel(line, launch=TRITON_LAUNCH)
    text, findings = _run(source)
    assert text == source
    assert [f[2] for f in findings] == ["manual"] and why in findings[0][4] and TRITON_ERROR in findings[0][4], findings


@pytest.mark.parametrize("setup, line, rewritten", [
    ("x = x_ref[...].astype(jnp.bfloat16)", "o_ref[...] = x / 3", "o_ref[...] = divide_triton(x, 3)"),
    ("x = x_ref[...].astype('float16')", "o_ref[...] = 1 / (x / 2 + 1)",
     "o_ref[...] = divide_triton(1, divide_triton(x, 2) + 1)"),
    ("x = jnp.bfloat16(x_ref[...])", "o_ref[...] = jnp.divide(x, x) * 2", "o_ref[...] = divide_triton(x, x) * 2"),
])
def test_a_visibly_narrow_float_division_in_a_triton_kernel_is_divided_in_float32(setup: str, line: str,
                                                                                    rewritten: str) -> None:
    source = f"{HEAD}def k(x_ref, o_ref):\n    {setup}\n    {line}\n{TRITON_LAUNCH}"
    text, findings = _run(source)
    assert f"    {setup}\n    {rewritten}\n" in text and "def divide_triton(x, y):" in text
    assert findings and all(f[2:4] == ("fixed", "safe") and "bfloat16 and float16 division has no lowering in "
                            "Triton kernels" in f[4] for f in findings), findings


@pytest.mark.parametrize("setup, line, launch", [
    ("x = x_ref[...]", "o_ref[...] = x / 3", TRITON_LAUNCH),  # the dtype does not show: explain's to prove
    ("x = x_ref[...].astype(jnp.bfloat16).astype(jnp.float32)", "o_ref[...] = x / 3", TRITON_LAUNCH),
    ("x = x_ref[...].astype(jnp.bfloat16)", "o_ref[...] = x / 3", TPU_LAUNCH),  # Mosaic TPU divides bfloat16
])
def test_a_division_triton_lowers_or_whose_dtype_does_not_show_is_left_alone(setup: str, line: str, launch: str) -> None:
    source = f"{HEAD}def k(x_ref, o_ref):\n    {setup}\n    {line}\n{launch}"
    assert _run(source) == (source, [])


def test_a_narrow_float_floor_division_is_a_manual_finding() -> None:
    source = f"{HEAD}def k(x_ref, o_ref):\n    x = x_ref[...].astype(jnp.bfloat16)\n    o_ref[...] = x // 2\n{TRITON_LAUNCH}"
    text, findings = _run(source)
    assert text == source and [f[2] for f in findings] == ["manual"] and "jnp.floor(" in findings[0][4]


def _run_proven(source: str, line: int):
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX007"]), TARGET,
                            {"JAX007": frozenset({line})})
    assert result.error is None, result.error
    return result.after or source, [(f.kind.value, f.message) for f in result.findings]


def test_a_traceback_proves_a_division_whose_dtype_does_not_show() -> None:
    """`explain` proved the line (Triton's "unsupported types" names it): its division is rewritten."""
    source = f"{HEAD}def k(x_ref, y_ref, o_ref):\n    o_ref[...] = x_ref[...] / y_ref[...]\n{TRITON_LAUNCH}"
    text, findings = _run_proven(source, 9)
    assert "    o_ref[...] = divide_triton(x_ref[...], y_ref[...])\n" in text
    assert [kind for kind, _ in findings] == ["fixed"]


def test_a_proven_line_that_failed_on_a_math_call_keeps_its_division() -> None:
    """A Mosaic TPU traceback proves the expm1 line: the error is expm1's, so `/ 2` there is left alone."""
    source = _kernel("o_ref[...] = jnp.expm1(x) / 2")
    text, findings = _run_proven(source, 10)
    assert _kernel_line(text) == "o_ref[...] = expm1_tpu(x) / 2"
    assert [message.split(" ->")[0] for _, message in findings] == ["jnp.expm1"]
