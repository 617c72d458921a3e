from jax import lax

import norms
from config import NormConfig

NORM = NormConfig(eps=1e-5, rsqrt_opts={"accuracy": lax.AccuracyMode.HIGHEST})  # value


def pre_norm(x):
    return norms.rms_norm(x, NORM)
