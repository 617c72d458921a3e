"""Benchmark settings."""
from jax import lax

PAIR = (lax.Precision.HIGH, lax.Precision.DEFAULT)   # examples/attention's PAIR is a scalar
TOL = lax.Tolerance(atol=1e-6, rtol=1e-6, ulps=2)
HINT = {"accuracy": lax.Precision.HIGHEST}
