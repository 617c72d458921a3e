from typing import NamedTuple


class NormConfig(NamedTuple):
    eps: float = 1e-6
    rsqrt_opts: dict = {}
