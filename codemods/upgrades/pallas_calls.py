"""JAX1xx rows whose call changes shape, in Pallas: pl.dot, pltpu.repeat, pl.load/store, compiler_params dicts, BlockSpec order."""

from __future__ import annotations

from codemods.upgrades.scan import Finder
from codemods.upgrades.transform import Handler

HANDLERS: dict[str, Handler] = {}
FINDERS: dict[str, Finder] = {}
