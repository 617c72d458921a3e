"""Where a module turns jax_enable_x64 on: the flag is process-wide, so a module that turns it on
puts every kernel the process lowers under x64 (JAX005 reads it of its own module and, through the
project index, of the others)."""

from __future__ import annotations

import ast
from typing import Optional

from codemods.analysis.module import ModuleIndex

# How a module turns x64 on: a config name, or jax's context managers.
_X64_NAMES = frozenset({"jax_enable_x64", "JAX_ENABLE_X64"})
_X64_FUNCTIONS = frozenset({"jax.experimental.enable_x64", "jax.enable_x64"})
_OFF = (False, 0, "0", "false", "False")


def says_x64(raw: bytes) -> bool:
    """Whether the bytes may turn x64 on, by a name that says so (`jax_enable_x64`, `JAX_ENABLE_X64`,
    `enable_x64`): no parse where none does (`x64` alone is in many a platform's name). A module that
    calls enable_x64 by a name another module re-exports it as is seen by its own rules only."""
    return b"enable_x64" in raw or b"ENABLE_X64" in raw


def x64_switch(module: ModuleIndex) -> Optional[ast.AST]:
    """The first node where the module may turn jax_enable_x64 on: `jax.config.update("jax_enable_x64",
    ...)` with anything but False, `os.environ["JAX_ENABLE_X64"] = ...`, `jax.experimental.enable_x64()`."""
    if "x64" not in module.text.lower() and not any("x64" in name.lower() for name in module.through.values()):
        return None  # every spelling says x64 (its import, or what another module's import reads as): no walk
    turned_off = {id(call.args[0]) for call in module.calls if len(call.args) == 2
                  and isinstance(call.args[1], ast.Constant) and call.args[1].value in _OFF}
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Constant) and node.value in _X64_NAMES:
            if id(node) not in turned_off:
                return node
        elif isinstance(node, ast.Attribute) and node.attr == "jax_enable_x64":
            return node
        elif isinstance(node, (ast.Name, ast.Attribute)) and module.qualified_names(node) & _X64_FUNCTIONS:
            return node
    return None
