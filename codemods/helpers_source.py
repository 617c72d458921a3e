"""Reference code of the helpers that transforms route calls through: the one copy of it.

Transforms insert these functions into the modules they rewrite (codemods.analysis.module_helpers
reads this file as text; the tool never imports it, nor jax). With `--helpers-module pkg.jax_compat`
they import them from `pkg/jax_compat.py` instead: create that module by copying this file.
"""

import jax.numpy as jnp
from jax import lax
from jax.experimental.pallas import tpu as pltpu


def rsqrt_safe(x):
    """`lax.rsqrt(x)` with float32 accuracy, in a form Pallas Mosaic kernels can lower.

    Mosaic GPU and Mosaic TPU reject `lax.rsqrt(x, accuracy=...)` ("Not implemented: accuracy"),
    and Mosaic GPU may lower a plain rsqrt to an approximation. One Newton-Raphson step on it
    keeps the accuracy the hint asked for (within 1 ulp of the exact result); zero, negative,
    infinite and NaN inputs keep rsqrt's own inf, NaN, 0 and NaN, as XLA gives them.
    Added by jax-codemod (JAX002).
    """
    y = lax.rsqrt(x)
    # (x * y) * y rather than 0.5 * x * y * y: halving a tiny x first underflows.
    refined = y + 0.5 * y * (1.0 - (x * y) * y)
    return lax.select((y > 0) & (y < float("inf")), refined, y)


def lstm_float32(lstm, x, h_0, c_0, weights, seq_lengths, *args, **kwargs):
    """Runs `lstm` on float32 copies of its inputs; outputs come back in the inputs' dtypes.

    cuDNN has no bfloat16 LSTM ("bfloat16 support not implemented for LSTM"), so callers pass
    precision=HIGHEST. y, h_n and c_n keep the dtypes of x, h_0 and c_0: bf16 models and scan
    carries keep their types. seq_lengths stays int32. Added by jax-codemod (JAX003).
    """
    y, h_n, c_n = lstm(
        x.astype(jnp.float32),
        h_0.astype(jnp.float32),
        c_0.astype(jnp.float32),
        weights.astype(jnp.float32),
        seq_lengths,
        *args,
        **kwargs,
    )
    return y.astype(x.dtype), h_n.astype(h_0.dtype), c_n.astype(c_0.dtype)


# Math Mosaic TPU kernels have no lowering for (JAX007): each helper computes the function from
# exp, sqrt, atan2 and roll, which Mosaic TPU lowers. Their errors against XLA's own function are
# measured in docs/walls.md.


def expm1_tpu(x):
    """`jnp.expm1(x)` from exp, which Pallas Mosaic TPU kernels lower (expm1 they do not:
    "Unimplemented primitive in Pallas TPU lowering for tc: expm1"). Near 0, exp(x) - 1 loses
    every digit: a Taylor series there. Added by jax-codemod (JAX007).
    """
    series = x * (1.0 + x / 2.0 * (1.0 + x / 3.0 * (1.0 + x / 4.0 * (1.0 + x / 5.0 * (
        1.0 + x / 6.0 * (1.0 + x / 7.0 * (1.0 + x / 8.0 * (1.0 + x / 9.0))))))))
    return jnp.where(jnp.abs(x) < 0.5, series, jnp.exp(x) - 1.0)


def erfc_tpu(x):
    """`lax.erfc(x)` from exp, which Pallas Mosaic TPU kernels lower (erfc they do not:
    "Unimplemented primitive in Pallas TPU lowering for tc: erfc"). 1 - erf(x) loses every digit
    for large x; this Chebyshev fit (Numerical Recipes' erfcc) keeps a relative error below 1e-6
    up to x = 3, and below 1e-5 where erfc is a normal float32. Added by jax-codemod (JAX007).
    """
    z = jnp.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
    tail = t * jnp.exp(poly)
    return jnp.where(x >= 0, tail, 2.0 - tail)


def sinh_tpu(x):
    """`jnp.sinh(x)` from exp, which Pallas Mosaic TPU kernels lower (sinh they do not). A Taylor
    series near 0, where exp(x) - exp(-x) cancels; e^|x| / 2 taken as exp(|x| - log 2), so that it
    overflows where sinh does. Added by jax-codemod (JAX007).
    """
    half = jnp.exp(jnp.abs(x) - 0.6931471805599453)
    x2 = x * x
    series = x * (1.0 + x2 / 6.0 * (1.0 + x2 / 20.0 * (1.0 + x2 / 42.0 * (1.0 + x2 / 72.0))))
    away = half - 0.25 / half
    return jnp.where(jnp.abs(x) < 0.5, series, jnp.where(x < 0, -away, away))


def cosh_tpu(x):
    """`jnp.cosh(x)` from exp, which Pallas Mosaic TPU kernels lower (cosh they do not); e^|x| / 2
    taken as exp(|x| - log 2), so that it overflows where cosh does. Added by jax-codemod (JAX007).
    """
    half = jnp.exp(jnp.abs(x) - 0.6931471805599453)
    return half + 0.25 / half


def arcsin_tpu(x):
    """`jnp.arcsin(x)` as XLA expands it, 2 * atan2(x, 1 + sqrt((1 - x) * (1 + x))): Pallas Mosaic TPU
    kernels lower atan2 and sqrt, not asin. Added by jax-codemod (JAX007).
    """
    return 2.0 * jnp.arctan2(x, 1.0 + jnp.sqrt((1.0 - x) * (1.0 + x)))


def arccos_tpu(x):
    """`jnp.arccos(x)` as XLA expands it, 2 * atan2(sqrt((1 - x) * (1 + x)), 1 + x) (pi at -1): Pallas
    Mosaic TPU kernels lower atan2 and sqrt, not acos. Added by jax-codemod (JAX007).
    """
    return jnp.where(x != -1.0, 2.0 * jnp.arctan2(jnp.sqrt((1.0 - x) * (1.0 + x)), 1.0 + x), jnp.pi)


def cumsum_tpu(x, axis):
    """`jnp.cumsum(x, axis)` as log2(n) rolls and adds (a Hillis-Steele scan), which Pallas Mosaic
    TPU kernels lower (cumsum they do not). Exact for integers; floats are summed in another order.
    Added by jax-codemod (JAX007).
    """
    axis = axis % x.ndim
    index = lax.broadcasted_iota(jnp.int32, x.shape, axis)
    shift = 1
    while shift < x.shape[axis]:
        x = x + jnp.where(index >= shift, pltpu.roll(x, shift, axis), 0)
        shift *= 2
    return x


def cumprod_tpu(x, axis):
    """`jnp.cumprod(x, axis)` as log2(n) rolls and products (a Hillis-Steele scan), which Pallas
    Mosaic TPU kernels lower (cumprod they do not). Exact for integers; floats are multiplied in
    another order. Added by jax-codemod (JAX007).
    """
    axis = axis % x.ndim
    index = lax.broadcasted_iota(jnp.int32, x.shape, axis)
    shift = 1
    while shift < x.shape[axis]:
        x = x * jnp.where(index >= shift, pltpu.roll(x, shift, axis), 1)
        shift *= 2
    return x


# Index reductions under x64 (JAX005): Mosaic TPU takes only int32 indices, and its own argmax and
# argmin return the last of tied elements where jnp's return the first (bench/chip/argmax_ties.py).


def argmax_tpu(x, axis, keepdims=False):
    """`jnp.argmax(x, axis, keepdims=keepdims)` with int32 indices, in a form Pallas Mosaic TPU
    kernels lower under x64 (jnp.argmax's int64 index they reject). Where elements tie, the first,
    as jnp.argmax returns: Mosaic TPU's own argmax returns the last (jax issue #34620). A NaN counts
    as the maximum, as in XLA. Added by jax-codemod (JAX005).
    """
    hit = (x == jnp.max(x, axis=axis, keepdims=True)) | (x != x)
    index = lax.broadcasted_iota(jnp.int32, x.shape, axis % x.ndim)
    return jnp.min(jnp.where(hit, index, x.shape[axis]), axis=axis, keepdims=keepdims)


def argmin_tpu(x, axis, keepdims=False):
    """`jnp.argmin(x, axis)` as argmax_tpu computes argmax: int32 indices, the first of tied elements
    (Mosaic TPU's own returns the last), a NaN counted as the minimum. Added by jax-codemod (JAX005).
    """
    hit = (x == jnp.min(x, axis=axis, keepdims=True)) | (x != x)
    index = lax.broadcasted_iota(jnp.int32, x.shape, axis % x.ndim)
    return jnp.min(jnp.where(hit, index, x.shape[axis]), axis=axis, keepdims=keepdims)


# Math Pallas Triton kernels have no lowering for (JAX007): each helper computes the function from
# what Triton lowers (floor, min, max, where, float32 division). Measured in docs/walls.md.


def erf_triton(x):
    """`lax.erf(x)` as XLA computes a float32 erf, a rational fit on [-4, 4] (Eigen's), from what
    Pallas Triton kernels lower (erf they do not: "Unimplemented primitive in Pallas Triton
    lowering: erf"). bfloat16 and float16 are computed in float32, as XLA does, and cast back.
    Added by jax-codemod (JAX007).
    """
    z = jnp.clip(x.astype(jnp.float32), -4.0, 4.0)
    z2 = z * z
    p = -2.72614225801306e-10
    for c in (2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05, -7.34990630326855e-04,
              -2.95459980854025e-03, -1.60960333262415e-02):
        p = p * z2 + c
    q = -1.45660718464996e-05
    for c in (-2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03, -1.42647390514189e-02):
        q = q * z2 + c
    return (z * (p / q)).astype(x.dtype)  # p / q first: z * p underflows for tiny z


def round_triton(x, decimals=0, half_to_even=True):
    """`jnp.round(x, decimals)` (half to even; `lax.round(x)`'s half away from zero with
    half_to_even=False) from floor, which Pallas Triton kernels lower (round they do not:
    "Unimplemented primitive in Pallas Triton lowering: round"). Exact: |x| - floor(|x|) is exact
    in floating point, and the result is the one round gives for every input, -0.0, infinities and
    NaN included; decimals scale as jnp.round scales (a bfloat16 or float16 quotient is divided in
    float32, which rounds it as the narrow division would). Added by jax-codemod (JAX007).
    """
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return x  # jnp.round leaves integers as they are
    dtype = x.dtype
    if decimals:
        x = x.astype(jnp.float32) if dtype == jnp.float16 else x
        factor = jnp.asarray(10.0 ** decimals, x.dtype)
        x = x * factor
    magnitude = jnp.abs(x)
    whole = jnp.floor(magnitude)
    part = magnitude - whole
    tie_up = (whole - 2.0 * jnp.floor(whole * 0.5) == 1.0) if half_to_even else True
    up = (part > 0.5) | ((part == 0.5) & tie_up)
    rounded = whole + jnp.where(up, 1.0, 0.0).astype(x.dtype)
    rounded = jnp.where(jnp.signbit(x), -rounded, rounded)  # -0.0 and -0.3 round to -0.0
    if decimals:
        rounded = (rounded.astype(jnp.float32) / factor.astype(jnp.float32)).astype(x.dtype)
    return rounded.astype(dtype)


def divide_triton(x, y):
    """`x / y`, a bfloat16 or float16 quotient computed in float32 and rounded back, which Pallas Triton
    kernels lower (the narrow division they do not: "unsupported types: tensor<8x128xbf16> and
    tensor<8x128xbf16>"). Exact: float32 carries more than twice the precision of either plus two
    bits, so the quotient rounded back is the correctly rounded narrow one. Other dtypes divide as
    written. Added by jax-codemod (JAX007).
    """
    dtype = jnp.result_type(x, y)
    if dtype not in (jnp.dtype(jnp.bfloat16), jnp.dtype(jnp.float16)):
        return x / y
    # Each operand in the quotient's dtype first, as jax promotes them (a Python 0.1 becomes bfloat16's 0.1).
    return (jnp.asarray(x, dtype).astype(jnp.float32) / jnp.asarray(y, dtype).astype(jnp.float32)).astype(dtype)


def bool_reduction_triton(x, axis=None, keepdims=False, *, every=True):
    """`jnp.all(x, axis, keepdims=keepdims)` (`jnp.any` with every=False) as a min (max) over 0/1
    int32 values, one axis at a time, which Pallas Triton kernels lower (the boolean reductions they
    do not: "Unimplemented primitive in Pallas Triton lowering: reduce_and", reduce_or). Exact.
    Added by jax-codemod (JAX007).
    """
    values = jnp.asarray(x).astype(jnp.bool_).astype(jnp.int32)
    axes = range(values.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    for each in sorted((a % values.ndim for a in axes), reverse=True):
        values = (jnp.min if every else jnp.max)(values, axis=each, keepdims=keepdims)
    return values == 1
