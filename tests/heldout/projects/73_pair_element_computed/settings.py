import os

from jax import lax

# The second operand's level comes from the environment (HIGHEST unless set).
LEVEL = getattr(lax.Precision, os.environ.get("QK_LEVEL", "HIGHEST"))
