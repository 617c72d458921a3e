from jax import lax

EXP_ACCURACY = lax.AccuracyMode.HIGHEST  # value
