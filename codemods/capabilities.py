"""What each jax release's kernel lowerings accept.

This table is the one place the transforms consult to decide what to write, and the one place
`jax-codemod probe` checks against the installed jax. A new jax release that lowers more shows up
as a probe disagreement (and a failing test), not as a silent, overly conservative rewrite.
"""

from __future__ import annotations

import enum
import os
import re
import sys
from dataclasses import dataclass
from typing import Optional, Tuple

Version = Tuple[int, ...]


class Level(enum.IntEnum):
    """`lax.Precision` levels, ordered by accuracy (bf16 < bf16x3 < fp32)."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2


# String names jax accepts for precisions, grouped by family so a rewrite stays in the user's vocabulary.
ENUM_STYLE_NAMES = {"default": Level.DEFAULT, "fastest": Level.DEFAULT, "high": Level.HIGH, "highest": Level.HIGHEST}
DTYPE_STYLE_NAMES = {"bfloat16": Level.DEFAULT, "bfloat16_3x": Level.HIGH, "tensorfloat32": Level.HIGH, "float32": Level.HIGHEST}
PRECISION_NAMES = {**ENUM_STYLE_NAMES, **DTYPE_STYLE_NAMES}


def parse_version(text: str) -> Version:
    """'0.12.0.1' -> (0, 12, 0, 1); pre-release suffixes ('0.11.0rc1', '0.5.0.dev2') are ignored."""
    parts = []
    for piece in text.strip().split("."):
        match = re.match(r"\d+", piece)
        if not match:
            break
        parts.append(int(match.group()))
        if match.end() != len(piece):
            break
    if not parts:
        raise ValueError(f"not a jax version: {text!r}")
    return tuple(parts)


def installed_version(distribution: str) -> Optional[str]:
    """A distribution's version from its `NAME-X.Y.Z.dist-info` folder on sys.path, the one
    importlib.metadata would find first. Importing jax would cost seconds, and importing
    importlib.metadata alone costs more than analysing a kernel file."""
    pattern = re.compile(rf"{re.escape(distribution)}-([^-]+)\.dist-info", re.IGNORECASE)
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            match = pattern.fullmatch(name)
            if match:
                return match.group(1)
    return None


def installed_jax_version() -> Optional[Version]:
    """The installed jax's version, read from its dist-info folder: jax itself is never imported.
    Only where none is found (an egg install, say) is importlib.metadata asked."""
    text = installed_version("jax")
    if text is None:
        from importlib import metadata

        try:
            text = metadata.version("jax")
        except metadata.PackageNotFoundError:
            return None
    try:
        return parse_version(text)
    except ValueError:
        return None


def format_version(version: Optional[Version]) -> str:
    return "unknown" if version is None else ".".join(map(str, version))


@dataclass(frozen=True)
class Span:
    """Half-open release range [since, until); None means unbounded on that side."""

    since: Optional[Version] = None
    until: Optional[Version] = None

    def contains(self, version: Version) -> bool:
        return (self.since is None or version >= self.since) and (
            self.until is None or version < self.until
        )


ALL = Span()
DEFAULT_ONLY = frozenset({Level.DEFAULT})
DEFAULT_HIGHEST = frozenset({Level.DEFAULT, Level.HIGHEST})
EVERY_LEVEL = frozenset(Level)

# First jax release whose Mosaic TPU dot lowering accepts Precision.HIGH (bf16x3).
# Found by lowering (`jax-codemod probe`), not by reading changelogs: 0.10.2 and 0.11.0 reject it
# ("Unsupported dot precision: HIGH"); 0.11.1, 0.11.2, 0.12.0 and 0.12.0.1 lower it.
MOSAIC_TPU_DOT_HIGH_SINCE: Version = (0, 11, 1)
# First jax release with a Mosaic TPU lowering for conv_general_dilated at all, found the same way:
# 0.10.2 and 0.11.0 raise "Unimplemented primitive in Pallas TPU lowering for tc:
# conv_general_dilated"; 0.11.1 and later lower DEFAULT and HIGHEST, not HIGH.
MOSAIC_TPU_CONV_SINCE: Version = (0, 11, 1)

# (backend, op) -> [(releases, precisions the lowering accepts as a single scalar)].
# A release missing from every span means the op does not lower on that backend at all.
# Per-operand pairs (a, b) with a != b are rejected by every Mosaic TPU release.
PRECISIONS: dict[tuple[str, str], list[tuple[Span, frozenset[Level]]]] = {
    ("mosaic_tpu", "dot"): [
        (Span(until=MOSAIC_TPU_DOT_HIGH_SINCE), DEFAULT_HIGHEST),
        (Span(since=MOSAIC_TPU_DOT_HIGH_SINCE), EVERY_LEVEL),
    ],
    ("mosaic_tpu", "conv"): [
        (Span(since=MOSAIC_TPU_CONV_SINCE), DEFAULT_HIGHEST),
    ],
    # cuDNN RNN: DEFAULT means bf16, which the LSTM path rejects at trace time.
    ("cudnn", "lstm"): [
        (ALL, frozenset({Level.HIGH, Level.HIGHEST})),
    ],
    # Pallas Triton (`pl.pallas_call(..., compiler_params=<pallas.triton>.CompilerParams(...))`):
    # `_dot_general_lowering` lowers every scalar precision (DEFAULT and HIGH as TF32, HIGHEST as
    # IEEE fp32), and per-operand pairs too (see PER_OPERAND_PRECISION_LOWERED). Seen by lowering
    # on 0.10.2 and 0.12.0.1 (`jax-codemod probe`, abstract GPU device on a CPU-only machine).
    ("triton", "dot"): [
        (ALL, EVERY_LEVEL),
    ],
    # Mosaic GPU has no lowering for dot_general or conv_general_dilated in a kernel body at all
    # ("Unimplemented primitive in Pallas Mosaic GPU lowering: dot_general"; probed on 0.10.2 and
    # 0.12.0.1, Lane and Warpgroup semantics alike, and absent from both releases' lowering rules);
    # its kernels multiply matrices with plgpu.wgmma / tcgen05_mma. No rows: no precision lowers.
    ("mosaic_gpu", "dot"): [],
    ("mosaic_gpu", "conv"): [],
    # Nor does Triton lower conv_general_dilated ("Unimplemented primitive in Pallas Triton lowering:
    # conv_general_dilated"; probed on 0.10.2 and 0.12.0.1); its dot lowering also asserts there are
    # no batch dimensions, so lax.batch_matmul does not lower there either (an AssertionError;
    # per_operand_precision.py).
    ("triton", "conv"): [],
}

# `lax.DotAlgorithmPreset` members, as jax 0.10.2 and 0.12.0.1 define them (`precision=` of a dot
# also takes one, or its name as a string, which jax turns into the member).
DOT_ALGORITHM_PRESETS = (
    "DEFAULT", "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16", "BF16_BF16_F32",
    "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9", "TF32_TF32_F32", "TF32_TF32_F32_X3",
    "F32_F32_F32", "F64_F64_F64",
)
_TRITON_PRESETS_UNLOWERED = frozenset({
    "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM",
    "F64_F64_F64",
})
# backend -> [(releases, the presets its dot lowering takes as `precision=`)]. Found by lowering a
# dot_general on float32 and on bfloat16 operands with every preset (`jax-codemod probe`), on 0.10.2
# and 0.12.0.1 alike: Mosaic TPU takes none, DEFAULT included ("TypeError: 'DotAlgorithmPreset'
# object is not subscriptable": its lowering indexes the precision as a pair), and a
# `lax.DotAlgorithm(...)` fails there too ("Unsupported dot precision: <class
# 'jax.numpy.bfloat16'>"). Triton lowers every preset but the fp8 and float64 ones ("Unsupported dot
# algorithm: F64_F64_F64."): BF16_BF16_F32 as one bf16 tt.dot, _X3/_X6/_X9 as 3/6/9 of them,
# TF32_TF32_F32(_X3) as tt.dot inputPrecision tf32(x3), F32_F32_F32 as IEEE, F16_* as f16 dots.
DOT_ALGORITHM_PRESETS_LOWERED: dict[str, list[tuple[Span, frozenset[str]]]] = {
    "mosaic_tpu": [(ALL, frozenset())],
    "triton": [(ALL, frozenset(DOT_ALGORITHM_PRESETS) - _TRITON_PRESETS_UNLOWERED)],
}


def lowered_presets(backend: str, version: Optional[Version]) -> frozenset[str]:
    """The presets `backend`'s dot lowering takes; an unknown version gets those every release takes."""
    rows = DOT_ALGORITHM_PRESETS_LOWERED[backend]
    sets = [names for span, names in rows if version is None or span.contains(version)]
    return frozenset.intersection(*sets) if sets else frozenset()


# Operand dtypes whose contraction Mosaic TPU's own compiler (in libtpu, after the lowering above)
# takes at fewer levels than the lowering does: (backend, op, dtype) -> [(releases, levels that compile)].
# With a bfloat16 operand a Mosaic TPU dot at HIGHEST (or (HIGHEST, HIGHEST)) lowers with jax.export
# but fails to compile on the chip: "Mosaic failed to compile TPU kernel: Bad lhs type" (TPU v5e,
# jax 0.10.2, 2026-12-06: dot, dot_general and einsum, bf16 x bf16 and bf16 x f32 alike; DEFAULT
# compiles, and float32 operands compile at DEFAULT and HIGHEST). DEFAULT is exact for bfloat16
# inputs (one bf16 pass, float32 accumulation). Seen on jax 0.10.2 only, the release the chip had:
# later ones are assumed the same until `jax-codemod probe` run on a TPU says otherwise (its
# "bfloat16 operands" rows compile there, and only lower elsewhere).
COMPILED_FOR_DTYPE: dict[tuple[str, str, str], list[tuple[Span, frozenset[Level]]]] = {
    ("mosaic_tpu", "dot", "bfloat16"): [(ALL, DEFAULT_ONLY)],
}


def compiled_precisions(backend: str, op: str, dtype: str, version: Optional[Version]) -> Optional[frozenset[Level]]:
    """Scalar precisions that lower AND compile with an operand of `dtype` (None: the op does not lower)."""
    lowered = lowered_precisions(backend, op, version)
    rows = COMPILED_FOR_DTYPE.get((backend, op, dtype))
    if lowered is None or rows is None:
        return lowered
    compiled = [levels for span, levels in rows if version is None or span.contains(version)]
    return lowered.intersection(*compiled) if compiled else lowered


# Integer vector ops Mosaic TPU cannot do on dtypes narrower than 32 bits: (backend, dtype) ->
# [(releases, ops)], the ops named as codemods/rules/narrow_dtypes.py names them. Two stages fail:
# NARROW_LOWERING_REJECTED, the Pallas lowering itself (on any machine: `jax-codemod probe`; jax
# 0.10.2 and 0.12.0.1 alike, `reduce_max`/`reduce_min` over any integer but int32: "Reductions over
# int8 not implemented.", "... over int16 ...", "... over unsigned integers ..."), and
# NARROW_COMPILED_REJECTED, Mosaic's own compiler in libtpu after a lowering that succeeds, seen
# only on a chip: a TPU v5e with jax 0.10.2, 2026-12-06 (bench/chip/narrow_measure.py, every pair
# of 8-bit values): "Not implemented: Only vector<i16> and vector<i32> are supported, but got 'i8'"
# (arith.addi/subi/muli, and 0 - x for a negation), "failed to legalize operation 'arith.shli'"
# (shrsi, shrui, maxsi, minsi, maxui, minui, math.absi), "Target does not support this comparison"
# (arith.cmpi sgt/ugt, ...; == and != compile). On the same chip &, |, ^, ~, == and !=
# compile on 8-bit vectors, and int16 +, -, *, negation, abs and compares compile. jax issue 38986
# reports arith.shrui on int8 failing on a TPU v7x with jaxlib 0.10.2 too: no chip generation is
# known to take these, so the rows hold for every chip until a probe on one says otherwise.
_EIGHT_BIT_COMPILE = frozenset({"add", "sub", "mul", "neg", "shift", "compare", "maximum", "minimum"})
NARROW_LOWERING_REJECTED: dict[tuple[str, str], list[tuple[Span, frozenset[str]]]] = {
    ("mosaic_tpu", dtype): [(ALL, frozenset({"reduce_max", "reduce_min"}))] for dtype in ("int8", "uint8", "int16")
}
# jnp.sum widens int8 and int16 to int32, which reduces; uint8 to uint32, which does not.
NARROW_LOWERING_REJECTED[("mosaic_tpu", "uint8")] = [(ALL, frozenset({"reduce_max", "reduce_min", "reduce_sum"}))]
NARROW_COMPILED_REJECTED: dict[tuple[str, str], list[tuple[Span, frozenset[str]]]] = {
    ("mosaic_tpu", "int8"): [(ALL, _EIGHT_BIT_COMPILE | {"abs"})],
    ("mosaic_tpu", "uint8"): [(ALL, _EIGHT_BIT_COMPILE)],  # abs of a uint8 is the value itself: it compiles
    ("mosaic_tpu", "int16"): [(ALL, frozenset({"shift", "maximum", "minimum"}))],
}
NARROW_DTYPES = ("int8", "uint8", "int16")


def narrow_rejected(backend: str, dtype: str, version: Optional[Version]) -> frozenset[str]:
    """The ops on `dtype` vectors that fail for `backend`, lowering or compiling, on `version` (None:
    those any known release rejects: the fix is exact, so applying it where it was not needed costs
    two casts, while leaving it out costs the kernel)."""
    return frozenset(op for table in (NARROW_LOWERING_REJECTED, NARROW_COMPILED_REJECTED)
                     for span, ops in table.get((backend, dtype), ())
                     if version is None or span.contains(version) for op in ops)


# The primitive each table op lowers to, as the lowering's "Unimplemented primitive" error names it.
PRIMITIVES = {"dot": "dot_general", "conv": "conv_general_dilated"}

# Backends whose dot lowering also accepts a per-operand pair (lhs, rhs) with lhs != rhs.
# Triton lowers a pair with DEFAULT or HIGH on either side as TF32, otherwise as IEEE fp32: such a
# pair is working code there, and rewriting it to one scalar changes its numerics (HIGHEST: TF32
# -> fp32, slower). Mosaic TPU rejects every such pair ("Per-operand dot precision unsupported").
PER_OPERAND_PRECISION_LOWERED: frozenset[str] = frozenset({"triton"})

# backend -> [(releases, lax functions whose lowering raises "Not implemented: accuracy")].
# A function is rejected in a release when any span containing that release lists it.
# Left out on purpose, per `jax-codemod probe` on 0.10.2, 0.11.0, 0.11.1, 0.11.2, 0.12.0 and
# 0.12.0.1: lax.atan2 and lax.erf take no accuracy= at all; lax.log2 does not exist before 0.11.2;
# Mosaic GPU does not lower tan or log1p at all, nor sqrt before 0.11.2 ("Unimplemented primitive").
# lax.cbrt and lax.expm1 take accuracy= on every one of those releases, and lax.erfc from 0.12.0
# (none before), but neither Mosaic backend lowers any of the three at all, hint or no hint
# ("Unimplemented primitive"): the hint is not what fails, so dropping it would fix nothing
# (NOT_LOWERED below lists them, and JAX002 says so where such a hinted call sits in a kernel).
ACCURACY_REJECTED: dict[str, list[tuple[Span, frozenset[str]]]] = {
    "mosaic_gpu": [
        (ALL, frozenset({"rsqrt", "tanh", "logistic", "exp", "exp2", "sin", "cos", "log"})),
        (Span(since=(0, 11, 2)), frozenset({"sqrt", "log2"})),
    ],
    "mosaic_tpu": [
        (
            ALL,
            frozenset(
                {"rsqrt", "sqrt", "exp", "exp2", "logistic", "sin", "cos", "tan", "tanh", "log",
                 "log1p"}
            ),
        ),
        (Span(since=(0, 11, 2)), frozenset({"log2"})),
    ],
    # Triton's elementwise lowering rules take `**_`: accuracy= is silently ignored (the Triton IR
    # is identical with and without it), never rejected. An empty set leaves the unions above
    # (accuracy_rejected_anywhere) exactly as the Mosaic backends make them.
    "triton": [
        (ALL, frozenset()),
    ],
}


# backend -> [(releases, lax functions that take accuracy= but have no kernel lowering at all)]:
# the kernel fails with "Unimplemented primitive" with or without the hint, so dropping the hint
# fixes nothing. Seen by lowering (`jax-codemod probe`) on 0.10.2, 0.11.0, 0.11.1, 0.11.2, 0.12.0
# and 0.12.0.1 (erfc takes accuracy= from 0.12.0 only).
NOT_LOWERED: dict[str, list[tuple[Span, frozenset[str]]]] = {
    "mosaic_gpu": [
        (ALL, frozenset({"cbrt", "expm1", "tan", "log1p"})),
        (Span(until=(0, 11, 2)), frozenset({"sqrt"})),
        (Span(since=(0, 12, 0)), frozenset({"erfc"})),
    ],
    "mosaic_tpu": [
        (ALL, frozenset({"cbrt", "expm1"})),
        (Span(since=(0, 12, 0)), frozenset({"erfc"})),
    ],
}


# backend -> [(releases, whether its kernel lowering takes a dynamic_slice of a value)]: `v = x_ref[...]`
# then `v[i]` at a traced `i`, or `lax.dynamic_slice(v, ...)` (even with static starts). Mosaic TPU
# raises "Unimplemented primitive in Pallas TPU lowering for tc: dynamic_slice" on 0.10.2 and
# 0.12.0.1 (`jax-codemod probe`, and a TPU v5e with 0.10.2), while indexing the ref (`x_ref[i]`,
# `x_ref[pl.ds(start, size)]`) lowers: JAX006 moves the index onto the ref. A release that lowers
# it gets a span of its own here (the probe says when), and then no finding.
DYNAMIC_SLICE_OF_VALUES: dict[str, list[tuple[Span, bool]]] = {
    "mosaic_tpu": [(ALL, False)],
}


def lowers_dynamic_slice_of_values(backend: str, version: Optional[Version]) -> bool:
    """Whether the backend lowers a dynamic_slice of a value on `version`; an unknown version only
    where every release does (a claim that a kernel fails is what makes JAX006 act)."""
    rows = DYNAMIC_SLICE_OF_VALUES[backend]
    return all(lowered for span, lowered in rows if version is None or span.contains(version))


# backend -> [(releases, math primitives its kernel lowering has no rule for at all)]: JAX007's table.
# A kernel that applies one fails with "Unimplemented primitive in Pallas TPU lowering for tc: expm1"
# (jnp.expm1, and jax.nn.elu/selu/celu through it; erfc through jax.nn.gelu(approximate=False)).
# Seen by lowering (`jax-codemod probe`) on 0.10.2 and 0.12.0.1, and on a TPU v5e (0.10.2, compiled
# and run). Lowered on both, so left out: exp, log1p, erf, erf_inv, tan, atan2, round, sign,
# logistic, tanh, all/any, bfloat16 division. (NOT_LOWERED above lists, for JAX002, the lax functions
# that take accuracy= and have no lowering: expm1 and erfc are in both tables.)
MATH_UNLOWERED: dict[str, list[tuple[Span, frozenset[str]]]] = {
    "mosaic_tpu": [
        (ALL, frozenset({"expm1", "erfc", "atan", "asin", "acos", "sinh", "cosh", "cumsum", "cumprod", "lgamma",
                         "digamma", "sort"})),
    ],
    # Pallas Triton ("Unimplemented primitive in Pallas Triton lowering: erf"): erf and erfc (and so
    # gelu(approximate=False)), round (jnp.round, rint, lax.round, and a float floor_divide, which rounds),
    # jnp.all/any (reduce_and, reduce_or) and cumprod, on 0.10.2 and 0.12.0.1 (`jax-codemod probe`,
    # bench/math_walls.py --triton; an abstract H100 on a CPU). Lowered there: erf_inv, expm1, atan, sinh,
    # sign, floor, trunc, cumsum. bfloat16 and float16 division is DIVISION_REJECTED's.
    "triton": [
        (ALL, frozenset({"erf", "erfc", "round", "reduce_and", "reduce_or", "cumprod"})),
    ],
}


# backend -> [(releases, float dtypes whose division its kernel lowering rejects)]: Triton divides float32
# and float64 only ("unsupported types: tensor<8x128xbf16> and tensor<8x128xbf16>": `x / y`, `x / 2`,
# jnp.reciprocal and `x // y` on bfloat16 or float16), on 0.10.2 and 0.12.0.1 (`jax-codemod probe`,
# bench/math_walls.py --triton). JAX007 divides those in float32 and rounds back (exact).
DIVISION_REJECTED: dict[str, list[tuple[Span, frozenset[str]]]] = {
    "triton": [(ALL, frozenset({"bfloat16", "float16"}))],
}
# How Triton's lowering says so (the operands' MLIR types: `tensor<8x128xbf16>`, or `bf16` for scalars).
DIVISION_REJECTION = r"unsupported types: (?:tensor<[\dx]*)?(?:bf16|f16)>? and (?:tensor<[\dx]*)?(?:bf16|f16)>?"


# How each backend's lowering says it has no rule for a primitive (the start of its message).
UNIMPLEMENTED = {
    "mosaic_tpu": "Unimplemented primitive in Pallas TPU lowering for tc: {}",
    "mosaic_gpu": "Unimplemented primitive in Pallas Mosaic GPU lowering: {}",
    "triton": "Unimplemented primitive in Pallas Triton lowering: {}",
}


def _known_versions() -> list[Version]:
    """Boundaries of every span: evaluating at these covers every distinct row of the table."""
    points = {(0,)}
    for rows in (*PRECISIONS.values(), *ACCURACY_REJECTED.values(), *NOT_LOWERED.values(),
                 *MATH_UNLOWERED.values(), *DIVISION_REJECTED.values()):
        for span, _ in rows:
            points.update(p for p in (span.since, span.until) if p is not None)
    return sorted(points)


def lowered_precisions(backend: str, op: str, version: Optional[Version]) -> Optional[frozenset[Level]]:
    """Scalar precisions the lowering accepts, or None when the op does not lower there at all.

    With an unknown version the answer is conservative: what every release that lowers the op accepts.
    """
    rows = PRECISIONS[(backend, op)]
    if version is not None:
        for span, levels in rows:
            if span.contains(version):
                return levels
        return None
    sets = [levels for span, levels in rows]
    return frozenset.intersection(*sets) if sets else None


def accuracy_rejected(backend: str, version: Optional[Version]) -> frozenset[str]:
    """lax functions whose `accuracy=` the backend's kernel lowering rejects.

    Unknown version: the union over known releases (dropping a hint that would have worked only
    costs the hint; keeping one that fails costs the kernel)."""
    versions = _known_versions() if version is None else [version]
    return frozenset(
        name
        for v in versions
        for span, names in ACCURACY_REJECTED[backend]
        if span.contains(v)
        for name in names
    )


def accuracy_rejected_anywhere(version: Optional[Version]) -> frozenset[str]:
    """Functions whose hint fails in a kernel on at least one Mosaic backend.

    A kernel body does not say which backend it will be lowered for, so a hint is dropped when any
    backend rejects it."""
    return frozenset().union(*(accuracy_rejected(b, version) for b in ACCURACY_REJECTED))


def not_lowered(backend: str, version: Optional[Version]) -> frozenset[str]:
    """lax functions the backend cannot lower in a kernel at all, hint or no hint.

    Unknown version: only those no known release lowers (a claim that a kernel cannot lower must
    hold for the release the user runs)."""
    return _unlowered(NOT_LOWERED, backend, version)


def math_unlowered(backend: str, version: Optional[Version]) -> frozenset[str]:
    """Math primitives the backend's kernel lowering has no rule for (JAX007); an unknown version
    gets those no known release lowers, as not_lowered."""
    return _unlowered(MATH_UNLOWERED, backend, version)


def division_rejected(backend: str, version: Optional[Version]) -> frozenset[str]:
    """Float dtypes whose division the backend's kernels reject (JAX007); an unknown version gets those
    no known release divides, as not_lowered."""
    return _unlowered(DIVISION_REJECTED, backend, version)


def _unlowered(table: dict[str, list[tuple[Span, frozenset[str]]]], backend: str,
               version: Optional[Version]) -> frozenset[str]:
    versions = _known_versions() if version is None else [version]
    per_version = [frozenset(name for span, names in table.get(backend, ()) if span.contains(v)
                             for name in names) for v in versions]
    return frozenset.intersection(*per_version)


# 64-bit values in Mosaic TPU kernels (JAX005). With jax_enable_x64 on, an explicit int64/float64 dtype,
# jnp.zeros/ones/empty without a dtype (float64), an integer sum (int64), jnp.argmax/argmin (int64
# indices) and jnp.arange without a dtype (an int64 iota) make 64-bit values. (backend, case) ->
# [(releases, the error)]; a release in no span lowers the case. Lowered on 0.10.2 and 0.12.0.1
# (`jax-codemod probe`); the argmax message changes in 0.11.1 (read in the 0.11.0 and 0.11.1
# wheels' lowering source). "iota" lowers everywhere: it is Mosaic's own compiler (libtpu) that
# refuses it (TPU v5e, jax 0.10.2, 2026-12-06), so it is checked on a TPU only (X64_COMPILE_ONLY).
# Without x64 every case is 32-bit and lowers: the fixes write the 32-bit dtype jax uses then.
X64_UNSUPPORTED = "NotImplementedError: 64-bit types are not supported"
X64_REJECTED: dict[tuple[str, str], list[tuple[Span, str]]] = {
    ("mosaic_tpu", "int64 value"): [(ALL, X64_UNSUPPORTED)],
    ("mosaic_tpu", "float64 value"): [(ALL, X64_UNSUPPORTED)],
    ("mosaic_tpu", "integer sum"): [(ALL, X64_UNSUPPORTED)],
    ("mosaic_tpu", "argmax"): [
        (Span(until=(0, 11, 1)), "NotImplementedError: Only index_dtype=int32 is supported"),
        (Span(since=(0, 11, 1)), "NotImplementedError: Unsupported combination of input dtype (float32) and "
                                 "index_dtype (int64) for reduce_index"),
    ],
    ("mosaic_tpu", "iota"): [(ALL, "Mosaic failed to compile TPU kernel: Not implemented: Only 8-, 16- and "
                                   "32-bit Iota supported")],
}
X64_COMPILE_ONLY = frozenset({("mosaic_tpu", "iota")})


def x64_rejection(backend: str, case: str, version: Optional[Version]) -> Optional[str]:
    """The error `backend` gives a 64-bit `case` under jax_enable_x64 (None: it takes it); an unknown
    version gets the newest release's words."""
    rows = X64_REJECTED.get((backend, case), [])
    found = [error for span, error in rows if version is None or span.contains(version)]
    return found[-1] if found else None


# pl.debug_print in Mosaic TPU kernels (JAX008). With placeholders (`{}`) every argument must be a
# scalar of one of these dtypes: "All arguments must be 32-bit integers when using placeholders" on
# 0.10.2 (lowered), float32 too from 0.11.0 ("... 32-bit integers or floats ...", lowered on 0.12.0.1,
# read in the 0.11.0 wheel's source). Without placeholders any scalar lowers, printed after the format
# string; on the chip an integer one does not compile (DEBUG_PRINT_UNFORMATTED_ABORTS).
DEBUG_PRINT_PLACEHOLDER_DTYPES: dict[str, list[tuple[Span, frozenset[str]]]] = {
    "mosaic_tpu": [
        (Span(until=(0, 11, 0)), frozenset({"int32"})),
        (Span(since=(0, 11, 0)), frozenset({"int32", "float32"})),
    ],
}
# A vector indexed down to a scalar (`v[0, 0]`, as a debug_print argument is) must have 32-bit
# elements on every release: "Only arrays with 32-bit element types can be converted to scalars"
# (lowered on 0.10.2 and 0.12.0.1 for bfloat16 and int8).
SCALAR_DTYPES: dict[str, list[tuple[Span, frozenset[str]]]] = {
    "mosaic_tpu": [(ALL, frozenset({"int32", "uint32", "float32"}))],
}


# Without placeholders, a scalar of these dtypes stops Mosaic's compiler in libtpu: the process aborts
# ("llo_builder.cc: Signedness cannot be inferred", SIGABRT) where the lowering (all a CPU runs) passes.
# Seen on a TPU v5e with jax 0.10.2 and libtpu 0.0.42.1, 2026-12-07 (bench/chip/debug_print_chip.py):
# int32 and uint32 scalars, indexed from a vector or made by `jnp.sum`; a float32 scalar compiles and
# runs, and so does an int32 one through a placeholder. No newer jax was on a chip: the row holds for
# every release until one is seen to take it (the fix, a placeholder per value, prints the same text).
DEBUG_PRINT_UNFORMATTED_ABORTS: dict[str, list[tuple[Span, frozenset[str]]]] = {
    "mosaic_tpu": [(ALL, frozenset({"int32", "uint32"}))],
}


def _dtypes_in(table: dict[str, list[tuple[Span, frozenset[str]]]], backend: str,
               version: Optional[Version]) -> frozenset[str]:
    """The dtypes a row set takes on `version`; an unknown version gets those every release takes."""
    sets = [dtypes for span, dtypes in table[backend] if version is None or span.contains(version)]
    return frozenset.intersection(*sets) if sets else frozenset()


def placeholder_dtypes(backend: str, version: Optional[Version]) -> frozenset[str]:
    """Scalar dtypes `backend`'s debug_print formats through a `{}` placeholder."""
    return _dtypes_in(DEBUG_PRINT_PLACEHOLDER_DTYPES, backend, version)


def scalar_dtypes(backend: str, version: Optional[Version]) -> frozenset[str]:
    """Element dtypes of a vector `backend` can index down to a scalar."""
    return _dtypes_in(SCALAR_DTYPES, backend, version)


def unformatted_abort_dtypes(backend: str, version: Optional[Version]) -> frozenset[str]:
    """Scalar dtypes whose debug_print without placeholders aborts `backend`'s compiler on the chip."""
    return _dtypes_in(DEBUG_PRINT_UNFORMATTED_ABORTS, backend, version)
