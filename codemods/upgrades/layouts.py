"""JAX126: `Layout` means Format only in code written against jax < 0.7.0, where it said DeviceLocalLayout too."""

from __future__ import annotations

from codemods.analysis.module import ModuleIndex
from codemods.api_changes import ApiChange
from codemods.upgrades.scan import Finder, Reference, references_to

OLD_API = "jax.experimental.layout.DeviceLocalLayout"


def _old_layouts(module: ModuleIndex, row: ApiChange) -> list[Reference]:
    """The module's references to `Layout`, when it also names DeviceLocalLayout (else `Layout` is
    already the new class and nothing changes)."""
    if not references_to(module, OLD_API):
        return []
    return references_to(module, row.old[0], row)


FINDERS: dict[str, Finder] = {"JAX126": _old_layouts}
