"""`jax-codemod explain` for JAX004, fed the tracebacks a TPU v5e printed (jax 0.10.2, 2026-12-06,
bench/chip/narrow_measure.py): Mosaic's compiler names the op's line as frames under its MosaicError,
and explain places the error there: the fix where the source shows the dtype, a [manual] finding that
says what to write where it does not. The texts are the chip's, with the file and lines made this
test's. No jax."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from codemods import explain, registry
from codemods.explain import Outcome, _errors_of
from codemods.settings import Settings

RULES = {rule.code: rule for rule in registry.RULES}
TARGET = Settings((0, 10, 2))
ADD = "Not implemented: Only vector<i16> and vector<i32> are supported, but got 'i8'. Please cast your input."
SHIFT = ("failed to legalize operation 'arith.shli': %376 = \"arith.shli\"(%24, %204) <{overflowFlags = "
         "#arith.overflow<none>}> : (vector<8x128x4xi8>, vector<8x128x4xi8>) -> vector<8x128x4xi8>")
COMPARE = "Target does not support this comparison"
MOSAIC = "jax._src.pallas.mosaic.error_handling.MosaicError: INTERNAL: Mosaic failed to compile TPU kernel: "
HEADER = '''import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, y_ref, o_ref):
'''
LAUNCH = '''

def run(x, y):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)
'''


def chip_log(path: Path, line: int, code: str, op: str, message: str) -> str:
    """A MosaicError traceback as the chip prints it: the compiler's JaxRuntimeError (jax's frames
    only), then the MosaicError whose frames jax builds from the op's MLIR location."""
    return f'''Traceback (most recent call last):
  File "/opt/device-scrub/jax/_src/compiler.py", line 353, in backend_compile_and_load
    return backend.compile_and_load(
           ^^^^^^^^^^^^^^^^^^^^^^^^^
jax.errors.JaxRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: {message}

at location: loc("{op}:"("{op}/{op}"(callsite("kernel"("{path}":{line}:17 to :40) at "kernel"("{path}":{line}:17 to :40)))))

The MLIR operation involved:
  %6 = "arith.addi"(%4, %5) <{{overflowFlags = #arith.overflow<none>}}> : (vector<8x128xi8>, vector<8x128xi8>) -> vector<8x128xi8>

Please report a bug at: https://github.com/jax-ml/jax/issues/new/choose


The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "{path}", line 12, in run
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)
  File "{path}", line {line}, in kernel
    {code}
  File "{path}", line {line}, in {op}/{op}"(callsite("kernel
    {code}
{MOSAIC}{message}

The MLIR operation involved:
  %6 = "arith.addi"(%4, %5) <{{overflowFlags = #arith.overflow<none>}}> : (vector<8x128xi8>, vector<8x128xi8>) -> vector<8x128xi8>

Please report a bug at: https://github.com/jax-ml/jax/issues/new/choose

--------------------
For simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.
'''


def _explain(tmp_path: Path, body: str, log) -> tuple[Outcome, str, str]:
    path = tmp_path / "kernels.py"
    path.write_text(HEADER + body + LAUNCH)
    out, err = io.BytesIO(), io.StringIO()
    outcome = explain.run(log(path), tmp_path, RULES, TARGET, write=False, out=out, err=err)
    return outcome, err.getvalue(), out.getvalue().decode()


@pytest.mark.parametrize("line", [
    MOSAIC + ADD, MOSAIC + SHIFT, MOSAIC + COMPARE,
    "NotImplementedError: Reductions over int8 not implemented.",
    "NotImplementedError: Reductions over unsigned integers not implemented.",
    "NotImplementedError: Reductions over int16 not implemented.",
])
def test_the_chips_and_the_lowerings_messages_name_jax004(line: str) -> None:
    assert [rule for rule, _ in _errors_of(line)] == ["JAX004"]


def test_a_32_bit_legalization_failure_is_not_jax004() -> None:
    """Only an op on 8- or 16-bit vectors is this rule's: the same words about int32 lanes are not."""
    assert _errors_of(MOSAIC + SHIFT.replace("xi8>", "xi32>")) == []


def test_unseen_dtype_gets_a_manual_finding_on_the_ops_line(tmp_path: Path) -> None:
    code = "o_ref[...] = x_ref[...] + y_ref[...]"
    outcome, err, out = _explain(tmp_path, f"    {code}\n", lambda path: chip_log(path, 7, code, "add", ADD))
    assert (outcome, out) == (Outcome.PENDING, "")
    assert f"kernels.py:7: JAX004: the traceback's `Only vector<i16> and vector<i32> are supported, but got 'i8'` " \
           "comes from this call" in err
    assert "kernels.py:7:18: JAX004 [manual] addition: the traceback says Mosaic TPU rejects this op on an 8- or " \
           "16-bit integer vector, a dtype this code does not show: compute it in int32 and cast back " \
           "(`(a.astype(jnp.int32) + b.astype(jnp.int32)).astype(a.dtype)`); exact for every input" in err
    assert "no fix can be written for this call" in err


def test_visible_dtype_gets_the_fix(tmp_path: Path) -> None:
    body = "    q = x_ref[...].astype(jnp.int8)\n    o_ref[...] = (q << 1).astype(jnp.float32)\n"
    code = "o_ref[...] = (q << 1).astype(jnp.float32)"
    outcome, err, out = _explain(tmp_path, body, lambda path: chip_log(path, 8, code, "shift_left", SHIFT))
    assert outcome is Outcome.PENDING
    assert "-    o_ref[...] = (q << 1).astype(jnp.float32)\n" \
           "+    o_ref[...] = ((q.astype(jnp.int32) << 1).astype(jnp.int8)).astype(jnp.float32)\n" in out
    assert "kernels.py:8:19: JAX004 [fixed] shift on int8 vectors" in err


def test_a_comparison_the_chip_refuses_is_placed(tmp_path: Path) -> None:
    code = "o_ref[...] = jnp.where(x_ref[...] > 0, x_ref[...], 0)"
    outcome, err, out = _explain(tmp_path, f"    {code}\n", lambda path: chip_log(path, 7, code, "gt", COMPARE))
    assert outcome is Outcome.PENDING and out == ""
    assert "kernels.py:7:28: JAX004 [manual] ordering comparison: the traceback says" in err
    assert "`a.astype(jnp.int32) > b.astype(jnp.int32)`; bfloat16 operands: `.astype(jnp.float32)`" in err


def test_the_lowerings_reduction_error_is_placed_and_fixed(tmp_path: Path) -> None:
    body = "    q = jnp.zeros(x_ref.shape, jnp.int8) + x_ref[...].astype(jnp.int8)\n" \
           "    o_ref[...] = jnp.max(q, axis=0, keepdims=True)\n"

    def log(path: Path) -> str:
        return f'''Traceback (most recent call last):
  File "{path}", line 12, in run
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)
  File "{path}", line 8, in kernel
    o_ref[...] = jnp.max(q, axis=0, keepdims=True)
NotImplementedError: Reductions over int8 not implemented.
'''
    outcome, err, out = _explain(tmp_path, body, log)
    assert outcome is Outcome.PENDING
    assert "+    o_ref[...] = jnp.max(q.astype(jnp.int32), axis=0, keepdims=True).astype(jnp.int8)\n" in out


def test_an_unsigned_sum_the_lowering_refuses_gets_the_int32_spelling(tmp_path: Path) -> None:
    def log(path: Path) -> str:
        return f'''Traceback (most recent call last):
  File "{path}", line 12, in run
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)
  File "{path}", line 7, in kernel
    o_ref[...] = jnp.sum(x_ref[...], axis=0, keepdims=True)
NotImplementedError: Reductions over unsigned integers not implemented.
'''
    outcome, err, out = _explain(tmp_path, "    o_ref[...] = jnp.sum(x_ref[...], axis=0, keepdims=True)\n", log)
    assert (outcome, out) == (Outcome.PENDING, "")
    assert "kernels.py:7:18: JAX004 [manual] sum: the traceback says Mosaic TPU rejects this op on an 8- or 16-bit " \
           "integer vector, a dtype this code does not show: an int32 sum, if one will do " \
           "(`jnp.sum(a.astype(jnp.int32), axis=...)`); exact below 2**31" in err


def test_the_compilers_mlir_location_alone_places_the_error(tmp_path: Path) -> None:
    """A log holding only the compiler's JaxRuntimeError (jax's own frames, then `at location: loc(...)`
    naming the kernel's lines, innermost first) is placed on the op's line all the same."""
    code = "o_ref[...] = x_ref[...] + y_ref[...]"

    def log(path: Path) -> str:
        return chip_log(path, 7, code, "add", ADD).split("\n\nThe above exception")[0] + "\n"
    outcome, err, out = _explain(tmp_path, f"    {code}\n", log)
    assert (outcome, out) == (Outcome.PENDING, "")
    assert "kernels.py:7: JAX004: the traceback's `Only vector<i16> and vector<i32> are supported, but got 'i8'` " \
           "comes from this call" in err
    assert "kernels.py:7:18: JAX004 [manual] addition" in err


def test_a_location_after_another_traceback_is_not_its_frames() -> None:
    """`at location:` belongs to the exception line just above it, never to an earlier traceback's."""
    log = ("Traceback (most recent call last):\n  File \"/x/k.py\", line 3, in f\n    y = a + b\n"
           f"{MOSAIC}{ADD}\nTraceback (most recent call last):\n  File \"/x/other.py\", line 9, in g\n"
           "ValueError: unrelated\n"
           'at location: loc("add"("k"("/x/k.py":5:3 to :9)))\n')
    (error,) = explain.parse_log(log)
    assert [(frame.path, frame.line) for frame in error.frames] == [("/x/k.py", 3)]
