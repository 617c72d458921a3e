"""`jax-codemod probe`: check the capability table (and, in codemods/probe_api.py, the API-change
table) against the installed jax.

`codemods.capabilities` is a claim about what jax's kernel lowering rules accept. Claims rot as jax
moves, so this lowers tiny kernels with the installed jax (`jax.export` cross-platform lowering runs
the real Mosaic TPU and Mosaic GPU rules on any machine, CPU included) and sets what it observes
next to what the table believes. jax is imported lazily: the codemod itself never needs it.

On a TPU the Mosaic TPU kernels are also compiled (`jax.jit(...).lower(...).compile()`), so Mosaic's
own compiler in libtpu is checked too: it refuses some kernels the lowering accepts (a bfloat16
operand at HIGHEST, `capabilities.COMPILED_FOR_DTYPE`). Elsewhere those rows check the lowering only.

Pallas Triton kernels lower on a CPU too, but only for an abstract GPU: jax 0.12 asks the device
for its compute capability and, with no GPU, fails "No supported GPU devices found, please specify
an abstract GPU device using AbstractDevice" unless a `jax.sharding.AbstractMesh` with an
`AbstractDevice(platform="gpu")` is in scope (`jax.sharding.use_abstract_mesh`); jax 0.10.2 falls
back to compute capability 9.0 by itself. `jax.export` then refuses to serialize the Triton custom
call (no compatibility guarantee), so Triton kernels are lowered with
`jax.jit(kernel).trace(*args).lower(lowering_platforms=("cuda",))` instead, and `debug=True` makes
the lowering print the Triton module, whose `tt.dot` shows the input precision (TF32 or IEEE) a
precision setting became. Where Triton still cannot be lowered, its rows say "not probed" with the
error, and the report says so in a line of its own: nothing is claimed for a backend not seen.

The rows run in child processes (codemods/probe_isolated.py), on a CPU too: a TPU compiler that aborts
costs its row ("aborted"), and the parent, which cannot tell a TPU without opening it while only one
process may hold the chip, starts no backend until the children are done (compare() asks then).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.metadata
import inspect
import io
import json
import logging
import re
import sys
import warnings
from dataclasses import asdict, dataclass
from typing import Callable, Optional

from codemods import capabilities, probe_api, probe_isolated
from codemods.capabilities import Level, Version

# What a probe can observe.
ACCEPTED = "accepted"  # lowered (or, for the LSTM, passed the precision gate)
REJECTED = "rejected"  # the very error the table predicts for this setting
UNSUPPORTED = "unsupported"  # failed some other way: the op does not lower there at all
NO_ACCURACY_PARAM = "no accuracy="  # the lax function takes no accuracy= on this release
ABSENT = "absent"  # jax.lax has no such function on this release
# The accuracy table lists rejections only; anything but a rejection agrees with its silence.
NOT_REJECTED = "not rejected"
# Lowered, and the kernel's IR is identical to the one lowered without the hint.
IGNORED = "ignored"
# The backend's lowering needs hardware this machine lacks: nothing was observed.
NOT_PROBED = "not probed"
# The compiler killed the process running the attempt (probe_isolated); believed only on a TPU.
ABORTED = probe_isolated.ABORTED
# Triton `tt.dot` input precisions (the IR omits the attribute for its default, IEEE).
TF32 = "tf32"
IEEE = "ieee"

# "Unsupported dot precision: HIGH", "Per-operand conv precision unsupported"
PRECISION_REJECTION = r"Unsupported \w+ precision|Per-operand \w+ precision unsupported"
ACCURACY_REJECTION = r"Not implemented: accuracy"
# What jax 0.12 raises for a Triton lowering with neither a GPU nor an abstract GPU device.
NO_GPU = r"No supported GPU devices found"
LSTM_REJECTION = r"bfloat16 support not implemented for LSTM"

# A scalar is one level; a per-operand pair is (lhs, rhs).
PRECISION_SETTINGS: tuple[tuple[Level, ...], ...] = (
    (Level.DEFAULT,),
    (Level.HIGH,),
    (Level.HIGHEST,),
    (Level.DEFAULT, Level.HIGHEST),
)
ACCURACY_FUNCTIONS = (
    "rsqrt", "sqrt", "cbrt", "tanh", "logistic", "exp", "exp2", "expm1", "log", "log2", "log1p",
    "sin", "cos", "tan", "atan2", "erf", "erfc",
)
VECTOR_SHAPE = (8, 128)  # one f32 vreg on TPU; a whole number of warpgroup tiles on GPU


@dataclass(frozen=True)
class Probe:
    """One thing to try, and how to read both its outcome and the table's belief about it."""

    backend: str
    op: str
    case: str
    attempt: Callable[[], object]  # lowers or traces; raises what the lowering raises
    rejection: str  # regex for the error that means "this setting is refused"
    other_failure: str  # outcome of any other error
    believed: Callable[[Optional[Version]], str]


@dataclass(frozen=True)
class Observation:
    probe: Probe
    outcome: str
    detail: str  # first line of the error, empty when it worked


@dataclass(frozen=True)
class Row:
    backend: str
    op: str
    case: str
    observed: str
    believed: str
    agree: bool
    detail: str


@dataclass(frozen=True)
class Report(probe_api.Report):
    rows: tuple[Row, ...]  # type: ignore[assignment]

    @property
    def not_probed(self) -> dict[str, str]:  # type: ignore[override]
        """backend -> why it could not be lowered here (the first such error)."""
        reasons: dict[str, str] = {}
        for row in self.rows:
            if row.observed == NOT_PROBED:
                reasons.setdefault(row.backend, row.detail)
        return reasons


def installed_jax_version() -> str:
    return importlib.metadata.version("jax")


# --- lowering ---------------------------------------------------------------------------------

def _f32(shape):
    import jax
    import jax.numpy as jnp

    return jax.ShapeDtypeStruct(shape, jnp.float32)


def _export(fn, platform: str, operands) -> None:
    import jax

    jax.export.export(jax.jit(fn), platforms=[platform])(*operands)


@functools.lru_cache(maxsize=None)
def on_a_tpu() -> bool:
    """Whether jax's default backend here is a TPU: then Mosaic TPU kernels are compiled, not only lowered."""
    import jax

    try:
        return jax.default_backend() == "tpu"
    except RuntimeError:  # no backend could start
        return False


def _lower_mosaic_tpu(body, operands, out) -> None:
    """Lowered with jax.export anywhere; on a TPU also compiled by Mosaic's own compiler (libtpu),
    which rejects some kernels the lowering accepts (COMPILED_FOR_DTYPE)."""
    import jax
    from jax.experimental import pallas as pl

    kernel = pl.pallas_call(body, out_shape=out)
    if on_a_tpu():
        jax.jit(kernel).lower(*operands).compile()
    else:
        _export(kernel, "tpu", operands)


def _lower_mosaic_gpu(body, operands, out) -> None:
    from jax.experimental.pallas import mosaic_gpu as plgpu

    _export(plgpu.kernel(body, out_type=out), "cuda", operands)


# Any Hopper works: jax maps the device kind to compute capability 9.0, as a real H100 reports.
ABSTRACT_GPU_KIND = "NVIDIA H100"
TRITON_MODULE_HEADER = "The Triton module for pallas_call"


class _NotProbed(Exception):
    """The lowering needs a GPU (or an abstract one this jax cannot be given)."""


def _abstract_gpu():
    """Scope in which Triton lowering targets an abstract H100 instead of asking the device."""
    import jax

    device_class = getattr(jax.sharding, "AbstractDevice", None)
    if device_class is None or not hasattr(jax.sharding, "use_abstract_mesh"):
        return contextlib.nullcontext()
    try:
        device = device_class(device_kind=ABSTRACT_GPU_KIND, num_cores=None, platform="gpu")
        mesh = jax.sharding.AbstractMesh((1,), ("x",), abstract_device=device)
    except TypeError:  # an AbstractDevice/AbstractMesh of another shape: try without
        return contextlib.nullcontext()
    return jax.sharding.use_abstract_mesh(mesh)


def _lower_triton(body, operands, out) -> str:
    """Lower a Pallas Triton kernel for CUDA; returns the Triton module's text.

    `debug=True` is pallas_call's public switch for printing the Triton module it lowered."""
    import jax
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import triton as pltriton

    kernel = pl.pallas_call(body, out_shape=out, debug=True,
                            compiler_params=pltriton.CompilerParams())
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), _abstract_gpu():
            jax.jit(kernel).trace(*operands).lower(lowering_platforms=("cuda",))
    except RuntimeError as error:
        if re.search(NO_GPU, str(error)):
            raise _NotProbed(str(error).strip().splitlines()[0]) from error
        raise
    text = printed.getvalue()
    if TRITON_MODULE_HEADER not in text:
        raise RuntimeError("pallas_call(debug=True) printed no Triton module")
    return text.split(TRITON_MODULE_HEADER, 1)[1]


KERNEL_LOWERINGS = {
    "mosaic_tpu": _lower_mosaic_tpu,
    "mosaic_gpu": _lower_mosaic_gpu,
    "triton": _lower_triton,
}


class _Unwritable(Exception):
    """The hint cannot even be written on this release, so there is nothing to lower."""

    def __init__(self, outcome: str, message: str):
        super().__init__(message)
        self.outcome = outcome


@dataclass(frozen=True)
class _Seen:
    """What an attempt that lowered observed, when "accepted" alone would say too little."""

    outcome: str
    detail: str = ""


def _observe(probe: Probe) -> Observation:
    """Run one attempt and classify how it ended."""
    try:
        result = probe.attempt()
    except _Unwritable as unwritable:
        return Observation(probe, unwritable.outcome, str(unwritable))
    except _NotProbed as needs_gpu:
        return Observation(probe, NOT_PROBED, str(needs_gpu))
    except Exception as error:  # noqa: BLE001 - any failure is data here
        message = str(error).strip()
        detail = f"{type(error).__name__}: {message.splitlines()[0] if message else ''}"[:200]
        outcome = REJECTED if re.search(probe.rejection, message) else probe.other_failure
        return Observation(probe, outcome, detail)
    if isinstance(result, _Seen):
        return Observation(probe, result.outcome, result.detail)
    return Observation(probe, ACCEPTED, "")


# --- what to try ------------------------------------------------------------------------------

def _lax_precision(setting: tuple[Level, ...]):
    from jax import lax

    precisions = tuple(lax.Precision[level.name] for level in setting)
    return precisions[0] if len(precisions) == 1 else precisions


def _describe(setting: tuple[Level, ...]) -> str:
    names = [level.name for level in setting]
    return f"precision={names[0]}" if len(names) == 1 else f"precision=({', '.join(names)})"


def _believed_precision(backend: str, op: str, setting: tuple[Level, ...]):
    """The table lists scalars; per-operand pairs are rejected wherever the op lowers at all,
    except on the backends in PER_OPERAND_PRECISION_LOWERED, where a pair of accepted levels lowers."""

    def believed(version: Optional[Version]) -> str:
        levels = capabilities.lowered_precisions(backend, op, version)
        if levels is None:
            return UNSUPPORTED
        if len(set(setting)) > 1 and backend not in capabilities.PER_OPERAND_PRECISION_LOWERED:
            return REJECTED
        return ACCEPTED if set(setting) <= levels else REJECTED

    return believed


def _dot_kernel(precision, shapes=(VECTOR_SHAPE, (128, 128)), dtype: str = "float32"):
    import jax
    from jax import lax

    (m, k), (_, n) = shapes

    def body(lhs_ref, rhs_ref, out_ref):
        out_ref[...] = lax.dot_general(
            lhs_ref[...], rhs_ref[...], (((1,), (0,)), ((), ())), precision=precision,
            preferred_element_type=out_ref.dtype,
        )

    operands = tuple(jax.ShapeDtypeStruct(shape, dtype) for shape in ((m, k), (k, n)))
    return body, operands, _f32((m, n))


def _conv_kernel(precision, image=(1, 8, 8, 128), window=(3, 3, 128, 128)):
    from jax import lax

    def body(lhs_ref, rhs_ref, out_ref):
        out_ref[...] = lax.conv_general_dilated(
            lhs_ref[...], rhs_ref[...], (1, 1), "SAME",
            dimension_numbers=("NHWC", "HWIO", "NHWC"), precision=precision,
        )

    return body, (_f32(image), _f32(window)), _f32(image)


MOSAIC_TPU_PRECISION_KERNELS = {"dot": _dot_kernel, "conv": _conv_kernel}
# What Mosaic's compiler says when it refuses an operand type the lowering let through.
COMPILE_REJECTION = r"Mosaic failed to compile TPU kernel: Bad (lhs|rhs) type"


def _believed_for_dtype(backend: str, op: str, dtype: str, setting: tuple[Level, ...]):
    """On a TPU the kernel is compiled, so the belief is what compiles for `dtype`; elsewhere only
    the lowering is seen, and the belief is what lowers (COMPILED_FOR_DTYPE is then not checked)."""
    lowering = _believed_precision(backend, op, setting)

    def believed(version: Optional[Version]) -> str:
        if not on_a_tpu() or lowering(version) != ACCEPTED:
            return lowering(version)
        levels = capabilities.compiled_precisions(backend, op, dtype, version)
        return ACCEPTED if levels is not None and set(setting) <= levels else REJECTED

    return believed


def _dtype_probes() -> list[Probe]:
    """Mosaic TPU dots with operands of each dtype in COMPILED_FOR_DTYPE, at every scalar level."""
    return [
        Probe("mosaic_tpu", op, f"{dtype} operands, {_describe(setting)}",
              lambda op=op, dtype=dtype, setting=setting: _lower_mosaic_tpu(
                  *MOSAIC_TPU_PRECISION_KERNELS[op](_lax_precision(setting), dtype=dtype)),
              f"{PRECISION_REJECTION}|{COMPILE_REJECTION}", UNSUPPORTED,
              _believed_for_dtype(backend, op, dtype, setting))
        for backend, op, dtype in capabilities.COMPILED_FOR_DTYPE
        for setting in PRECISION_SETTINGS if len(setting) == 1
    ]


# Integer vector ops on narrow dtypes (capabilities.NARROW_*_REJECTED), as kernels of one operand.
# No op may fold away: maximum(a, a) is `a` to Mosaic's canonicaliser, and compiled on the chip.
NARROW_OPS: dict[str, Callable] = {
    "add": lambda a: a + a, "sub": lambda a: a - 1, "mul": lambda a: a * a, "neg": lambda a: -a,
    "shift": lambda a: a << 1, "compare": lambda a: a > 0, "maximum": lambda a: _jnp().maximum(a, 1),
    "minimum": lambda a: _jnp().minimum(a, 1), "abs": lambda a: _jnp().abs(a),
    "reduce_max": lambda a: _jnp().max(a, axis=1, keepdims=True),
    "reduce_min": lambda a: _jnp().min(a, axis=1, keepdims=True),
    "reduce_sum": lambda a: _jnp().sum(a, axis=1, keepdims=True),
}
# What Mosaic says of them: the lowering, or its compiler on the chip.
NARROW_REJECTION = (r"Reductions over \w+( integers)? not implemented|Only vector<i16> and vector<i32> are supported"
                    r"|failed to legalize operation|Target does not support this comparison")


def _jnp():
    import jax.numpy as jnp

    return jnp


def _narrow_kernel(op: str, dtype: str):
    import jax
    import jax.numpy as jnp

    def body(x_ref, out_ref):
        out_ref[...] = jnp.broadcast_to(NARROW_OPS[op](x_ref[...]), out_ref.shape).astype(out_ref.dtype)

    return body, (jax.ShapeDtypeStruct((32, 128), dtype),), jax.ShapeDtypeStruct((32, 128), jnp.int32)


def _believed_narrow(dtype: str, op: str):
    """The lowering rows everywhere; the compiler's rows only on a TPU, where the probe compiles."""
    def believed(version: Optional[Version]) -> str:
        lowering = capabilities.NARROW_LOWERING_REJECTED, capabilities.NARROW_COMPILED_REJECTED
        tables = lowering if on_a_tpu() else lowering[:1]
        rejected = any(op in ops for table in tables for span, ops in table.get(("mosaic_tpu", dtype), ())
                       if version is None or span.contains(version))
        return REJECTED if rejected else ACCEPTED

    return believed


def _narrow_probes() -> list[Probe]:
    """Each op of NARROW_OPS on vectors of each narrow dtype in a Mosaic TPU kernel."""
    return [
        Probe("mosaic_tpu", op, f"{dtype} vectors",
              lambda op=op, dtype=dtype: _lower_mosaic_tpu(*_narrow_kernel(op, dtype)),
              NARROW_REJECTION, UNSUPPORTED, _believed_narrow(dtype, op))
        for dtype in capabilities.NARROW_DTYPES for op in NARROW_OPS
    ]


def _precision_probes() -> list[Probe]:
    def attempt(make_kernel, setting):
        return lambda: _lower_mosaic_tpu(*make_kernel(_lax_precision(setting)))

    def attempt_gpu(make_kernel, setting):
        return lambda: _lower_mosaic_gpu(*make_kernel(_lax_precision(setting)))

    # Mosaic GPU: the table has no contraction rows (no lowering at all); probed so that a release
    # that adds one shows up here.
    return [
        Probe("mosaic_tpu", op, _describe(setting), attempt(make_kernel, setting),
              PRECISION_REJECTION, UNSUPPORTED, _believed_precision("mosaic_tpu", op, setting))
        for op, make_kernel in MOSAIC_TPU_PRECISION_KERNELS.items()
        for setting in PRECISION_SETTINGS
    ] + [
        # Triton has no conv lowering (its table has no conv rows); shapes are powers of two, as
        # the Triton lowering requires of every array.
        Probe("triton", "conv", _describe(setting), lambda s=setting: _lower_triton(*_conv_kernel(
            _lax_precision(s), image=(1, 8, 8, 16), window=(2, 2, 16, 16))),
              PRECISION_REJECTION, UNSUPPORTED, _believed_precision("triton", "conv", setting))
        for setting in ((Level.HIGHEST,),)
    ] + [
        Probe("mosaic_gpu", op, _describe(setting), attempt_gpu(make_kernel, setting),
              PRECISION_REJECTION, UNSUPPORTED, _believed_precision("mosaic_gpu", op, setting))
        for op, make_kernel in MOSAIC_TPU_PRECISION_KERNELS.items()
        for setting in ((Level.HIGHEST,), (Level.DEFAULT, Level.HIGHEST))
    ]


# Triton's tt.dot needs every dimension >= 16.
TRITON_DOT_SHAPES = ((16, 32), (32, 16))
# A pair with the TF32 level on the right-hand side as well: "either side" is the rule.
TRITON_PRECISION_SETTINGS = PRECISION_SETTINGS + ((Level.HIGHEST, Level.HIGH),)
# Levels that make Triton's dot TF32 when either operand asks for one (`_TF32_PRECISIONS` in
# jax/_src/pallas/triton/lowering.py); anything else lowers f32 operands as IEEE fp32. An "input
# precision" mismatch means this rule (and PER_OPERAND_PRECISION_LOWERED's comment) went stale.
TRITON_TF32_LEVELS = frozenset({Level.DEFAULT, Level.HIGH})


def _triton_input_precision(setting: tuple[Level, ...]) -> str:
    """What Triton's `_dot_general_lowering` makes of a setting, for f32 operands."""
    return TF32 if TRITON_TF32_LEVELS & set(setting) else IEEE


def _dot_input_precision(triton_module: str) -> str:
    dots = [line for line in triton_module.splitlines() if "tt.dot " in line]
    if len(dots) != 1:
        raise RuntimeError(f"expected one tt.dot in the Triton module, found {len(dots)}")
    match = re.search(r"inputPrecision = (\w+)", dots[0])
    return match.group(1) if match else IEEE


def _triton_dot_probes() -> list[Probe]:
    """Per setting, two rows: does it lower (the table), and as which input precision.

    The second is what makes a per-operand pair working code on Triton: (DEFAULT, HIGHEST) is TF32
    there, and the scalar a Mosaic-minded rewrite would write (HIGHEST) is IEEE fp32."""

    @functools.lru_cache(maxsize=None)
    def lowered(setting: tuple[Level, ...]) -> str:
        return _lower_triton(*_dot_kernel(_lax_precision(setting), TRITON_DOT_SHAPES))

    def lowers(setting):
        return lambda: lowered(setting)

    def input_precision(setting):
        def attempt():
            seen = _dot_input_precision(lowered(setting))
            return _Seen(seen, f"tt.dot inputPrecision = {seen}")

        return attempt

    probes = []
    for setting in TRITON_PRECISION_SETTINGS:
        case = _describe(setting)
        expected = _triton_input_precision(setting)
        probes.append(Probe("triton", "dot", case, lowers(setting), PRECISION_REJECTION,
                            UNSUPPORTED, _believed_precision("triton", "dot", setting)))
        probes.append(Probe("triton", "dot", f"{case} input precision", input_precision(setting),
                            PRECISION_REJECTION, UNSUPPORTED, lambda version, e=expected: e))
    return probes


# jax's lax.DotAlgorithmPreset has other members than capabilities.DOT_ALGORITHM_PRESETS lists.
PRESETS_DIFFER = "other members"
# How a dot lowering refuses a preset: Mosaic TPU indexes it as a pair, Triton names it.
PRESET_REJECTION = (r"'DotAlgorithmPreset' object is not subscriptable|Unsupported dot algorithm"
                    r"|Unsupported dot precision")


def _believed_preset(backend: str, preset: str):
    def believed(version: Optional[Version]) -> str:
        return ACCEPTED if preset in capabilities.lowered_presets(backend, version) else REJECTED

    return believed


def _preset_probes() -> list[Probe]:
    """Every `lax.DotAlgorithmPreset` as a dot's precision: Mosaic TPU with float32 and bfloat16
    operands, Triton with float32 ones (capabilities.DOT_ALGORITHM_PRESETS_LOWERED)."""

    def preset(name):
        from jax import lax

        return getattr(lax.DotAlgorithmPreset, name)

    def tpu(name, dtype):
        return lambda: _lower_mosaic_tpu(*_dot_kernel(preset(name), dtype=dtype))

    def triton(name):
        return lambda: _lower_triton(*_dot_kernel(preset(name), TRITON_DOT_SHAPES))

    def members():
        from jax import lax

        seen = tuple(member.name for member in lax.DotAlgorithmPreset)
        if seen == capabilities.DOT_ALGORITHM_PRESETS:
            return None
        added = sorted(set(seen) - set(capabilities.DOT_ALGORITHM_PRESETS))
        gone = sorted(set(capabilities.DOT_ALGORITHM_PRESETS) - set(seen))
        return _Seen(PRESETS_DIFFER, f"added {', '.join(added) or 'none'}; gone {', '.join(gone) or 'none'}")

    # A preset a new release adds is one JAX001 does not know: it shows up here, not as a silent miss.
    return [Probe("mosaic_tpu", "dot", "DotAlgorithmPreset members", members, PRESET_REJECTION, UNSUPPORTED,
                  lambda version: ACCEPTED)] + [
        Probe("mosaic_tpu", "dot", f"{dtype} operands, precision=DotAlgorithmPreset.{name}", tpu(name, dtype),
              PRESET_REJECTION, UNSUPPORTED, _believed_preset("mosaic_tpu", name))
        for name in capabilities.DOT_ALGORITHM_PRESETS for dtype in ("float32", "bfloat16")
    ] + [
        Probe("triton", "dot", f"precision=DotAlgorithmPreset.{name}", triton(name), PRESET_REJECTION, UNSUPPORTED,
              _believed_preset("triton", name))
        for name in capabilities.DOT_ALGORITHM_PRESETS
    ]


DYNAMIC_SLICE_REJECTION = r"Unimplemented primitive in Pallas TPU lowering for tc: dynamic_slice\b"


def _dynamic_index_probes() -> list[Probe]:
    """A value loaded from a ref and indexed at a traced position (capabilities.DYNAMIC_SLICE_OF_VALUES),
    and JAX006's fix, the same index on the ref, which must lower wherever the value's does not."""
    from jax import lax

    def attempt(index):
        def body(x_ref, o_ref):  # a loop's index is traced
            o_ref[...] = lax.fori_loop(0, 2, lambda i, total: total + index(x_ref, i), o_ref[...])

        return lambda: _lower_mosaic_tpu(body, (_f32((16, 128)),), _f32(VECTOR_SHAPE))

    def believed(version: Optional[Version]) -> str:
        return ACCEPTED if capabilities.lowers_dynamic_slice_of_values("mosaic_tpu", version) else REJECTED

    cases = {
        "v[i] of v = x_ref[...]": lambda x_ref, i: _broadcast_row(x_ref[...][i]),
        "lax.dynamic_slice(v, (i * 8, 0), (8, 128)) of v = x_ref[...]":
            lambda x_ref, i: lax.dynamic_slice(x_ref[...], (i * 8, 0), VECTOR_SHAPE),
    }
    fixes = {
        "x_ref[i] (JAX006's fix)": lambda x_ref, i: _broadcast_row(x_ref[i]),
        "x_ref[pl.ds(i * 8, 8), pl.ds(0, 128)] (JAX006's fix)": lambda x_ref, i: x_ref[_ds(i * 8, 8), _ds(0, 128)],
    }
    return [Probe("mosaic_tpu", "dynamic_slice", case, attempt(index), DYNAMIC_SLICE_REJECTION, UNSUPPORTED, believed)
            for case, index in cases.items()] + [
        Probe("mosaic_tpu", "dynamic_slice", case, attempt(index), DYNAMIC_SLICE_REJECTION, UNSUPPORTED,
              lambda version: ACCEPTED) for case, index in fixes.items()]


def _ds(start, size):
    from jax.experimental import pallas as pl

    return pl.ds(start, size)


def _broadcast_row(row):
    import jax.numpy as jnp

    return jnp.broadcast_to(row, VECTOR_SHAPE)
# How Mosaic TPU refuses a 64-bit value under jax_enable_x64 (capabilities.X64_REJECTED).
X64_REJECTION = r"64-bit types are not supported|index_dtype|32-bit Iota supported"


@contextlib.contextmanager
def _x64():
    """jax_enable_x64 on for one lowering, then as it was."""
    import jax

    saved = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", saved)


def _x64_kernel(case: str):
    """A kernel that makes `case` 64-bit under x64, as users' kernels do (X64_REJECTED's cases)."""
    import jax
    import jax.numpy as jnp

    def broadcast(value, ref):
        return jnp.broadcast_to(value, VECTOR_SHAPE).astype(ref.dtype)

    bodies = {
        "int64 value": (lambda x: x.astype(jnp.int64) + 1, "int32"),
        "float64 value": (lambda x: jnp.zeros(VECTOR_SHAPE) + x, "float32"),
        "integer sum": (lambda x: jnp.sum(x, axis=1, keepdims=True), "int32"),
        "argmax": (lambda x: jnp.argmax(x, axis=1)[:, None], "float32"),
        "iota": (lambda x: x + jnp.arange(VECTOR_SHAPE[1])[None, :], "float32"),
    }
    make, dtype = bodies[case]

    def body(x_ref, o_ref):
        o_ref[...] = broadcast(make(x_ref[...]), o_ref)

    shape = jax.ShapeDtypeStruct(VECTOR_SHAPE, dtype)
    return body, (shape,), shape


def _believed_x64(backend: str, case: str):
    """Rejected where the table has an error for the release; a case only Mosaic's compiler refuses
    (X64_COMPILE_ONLY) lowers off a TPU."""
    def believed(version: Optional[Version]) -> str:
        if (backend, case) in capabilities.X64_COMPILE_ONLY and not on_a_tpu():
            return ACCEPTED
        return REJECTED if capabilities.x64_rejection(backend, case, version) is not None else ACCEPTED

    return believed


def _x64_probes() -> list[Probe]:
    def attempt(case):
        def lower():
            with _x64():
                _lower_mosaic_tpu(*_x64_kernel(case))
        return lower

    return [Probe(backend, "x64", f"jax_enable_x64, {case}", attempt(case), X64_REJECTION, UNSUPPORTED,
                  _believed_x64(backend, case))
            for backend, case in capabilities.X64_REJECTED]


# How Mosaic TPU refuses a debug_print argument (capabilities.DEBUG_PRINT_PLACEHOLDER_DTYPES, SCALAR_DTYPES).
DEBUG_PRINT_REJECTION = r"when using placeholders|Only arrays with 32-bit element types can be converted to scalars"
DEBUG_PRINT_DTYPES = ("float32", "int32", "bfloat16", "int8")


def _debug_print_kernel(dtype: str, placeholders: bool):
    """A kernel printing `v[0, 0]` of a `dtype` block, with a `{}` placeholder or after the text."""
    import jax
    from jax.experimental import pallas as pl

    def body(x_ref, o_ref):
        v = x_ref[...]
        pl.debug_print("v {}" if placeholders else "v", v[0, 0])
        o_ref[...] = v

    shape = jax.ShapeDtypeStruct(VECTOR_SHAPE, dtype)
    return body, (shape,), shape


def _believed_printed(backend: str, dtype: str, placeholders: bool):
    """Without placeholders only the index to a scalar can fail, and on a TPU, where the probe compiles,
    an integer scalar aborts the compiler; with them, the placeholder's dtypes can fail too."""
    def believed(version: Optional[Version]) -> str:
        printed = dtype in capabilities.scalar_dtypes(backend, version) and (
            not placeholders or dtype in capabilities.placeholder_dtypes(backend, version))
        if not printed:
            return REJECTED
        aborts = not placeholders and dtype in capabilities.unformatted_abort_dtypes(backend, version)
        return ABORTED if aborts and on_a_tpu() else ACCEPTED

    return believed


def _debug_print_probes() -> list[Probe]:
    return [Probe(backend, "debug_print", f"v[0, 0] of {dtype}, {'a placeholder' if placeholders else 'no placeholder'}",
                  lambda dtype=dtype, placeholders=placeholders: _lower_mosaic_tpu(
                      *_debug_print_kernel(dtype, placeholders)),
                  DEBUG_PRINT_REJECTION, UNSUPPORTED, _believed_printed(backend, dtype, placeholders))
            for backend in capabilities.DEBUG_PRINT_PLACEHOLDER_DTYPES
            for dtype in DEBUG_PRINT_DTYPES for placeholders in (True, False)]


def _lstm_probes() -> list[Probe]:
    """The LSTM gate runs at trace time; a failure after it (no cuDNN here) means it passed."""
    import jax
    import jax.numpy as jnp
    from jax.experimental import rnn

    batch, steps, inputs, hidden, layers = 2, 3, 4, 5, 1
    operands = (
        _f32((batch, steps, inputs)),
        _f32((layers, batch, hidden)),
        _f32((layers, batch, hidden)),
        _f32((rnn.get_num_params_in_lstm(inputs, hidden, layers, False),)),
        jax.ShapeDtypeStruct((batch,), jnp.int32),
    )

    def attempt(setting):
        def lstm(x, h_0, c_0, weights, seq_lengths):
            return rnn.lstm(
                x, h_0, c_0, weights, seq_lengths, input_size=inputs, hidden_size=hidden,
                num_layers=layers, dropout=0.0, bidirectional=False,
                precision=_lax_precision(setting),
            )

        return lambda: jax.eval_shape(lstm, *operands)

    return [
        Probe("cudnn", "lstm", _describe(setting), attempt(setting), LSTM_REJECTION, ACCEPTED,
              _believed_precision("cudnn", "lstm", setting))
        for setting in PRECISION_SETTINGS
        if len(setting) == 1
    ]


def _accuracy_attempt(backend: str, name: str) -> Callable[[], object]:
    def attempt():
        from jax import lax

        function = getattr(lax, name, None)
        if function is None:
            raise _Unwritable(ABSENT, f"jax.lax.{name} does not exist")
        mode = getattr(lax, "AccuracyMode", None)
        parameters = inspect.signature(function).parameters
        if mode is None or "accuracy" not in parameters:
            raise _Unwritable(NO_ACCURACY_PARAM, f"jax.lax.{name} takes no accuracy=")
        arity = sum(p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD
                    for p in parameters.values())

        def kernel(**hint):
            def body(*refs):
                *in_refs, out_ref = refs
                out_ref[...] = function(*(ref[...] for ref in in_refs), **hint)

            return body

        vector = _f32(VECTOR_SHAPE)
        lower = KERNEL_LOWERINGS[backend]
        hinted = lower(kernel(accuracy=mode.HIGHEST), (vector,) * arity, vector)
        if backend != "triton":
            return None
        # Lowered: is the hint honoured, or dropped on the floor? Same body, same source lines,
        # so the Triton modules differ only if the hint changed the code.
        plain = lower(kernel(), (vector,) * arity, vector)
        if hinted == plain:
            return _Seen(IGNORED, "Triton module identical with and without accuracy=")
        return _Seen(ACCEPTED, "accuracy= changes the Triton module")

    return attempt


def _believed_accuracy(backend: str, name: str):
    def believed(version: Optional[Version]) -> str:
        if backend in capabilities.NOT_LOWERED and name in capabilities.not_lowered(backend, version):
            return UNSUPPORTED  # no lowering at all: "Unimplemented primitive", hint or no hint
        rejected = capabilities.accuracy_rejected(backend, version)
        return REJECTED if name in rejected else NOT_REJECTED

    return believed


def _accuracy_probes() -> list[Probe]:
    return [
        Probe(backend, name, "accuracy=HIGHEST", _accuracy_attempt(backend, name),
              ACCURACY_REJECTION, UNSUPPORTED, _believed_accuracy(backend, name))
        for backend in KERNEL_LOWERINGS
        for name in ACCURACY_FUNCTIONS
    ]


def _math_kernel(primitive: str):
    """A kernel body that applies `primitive` as JAX007's functions do, on an (8, 128) float32 block."""
    import jax.numpy as jnp
    from jax import lax

    apply = {
        "expm1": jnp.expm1, "erfc": lax.erfc, "atan": jnp.arctan, "asin": jnp.arcsin, "acos": jnp.arccos,
        "sinh": jnp.sinh, "cosh": jnp.cosh, "lgamma": lax.lgamma, "digamma": lax.digamma,
        "cumsum": lambda x: jnp.cumsum(x, axis=1), "cumprod": lambda x: jnp.cumprod(x, axis=1),
        "sort": lambda x: jnp.sort(x, axis=1), "erf": lax.erf, "round": jnp.round,
        "reduce_and": lambda x: jnp.where(jnp.all(x > 0, axis=1, keepdims=True), x, 0.0),
        "reduce_or": lambda x: jnp.where(jnp.any(x > 0, axis=1, keepdims=True), x, 0.0),
    }[primitive]

    def body(x_ref, out_ref):
        out_ref[...] = apply(x_ref[...])

    return body, (_f32(VECTOR_SHAPE),), _f32(VECTOR_SHAPE)


def _believed_math(backend: str, primitive: str):
    def believed(version: Optional[Version]) -> str:
        return REJECTED if primitive in capabilities.math_unlowered(backend, version) else ACCEPTED

    return believed


def _math_probes() -> list[Probe]:
    """Each math primitive capabilities.MATH_UNLOWERED lists, in a kernel of its backend: a release that
    lowers one shows up here, and JAX007 stops rewriting it once the table says so."""
    return [
        Probe(backend, primitive, "in a kernel",
              lambda b=backend, p=primitive: KERNEL_LOWERINGS[b](*_math_kernel(p)),
              re.escape(capabilities.UNIMPLEMENTED[backend].format(primitive)), UNSUPPORTED,
              _believed_math(backend, primitive))
        for backend, rows in sorted(capabilities.MATH_UNLOWERED.items())
        for primitive in sorted(frozenset().union(*(names for _, names in rows)))
    ]

def _division_probes() -> list[Probe]:
    """x / y on each float dtype Triton's row of capabilities.DIVISION_REJECTED names, and float32 (which
    divides): a release that divides a narrow float shows up here, and JAX007 stops rewriting it."""
    import jax
    import jax.numpy as jnp

    def attempt(dtype: str):
        block = jax.ShapeDtypeStruct(VECTOR_SHAPE, jnp.dtype(dtype))

        def body(x_ref, y_ref, out_ref):
            out_ref[...] = x_ref[...] / y_ref[...]

        return lambda: _lower_triton(body, (block, block), block)

    def believed(dtype: str):
        return lambda version: REJECTED if dtype in capabilities.division_rejected("triton", version) else ACCEPTED

    dtypes = sorted(frozenset().union(*(names for _, names in capabilities.DIVISION_REJECTED["triton"])))
    return [Probe("triton", "div", f"x / y on {dtype}", attempt(dtype), capabilities.DIVISION_REJECTION,
                  UNSUPPORTED, believed(dtype)) for dtype in [*dtypes, "float32"]]

# --- running and comparing --------------------------------------------------------------------

@contextlib.contextmanager
def _quiet():
    """jax warns and logs about absent platforms and experimental APIs; none of it is the answer."""
    loggers = [logging.getLogger(name) for name in ("jax", "absl")]
    levels = [logger.level for logger in loggers]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for logger in loggers:
            logger.setLevel(logging.CRITICAL)
        try:
            yield
        finally:
            for logger, level in zip(loggers, levels):
                logger.setLevel(level)


def probes() -> list[Probe]:
    """Every row, in the same order in every process (a child resumes at an index). Builds with jax
    imported but no backend started."""
    with _quiet():
        return (_precision_probes() + _dtype_probes() + _narrow_probes() + _triton_dot_probes() + _preset_probes()
                + _accuracy_probes() + _lstm_probes() + _math_probes() + _division_probes() + _x64_probes()
                + _debug_print_probes() + _dynamic_index_probes())


PROBES = "codemods.probe:probes"
# A child imports what its parent would: the codemods it runs, the module `factory` names.
_CHILD = "import json, sys; sys.path[:] = json.loads(sys.argv[1]); from codemods import probe; probe.child(*sys.argv[2:])"


def observe(factory: str = PROBES) -> list[Observation]:
    """Lower every row `factory` ("module:function") lists with the installed jax, in child processes;
    independent of what the table says."""
    rows = _load(factory)()
    command = [sys.executable, "-c", _CHILD, json.dumps(sys.path), factory]
    seen = probe_isolated.observe([_name(probe) for probe in rows], command)
    return [Observation(probe, outcome, detail) for probe, (outcome, detail) in zip(rows, seen)]


def child(factory: str, start: str) -> None:
    """A child process's work: `factory`'s rows from index `start` on."""
    with _quiet():
        rows = _load(factory)()

        def attempt(index: int) -> tuple[str, str]:
            seen = _observe(rows[index])
            return seen.outcome, seen.detail

        probe_isolated.serve([_name(probe) for probe in rows], attempt, int(start))


def _load(factory: str) -> Callable[[], list[Probe]]:
    module, _, name = factory.partition(":")
    return getattr(importlib.import_module(module), name)


def _name(probe: Probe) -> str:
    return f"{probe.backend} {probe.op} {probe.case}"


def _agrees(observed: str, believed: str) -> bool:
    """A row not probed is no disagreement: the report says so in a line of its own."""
    return (observed == believed or observed == NOT_PROBED
            or (believed == NOT_REJECTED and observed != REJECTED))


def compare(observations: list[Observation], jax_version: str) -> Report:
    """Set observations next to the table's beliefs for `jax_version` (read at call time)."""
    version = capabilities.parse_version(jax_version)
    rows = []
    for observation in observations:
        probe = observation.probe
        believed = probe.believed(version)
        rows.append(Row(probe.backend, probe.op, probe.case, observation.outcome, believed,
                        _agrees(observation.outcome, believed), observation.detail))
    return Report(jax_version, tuple(rows))


def probe_installed_jax() -> Report:
    return compare(observe(), installed_jax_version())


def render_text(report: Report) -> str:
    header = ("backend", "op", "case", "observed", "believed", "")
    cells = [header] + [
        (row.backend, row.op, row.case, row.observed, row.believed,
         "unchecked" if row.observed == NOT_PROBED else "ok" if row.agree else "MISMATCH")
        for row in report.rows
    ]
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    lines = [f"jax {report.jax_version}: observed lowering vs codemods/capabilities.py", ""]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip()
              for line in cells]
    lines += ["", describe_disagreements(report)]
    lines += describe_not_probed(report)
    return "\n".join(lines)


def describe_not_probed(report: Report) -> list[str]:
    """One line per backend this machine could not lower for: its rows claim nothing."""
    return [f"{backend}: not probed on this machine: {reason}, needs a GPU"
            for backend, reason in report.not_probed.items()]


def describe_disagreements(report: Report) -> str:
    """One line per disagreeing row, and where to fix it."""
    wrong = report.disagreements
    if not wrong:
        unseen = sum(row.observed == NOT_PROBED for row in report.rows)
        return f"All {len(report.rows)} rows agree" + (
            f" ({unseen} of them not probed)." if unseen else ".")
    lines = [f"MISMATCH: {len(wrong)} of {len(report.rows)} rows disagree; "
             f"update codemods/capabilities.py for jax {report.jax_version}:"]
    lines += [f"  {row.backend} {row.op} {row.case}: observed {row.observed}, "
              f"believed {row.believed}" + (f" ({row.detail})" if row.detail else "")
              for row in wrong]
    return "\n".join(lines)


def report_to_json(report: Report, api: probe_api.Report) -> str:
    """`agree` is both tables'; the API table's rows and its own `agree` are under `api`."""
    return json.dumps(
        {"jax_version": report.jax_version, "agree": report.agree and api.agree,
         "not_probed": describe_not_probed(report),
         "rows": [asdict(row) for row in report.rows],
         "api": probe_api.report_to_dict(api)},
        indent=2,
    )


def main(json_output: bool = False) -> int:
    """Exit status: 0 when both tables match the installed jax, 1 on any disagreement, 2 no jax (or a
    probe process that died outside any row)."""
    try:
        installed_jax_version()
    except importlib.metadata.PackageNotFoundError:
        print("jax-codemod probe: jax is not installed, so there is nothing to lower.",
              file=sys.stderr)
        return 2
    try:
        report = probe_installed_jax()
    except probe_isolated.ProbeProcessDied as died:
        print(f"jax-codemod probe: {died}", file=sys.stderr)
        return 2
    with _quiet():  # jax's import-time chatter; the API checks record their own warnings
        api = probe_api.compare(probe_api.observe(), report.jax_version)
    print(report_to_json(report, api) if json_output
          else f"{render_text(report)}\n\n{probe_api.render_text(api)}")
    return 0 if report.agree and api.agree else 1
