from jax import lax

# One precision for the whole model: the recurrent layer and the projection head.
LSTM_PRECISION = lax.Precision.DEFAULT
