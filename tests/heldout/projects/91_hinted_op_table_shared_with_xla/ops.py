import functools

from jax import lax

# The elementwise ops a layer may pick by name.
OPS = {
    "rsqrt": functools.partial(lax.rsqrt, accuracy=lax.AccuracyMode.HIGHEST),
    "exp": lax.exp,
}
