import dataclasses
from typing import Callable

import dots


@dataclasses.dataclass
class Config:
    dot_fn: Callable = dots.bf16_acts_f32_weights
    interpret: bool = False
