"""JAX125: jax 0.7.0 renamed Layout to Format and DeviceLocalLayout to Layout, in one release.

Code written against the old names uses DeviceLocalLayout; there `Layout` means what is now Format.
Both renames are one fix, reported once per module: applying one alone would silently change what
`Layout` means (and `-i` or a suppression could do just that with two fixes).
"""

from __future__ import annotations

import ast

from codemods.engine.fixes import FixPlan
from codemods.upgrades.scan import Reference, guarded, references_to
from codemods.upgrades.transform import Handler, JaxUpgrade, plan_import_move

DEVICE_LOCAL_LAYOUT = "jax.experimental.layout.DeviceLocalLayout"
LAYOUT = "jax.experimental.layout.Layout"
FORMAT = "jax.experimental.layout.Format"


def _renames(transform: JaxUpgrade, reference: Reference) -> None:
    if transform.findings:
        return  # the module's first reference reports them all
    module = transform.module
    fix = FixPlan()
    layouts = [r for r in references_to(module, LAYOUT, transform.row) if not guarded(module, r.node)]
    olds = [r for r in references_to(module, DEVICE_LOCAL_LAYOUT, transform.row) if not guarded(module, r.node)]
    released: frozenset[str] = frozenset()
    for group, new in ((layouts, FORMAT), (olds, LAYOUT)):  # Layout first: its name is then free for the other
        for found in group:
            if isinstance(found.node, ast.alias):
                _, new_text = plan_import_move(transform, found, new, fix, released)
                if found.node.name == "Layout" and " as " not in new_text:
                    released = frozenset({"Layout"})
            elif isinstance(found.node, ast.Attribute):
                # `owner.Layout`: the owner is the layout module (that is how the reference was found),
                # which has the new name too; what JaxUpgrade.spell would answer, which never fails here.
                transform.replace(fix, found.node, f"{module.segment(found.node.value)}.{new.rpartition('.')[2]}")
    count = len(layouts) + len(olds)
    transform.fixed(reference.node, "DeviceLocalLayout, Layout", f"Layout, Format ({count} references, one fix)", fix)


HANDLERS: dict[str, Handler] = {"JAX125": _renames}
