"""Which precision a contraction asks for, by the dtype of its operands."""
import jax.numpy as jnp
from jax.lax import Precision


def prec_for(dtype):
    return Precision.HIGHEST if dtype == jnp.float32 else Precision.DEFAULT


def pair_for(dtype):
    # float32 activations stay exact; the weights may be rounded to bf16 passes
    return Precision.HIGHEST if dtype == jnp.float32 else Precision.DEFAULT
