import dataclasses
from typing import Callable

import bodies


@dataclasses.dataclass
class KernelSpec:
    name: str = "mixed"
    body: Callable = bodies.mixed_body
