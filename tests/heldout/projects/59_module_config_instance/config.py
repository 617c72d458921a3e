import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class LayerConfig:
    features: int = 128
    precision: Any = None
