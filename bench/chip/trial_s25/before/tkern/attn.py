"""Attention kernels, written as methods of one class that carries its config."""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


class AttnKernels:
    """The attention kernels of one layer; `cfg` is the layer's AttnConfig."""

    def __init__(self, cfg):
        self.cfg = cfg

    def score_kernel(self, q_ref, k_ref, o_ref):
        s = jnp.dot(q_ref[...], k_ref[...].T, precision=self.cfg.precision)
        o_ref[...] = s * self.cfg.scale

    def softmax_kernel(self, s_ref, o_ref):
        s = s_ref[...]
        e = lax.exp(s - jnp.max(s, axis=-1, keepdims=True), accuracy=self.cfg.exp_accuracy)
        o_ref[...] = e / jnp.sum(e, axis=-1, keepdims=True)

    @staticmethod
    def pv_kernel(p_ref, v_ref, o_ref):
        dims = (((1,), (0,)), ((), ()))
        o_ref[...] = lax.dot_general(
            p_ref[...], v_ref[...], dims,
            precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST),
        )

    def erfc_gate_kernel(self, x_ref, o_ref):
        x = x_ref[...]
        o_ref[...] = x * lax.erfc(x * self.cfg.scale)

    def _call(self, body, *args, out_shape):
        params = pltpu.TPUCompilerParams(dimension_semantics=())
        return pl.pallas_call(body, out_shape=out_shape, compiler_params=params)(*args)

    def scores(self, q, k):
        out = jax.ShapeDtypeStruct((q.shape[0], k.shape[0]), jnp.float32)
        return self._call(self.score_kernel, q, k, out_shape=out)

    def erfc_gate(self, x):
        return self._call(self.erfc_gate_kernel, x, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))
