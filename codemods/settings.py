"""Options every transform reads; one frozen object so worker processes get the same view."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional

from codemods.capabilities import Version


class Scope(str, enum.Enum):
    KERNELS = "kernels"  # only inside Pallas kernel bodies: outside them XLA honours the code
    ALL = "all"  # everywhere, for users who want the hints gone


class PrecisionPolicy(str, enum.Enum):
    NEAREST = "nearest"  # the least accurate scalar the lowering accepts that loses no accuracy
    HIGHEST = "highest"  # always Precision.HIGHEST (fp32 contraction)


@dataclass(frozen=True)
class Settings:
    jax_version: Optional[Version] = None  # None: unknown, answer conservatively
    scope: Scope = Scope.KERNELS
    precision_policy: PrecisionPolicy = PrecisionPolicy.NEAREST
    helpers_module: Optional[str] = None  # import JAX002/JAX003 helpers from here instead of inlining them
    unsafe_fixes: bool = False  # apply fixes that change numerics or need judgement too (--unsafe-fixes)
    # The lowest jax the project supports (`jax>=0.4.30` in project.dependencies): a JAX1xx fix must
    # not use what that release lacks. None: not declared.
    jax_floor: Optional[Version] = None
    # What decided the target and the floor (`.venv`, `--jax-version`; `pyproject.toml`), for the
    # summary line; no rule reads them, so they are left out of comparisons and the cache key.
    jax_version_source: str = field(default="", compare=False, repr=False)
    jax_floor_source: str = field(default="", compare=False, repr=False)
