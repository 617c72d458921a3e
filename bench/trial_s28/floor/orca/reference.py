"""Plain XLA reference implementations (no kernels)."""
import jax.numpy as jnp
from jax import lax

from orca import tables


def mm_ref(x, w):
    return jnp.dot(x, w, precision=tables.REF_PRECISIONS["mixed"])


def act_ref(x):
    return x * lax.logistic(x, accuracy=lax.Tolerance(atol=1e-6, rtol=1e-6, ulps=2))
