"""Helper tables the kernels and the reference code read."""
from jax import lax

P = lax.Precision

# per model family: how the projections multiply
PRECISIONS = {
    "mixed": P.HIGHEST,
    "fast": P.DEFAULT,
}

# the reference implementation's own table
REF_PRECISIONS = {"mixed": (P.HIGHEST, P.DEFAULT)}
