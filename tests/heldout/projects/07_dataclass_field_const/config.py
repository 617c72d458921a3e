import dataclasses

import precisions


@dataclasses.dataclass(frozen=True)
class MatmulConfig:
    block_m: int = 8
    precision: tuple = precisions.MIXED
