"""JAX1xx rows whose call changes shape, outside Pallas: pjit, shard_map, jnp.clip, enable_x64."""

from __future__ import annotations

from codemods.upgrades.scan import Finder
from codemods.upgrades.transform import Handler

HANDLERS: dict[str, Handler] = {}
FINDERS: dict[str, Finder] = {}
