# Matmul precision of the recurrent encoder, as jax.default_matmul_precision spells it.
RNN_PRECISION = "bfloat16"
