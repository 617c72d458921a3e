from jax import lax

REF_ACCURACY = lax.AccuracyMode.HIGHEST
