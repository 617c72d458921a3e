"""Options every transform reads; one frozen object so worker processes get the same view."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Optional

from codemods.capabilities import Version

if TYPE_CHECKING:
    from codemods.floor import Floor


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
    # Each file's floor, from the nearest project folder above it that declares one (config.ProjectFloors:
    # a monorepo's projects each declare their own); None: `jax_floor` holds for every file (`--jax-floor`,
    # or the settings of one file). Read through `for_file`; out of comparisons and the cache key, which
    # take each file's floor instead.
    floor_of: "Optional[Callable[[str | os.PathLike[str]], Floor]]" = field(default=None, compare=False, repr=False)
    # Where the map work runs (`--executor`, codemods/engine/executors.py): `local` processes, or
    # `dask://HOST:PORT`. No rule reads it, and a result does not depend on it.
    executor: str = field(default="local", compare=False, repr=False)

    def for_file(self, path: "str | os.PathLike[str]") -> "Settings":
        """These settings for one file, with its own project's floor (FloorError where that project's
        declaration cannot be read). What the rules read, whoever calls them."""
        if self.floor_of is None:
            return self
        floor = self.floor_of(path)
        return replace(self, jax_floor=floor.version, jax_floor_source=floor.source, floor_of=None)

    def floor(self, path: "str | os.PathLike[str]") -> "Floor":
        """The floor `for_file` gives `path`, and the project folder it holds for (the summary's)."""
        from codemods.floor import Floor

        return self.floor_of(path) if self.floor_of is not None else Floor(self.jax_floor, self.jax_floor_source)
