from jax import lax

OPERAND_PRECISIONS = ("DEFAULT", "HIGHEST")
PAIR = tuple(lax.Precision[name] for name in OPERAND_PRECISIONS)  # value
