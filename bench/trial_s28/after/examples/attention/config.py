"""Settings of the attention example."""
from jax import lax

P = lax.Precision

SCORE_PRECISION = P.HIGHEST   # q in full precision, k as stored
PROJ_PRECISION = P.HIGHEST       # handed to orca's matmul
REF_PRECISION = (P.HIGHEST, P.DEFAULT)     # the kernel and the check below both read it
PAIR = P.HIGHEST                          # a scalar here; benchmarks/softmax's PAIR is a pair
