"""Precision settings, typed with Python 3.12 aliases."""
from jax import lax
from jax.lax import Precision

type Pair = tuple[Precision, Precision]
type PrecisionLike = Precision | Pair

# the accumulation reads x at full precision, the weights as stored
MIXED: Pair = (Precision.HIGHEST, Precision.DEFAULT)

TOL = lax.Tolerance(atol=0.0, rtol=1e-6, ulps=2)


def precision_for(mode: str) -> PrecisionLike:
    """The dot precision a mode string asks for."""
    match mode:
        case "fast":
            return Precision.DEFAULT
        case "mixed":
            return (Precision.DEFAULT, Precision.HIGHEST)
        case _:
            return Precision.HIGHEST
