import dataclasses

from jax import lax


@dataclasses.dataclass(frozen=True)
class EncoderConfig:
    hidden: int = 16
    dropout: float = 0.0
    precision: lax.Precision = lax.Precision.DEFAULT
