from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def tpu_launch(*args, **kwargs):
    """pl.pallas_call with the project's TPU defaults."""
    kwargs.setdefault("compiler_params", pltpu.CompilerParams())
    return pl.pallas_call(*args, **kwargs)
