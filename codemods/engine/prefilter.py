"""Stage 2: rule files out before libcst sees them.

libcst's metadata (scopes, qualified names) costs seconds on a large module, so a file is handed
to a transform only when two cheap tests pass: its bytes contain the transform's words, and the
stdlib `ast` (C-fast) finds a call that could be a target — by the called name, resolving
`from ... import x as y` aliases — plus, for kernel-scoped transforms, a mention of a Pallas
kernel launcher (`pl.pallas_call`, `plgpu.kernel`, `from jax.experimental.pallas import kernel`).
Both tests only ever say "maybe": the libcst pass decides.
"""

from __future__ import annotations

import ast
from typing import Optional, Sequence

PALLAS_MODULE_WORD = "pallas"
# Last name component of every kernel launcher (see codemods.analysis.kernel_scope.LAUNCHERS).
LAUNCHER_NAMES = frozenset(
    {"pallas_call", "kernel", "core_map", "emit_pipeline", "emit_pipeline_warp_specialized",
     "emit_pipeline_with_allocations"}
)


class SyntaxSummary:
    """What the stdlib parser sees: the names called in the file, and whether it may launch kernels."""

    def __init__(self, tree: ast.Module) -> None:
        aliases: dict[str, str] = {}
        self.mentions_launcher = False
        calls: list[tuple[str, ast.Call]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                calls.append((_called_name(node.func), node))
            elif isinstance(node, ast.Attribute):
                self.mentions_launcher |= node.attr in LAUNCHER_NAMES
            elif isinstance(node, ast.ImportFrom):
                from_pallas = PALLAS_MODULE_WORD in (node.module or "")
                for alias in node.names:
                    if alias.asname:
                        aliases[alias.asname] = alias.name
                    self.mentions_launcher |= from_pallas and alias.name in LAUNCHER_NAMES
        self.calls = [(aliases.get(name, name), call) for name, call in calls if name]


def summarize(source: bytes) -> Optional[SyntaxSummary]:
    """None when the stdlib cannot parse it (e.g. newer syntax than this Python): then libcst decides."""
    try:
        return SyntaxSummary(ast.parse(source))
    except (SyntaxError, ValueError):
        return None


def _called_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def has_keyword(call: ast.Call, keyword: str) -> bool:
    """`keyword=` is passed, or `**kwargs` might pass it."""
    return any(k.arg in (keyword, None) for k in call.keywords)


def may_pass(call: ast.Call, keyword: str, position: Optional[int]) -> bool:
    """The argument may be given: by keyword, through **kwargs, or positionally (or via *args)."""
    if has_keyword(call, keyword):
        return True
    if position is None:
        return False
    return len(call.args) > position or any(isinstance(a, ast.Starred) for a in call.args)


def select_for_file(transforms: Sequence[type], summary: Optional[SyntaxSummary], settings) -> list[type]:
    """The transforms worth running on a file, given its syntax summary."""
    if summary is None:
        return list(transforms)
    return [t for t in transforms if t.worth_parsing(summary, settings)]
