"""JAX008 (codemods/rules/debug_print_arguments.py) in the test's process: each outcome's exact source
and finding, on both releases' capability rows. The goldens debug_print/* are lowered with real jax
by tests/test_debug_print_jax.py. No jax here."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest

from codemods import registry
from codemods.capabilities import placeholder_dtypes, scalar_dtypes
from codemods.engine.runner import process_source
from codemods.rules.debug_print_arguments import SCALAR_ERROR, placeholder_error
from codemods.settings import Settings

HEAD = "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n" \
       "from jax.experimental.pallas import tpu as pltpu\n"
TPU = "\n\nf = pl.pallas_call(kernel, out_shape=None, compiler_params=pltpu.CompilerParams())\n"
NEW, OLD = (0, 12, 0, 1), (0, 10, 2)


def _run(source: str, version=NEW, proven: Optional[frozenset[int]] = None):
    result = process_source(Path("m.py"), source.encode(), registry.select(["JAX008"]), Settings(version),
                            None if proven is None else {"JAX008": proven})
    assert result.error is None, result.error
    return (result.after or source), [(f.line, f.kind.value, f.message) for f in result.findings]


def _kernel(*lines: str, launch: str = TPU) -> str:
    body = "\n    ".join(lines)
    return f"{HEAD}\n\ndef kernel(x_ref, o_ref):\n    {body}\n{launch}"


def test_the_table() -> None:
    assert placeholder_dtypes("mosaic_tpu", OLD) == placeholder_dtypes("mosaic_tpu", None) == {"int32"}
    assert placeholder_dtypes("mosaic_tpu", NEW) == placeholder_dtypes("mosaic_tpu", (0, 11, 0)) == {"int32", "float32"}
    assert scalar_dtypes("mosaic_tpu", OLD) == scalar_dtypes("mosaic_tpu", NEW) == {"int32", "uint32", "float32"}
    assert placeholder_error(OLD) == "TypeError: All arguments must be 32-bit integers when using placeholders"
    assert placeholder_error(NEW) == "TypeError: All arguments must be 32-bit integers or floats when using placeholders"


@pytest.mark.parametrize(("written", "fixed"), [
    ('pl.debug_print("h {}", x_ref[...].astype(jnp.bfloat16)[0, 0])',
     'pl.debug_print("h {}", x_ref[...].astype(jnp.bfloat16).astype(jnp.float32)[0, 0])'),
    ('pl.debug_print("h {}", h[i, 3])', 'pl.debug_print("h {}", h.astype(jnp.float32)[i, 3])'),
    ('pl.debug_print("q {} {}", q[0, 0], q[1, 0])',
     'pl.debug_print("q {} {}", q.astype(jnp.int32)[0, 0], q.astype(jnp.int32)[1, 0])'),
    ('pl.debug_print("m {}", (q > 0)[0, 0])', 'pl.debug_print("m {}", (q > 0).astype(jnp.int32)[0, 0])'),
    ('pl.debug_print("m {}", (\n        q)[0, 0])', 'pl.debug_print("m {}", (\n        q).astype(jnp.int32)[0, 0])'),
])
def test_a_narrow_vector_indexed_to_a_scalar_is_cast_before_the_index(written: str, fixed: str) -> None:
    source = _kernel("h = x_ref[...].astype(jnp.float16)", "q = x_ref[...].astype(jnp.uint8)", written)
    after, findings = _run(source)
    assert after == source.replace(written, fixed)
    assert {kind for _, kind, _ in findings} == {"fixed"}
    assert all(SCALAR_ERROR in message for _, _, message in findings)


def test_a_float_scalar_in_a_placeholder_is_a_note_before_jax_0_11() -> None:
    """jax 0.10.2 formats only int32 through `{}`: a bfloat16 cast to float32 still fails there, and
    without placeholders the cast is the fix."""
    source = _kernel("h = x_ref[...].astype(jnp.bfloat16)", 'pl.debug_print("h {}", h[0, 0])',
                     "v = x_ref[...].astype(jnp.float32)", 'pl.debug_print("v {}", v[0, 0])',
                     'pl.debug_print("h", h[0, 0])')
    after, findings = _run(source, OLD)
    assert after == source.replace('pl.debug_print("h", h[0, 0])', 'pl.debug_print("h", h.astype(jnp.float32)[0, 0])')
    assert [kind for _, kind, _ in findings] == ["manual", "manual", "fixed"]
    assert "drop the placeholders (the values then print after the text) and cast it to float32 first" in findings[0][2]
    assert placeholder_error(OLD) in findings[1][2] and "float32 scalar does not fill a placeholder" in findings[1][2]
    assert _run(source, NEW)[1] == [(9, "fixed", findings[0][2].split(";")[0] + " in Mosaic TPU kernels; the vector "
                                     "cast to float32 before it is indexed, which prints the same value"),
                                    (12, "fixed", findings[2][2])]


@pytest.mark.parametrize("line", [
    'pl.debug_print("h {}", x_ref[...].astype(jnp.bfloat16))',  # a vector prints in any dtype
    'pl.debug_print("h {}", x_ref[...].astype(jnp.bfloat16)[0])',  # one index may leave a row
    'pl.debug_print("h {}", x_ref[...].astype(jnp.bfloat16)[0, :])',
    'pl.debug_print("v {}", x_ref[0, 0])',  # its dtype is not visible
    'pl.debug_print("v {}", x_ref[...].astype(jnp.int32)[0, 0])',
    'pl.debug_print("v {}", x_ref[...].astype(jnp.uint32)[0, 0])',
    'pl.debug_print("s {}", jnp.max(x_ref[...].astype(jnp.bfloat16)))',
    'pl.debug_print(*args)',
])
def test_what_mosaic_tpu_prints_or_the_tool_cannot_see_is_left_alone(line: str) -> None:
    assert _run(_kernel(line)) == (_kernel(line), [])


def test_outside_mosaic_tpu_kernels_nothing_changes() -> None:
    line = 'pl.debug_print("h {}", x_ref[...].astype(jnp.bfloat16)[0, 0])'
    triton = _kernel(line, launch="\n\nfrom jax.experimental.pallas import triton as plt\n"
                                  "f = pl.pallas_call(kernel, out_shape=None, compiler_params=plt.CompilerParams())\n")
    assert _run(triton) == (triton, [])
    plain = f"{HEAD}\n\ndef f(x):\n    {line.replace('x_ref[...]', 'x')}\n"
    assert _run(plain) == (plain, [])


def test_a_traceback_proves_a_call_whose_arguments_are_not_visible() -> None:
    source = _kernel("v = x_ref[...]", 'pl.debug_print("v {}", v[0, 0])')
    assert _run(source)[1] == []
    line = source.splitlines().index('    pl.debug_print("v {}", v[0, 0])') + 1
    after, findings = _run(source, OLD, proven=frozenset({line}))
    assert after == source and [kind for _, kind, _ in findings] == ["manual"]
    assert "`v.astype(jnp.float32)[0, 0]`" in findings[0][2] and placeholder_error(OLD) in findings[0][2]
    _, without = _run(source.replace('"v {}"', '"v"'), OLD, proven=frozenset({line}))
    assert "placeholders" not in without[0][2]


@pytest.mark.parametrize(("written", "fixed"), [
    ('pl.debug_print("v", x_ref[...].astype(jnp.int32)[0, 0])',
     'pl.debug_print("v {}", x_ref[...].astype(jnp.int32)[0, 0])'),
    ("pl.debug_print('i', pl.program_id(0), pl.num_programs(1))", "pl.debug_print('i {} {}', pl.program_id(0), pl.num_programs(1))"),
    ('pl.debug_print("""t""", pl.program_id(0))', 'pl.debug_print("""t {}""", pl.program_id(0))'),
    ("pl.debug_print(r'a\\b', pl.program_id(0))", "pl.debug_print(r'a\\b {}', pl.program_id(0))"),
])
def test_an_integer_scalar_printed_without_placeholders_gets_one(written: str, fixed: str) -> None:
    """It lowers, and the chip's compiler aborts: a placeholder per value prints the text jax prints without."""
    source = _kernel(written)
    for version in (OLD, NEW):
        after, findings = _run(source, version)
        assert after == source.replace(written, fixed)
        assert [kind for _, kind, _ in findings] == ["fixed"] and "Signedness cannot be inferred" in findings[0][2]


def test_a_narrow_integer_without_placeholders_is_cast_and_given_one() -> None:
    source = _kernel("q = x_ref[...].astype(jnp.int8)", 'pl.debug_print("q", q[0, 1], (q > 0)[1, 1])')
    after, findings = _run(source, OLD)
    assert after == source.replace('pl.debug_print("q", q[0, 1], (q > 0)[1, 1])',
                                   'pl.debug_print("q {} {}", q.astype(jnp.int32)[0, 1], (q > 0).astype(jnp.int32)[1, 1])')
    assert sorted(kind for _, kind, _ in findings) == ["fixed"] * 3


@pytest.mark.parametrize(("line", "why"), [
    ('pl.debug_print("m", x_ref[...].astype(jnp.float32)[0, 0], pl.program_id(0))', "also prints float32"),
    ('pl.debug_print("u", x_ref[...].astype(jnp.uint32)[0, 0])', "also prints uint32"),
    ('pl.debug_print("n", x_ref[0, 0], pl.program_id(0))', "also prints a dtype not visible here"),
    ('pl.debug_print("w {{x}}", pl.program_id(0))', "not one plain string literal without braces"),
    ('pl.debug_print(FMT, pl.program_id(0))', "if its format has no placeholders"),
])
def test_an_integer_no_placeholder_can_take_is_a_note(line: str, why: str) -> None:
    source = _kernel(line)
    after, findings = _run(source, OLD)
    assert after == source and [kind for _, kind, _ in findings] == ["manual"], findings
    assert why in findings[0][2] and "Signedness cannot be inferred" in findings[0][2]


def test_a_float_printed_without_placeholders_is_left_alone() -> None:
    line = 'pl.debug_print("f", x_ref[...].astype(jnp.float32)[0, 0], x_ref[0, 0])'
    assert _run(_kernel(line), OLD) == (_kernel(line), [])


def test_from_jax_0_11_a_float_shares_the_placeholders() -> None:
    line = 'pl.debug_print("m", x_ref[...].astype(jnp.float32)[0, 0], pl.program_id(0))'
    after, findings = _run(_kernel(line), NEW)
    assert after == _kernel(line.replace('"m"', '"m {} {}"')) and [kind for _, kind, _ in findings] == ["fixed"]
