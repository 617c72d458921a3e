from jax import lax

# Per-stage matmul precision: the encoder is the hot loop.
PRECISIONS = {"encoder": lax.Precision.DEFAULT, "refiner": lax.Precision.HIGH}
