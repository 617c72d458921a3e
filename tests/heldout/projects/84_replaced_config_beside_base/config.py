import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class MatmulConfig:
    block: int = 128
    precision: Any = None


BASE = MatmulConfig()
