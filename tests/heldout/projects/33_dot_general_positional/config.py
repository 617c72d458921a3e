from jax import lax

CONTRACT = (((1,), (0,)), ((), ()))
PAIR = (lax.Precision.HIGHEST, lax.Precision.DEFAULT)  # value
