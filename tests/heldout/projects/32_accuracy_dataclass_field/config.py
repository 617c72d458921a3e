import dataclasses

from jax import lax


@dataclasses.dataclass(frozen=True)
class NormConfig:
    eps: float = 1e-5
    accuracy: object = lax.AccuracyMode.HIGHEST  # value
