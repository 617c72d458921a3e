from jax import lax


class Numerics:
    """Project-wide numerics knobs."""

    MATMUL = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)  # value
    SOFTMAX = lax.Precision.HIGHEST
