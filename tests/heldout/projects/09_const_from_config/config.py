"""Numerics knobs shared by the kernels."""
import jax
from jax import lax

ATTN_LOGITS_PRECISION = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)  # value
SCALE = 0.125
