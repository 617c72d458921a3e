import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas.triton import CompilerParams as TritonCompilerParams

from kernels import rowwise_dot


def _out(x, w):
    return jax.ShapeDtypeStruct((x.shape[0], w.shape[1]), x.dtype)


def on_gpu(x, w):
    return pl.pallas_call(rowwise_dot, out_shape=_out(x, w), compiler_params=TritonCompilerParams())(x, w)


def _forward(*args, **kwargs):
    return pl.pallas_call(*args, **kwargs)


def on_tpu(x, w):
    return _forward(rowwise_dot, out_shape=_out(x, w), compiler_params=pltpu.CompilerParams())(x, w)
