from jax import lax

ATTN_PRECISION = lax.Precision.HIGHEST
MLP_PRECISION = "bfloat16"
