"""Stage 2: rule files out before libcst sees them.

libcst's metadata (scopes, qualified names) costs seconds on a large module, so a file is handed
to a transform only when two cheap tests pass: its bytes contain the transform's words, and the
stdlib `ast` (C-fast) finds a call that could be a target — by the called name, resolving
`from ... import x as y` aliases — plus, for kernel-scoped transforms, a mention of a Pallas
kernel launcher (`pl.pallas_call`, `plgpu.kernel`, `from jax.experimental.pallas import kernel`)
and a candidate call inside a function that may be a kernel body (a superset, by bare names, of what
`codemods.analysis.kernel_scope` finds). A rule's candidate test may rule out more (JAX001: calls
whose precision already lowers as written).
Both tests only ever say "maybe": the libcst pass decides. tests/test_prefilter.py checks that a file
ruled out is one the transform leaves alone.
"""

from __future__ import annotations

import ast
from typing import Optional, Sequence

PALLAS_MODULE_WORD = "pallas"
# Kernel launcher -> position of the kernel body among its arguments; None: used only as a decorator.
LAUNCHERS: dict[str, Optional[int]] = {
    "jax.experimental.pallas.pallas_call": 0,
    "jax.experimental.pallas.kernel": 0,
    "jax.experimental.pallas.core_map": None,
    "jax.experimental.pallas.mosaic_gpu.kernel": 0,
    "jax.experimental.pallas.mosaic_gpu.emit_pipeline": 0,
    "jax.experimental.pallas.mosaic_gpu.emit_pipeline_warp_specialized": 0,
    "jax.experimental.pallas.tpu.emit_pipeline": 0,
    "jax.experimental.pallas.tpu.emit_pipeline_with_allocations": 0,
}
# Their last name components, for the ast test (which sees names, not qualified names).
LAUNCHER_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in LAUNCHERS)


class SyntaxSummary:
    """What the stdlib parser sees: the names called in the file, and whether it may launch kernels."""

    def __init__(self, tree: ast.Module) -> None:
        aliases: dict[str, str] = {}
        self.mentions_launcher = False
        calls: list[tuple[str, ast.Call]] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                calls.append((called_name(node.func), node))
            elif isinstance(node, ast.Attribute):
                self.mentions_launcher |= node.attr in LAUNCHER_NAMES
            elif isinstance(node, ast.ImportFrom):
                from_pallas = PALLAS_MODULE_WORD in (node.module or "")
                for alias in node.names:
                    if alias.asname:
                        aliases[alias.asname] = alias.name
                    self.mentions_launcher |= from_pallas and alias.name in LAUNCHER_NAMES
        self.calls = [(aliases.get(name, name), call) for name, call in calls if name]
        self._tree = tree
        self._aliases = aliases
        self._kernels: Optional[_KernelIndex] = None

    def resolve(self, name: str) -> str:
        """The imported name behind a `from ... import name as alias` alias."""
        return self._aliases.get(name, name)

    def may_run_in_kernel(self, call: ast.Call) -> bool:
        """False only when `call` cannot sit in a kernel body as KernelScopeProvider finds them."""
        if self._kernels is None:
            self._kernels = _KernelIndex(self._tree, self._aliases)
        return self._kernels.may_contain(call)


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


class _KernelIndex:
    """A superset of the kernel bodies `codemods.analysis.kernel_scope` finds, by bare names.

    KernelScopeProvider takes the body argument of a launcher call (resolving qualified names,
    functools.partial, kernel factories and variables) and functions decorated with a launcher, then
    everything those refer to by name in the module. Here every argument of any call whose called
    name is a launcher's, and every function whose decorators mention one, is an entry; from the
    entries, every function or lambda written inside them, every function named by a name or
    attribute they mention, and every value assigned to such a name, is followed until nothing new
    turns up. A call may run in a kernel when one of the functions around it is in that set.
    """

    def __init__(self, tree: ast.Module, aliases: dict[str, str]) -> None:
        self._aliases = aliases
        self.enclosing: dict[ast.Call, ast.AST] = {}  # innermost function or lambda around a call
        self.parent: dict[ast.AST, Optional[ast.AST]] = {}  # the function around each function
        by_name: dict[str, list[ast.AST]] = {}
        calls_by_name: dict[str, list[ast.Call]] = {}  # `tiled(body)` where `tiled = partial(launcher, ...)`
        values: dict[str, list[ast.AST]] = {}
        pending: list[ast.AST] = []  # subtrees whose functions and names may be (or lead to) kernels
        stack: list[tuple[ast.AST, Optional[ast.AST]]] = [(tree, None)]
        while stack:  # not recursive: deeply nested expressions must not hit the recursion limit
            node, function = stack.pop()
            if isinstance(node, ast.Call):
                if function is not None:
                    self.enclosing[node] = function
                # pallas_call(body, ...), and partial(pallas_call, body?, ...) or its call with the body
                if self._launcher(node.func) or any(self._launcher(arg) for arg in node.args) or (
                    isinstance(node.func, ast.Call) and any(self._launcher(arg) for arg in node.func.args)
                ):
                    pending.extend(node.args)
                    pending.extend(keyword.value for keyword in node.keywords)
                if isinstance(node.func, ast.Name):
                    calls_by_name.setdefault(node.func.id, []).append(node)
            elif isinstance(node, _FUNCTIONS):
                self.parent[node] = function
                if not isinstance(node, ast.Lambda):
                    by_name.setdefault(node.name, []).append(node)
                    if any(self._mentions_launcher(d) for d in node.decorator_list):
                        pending.append(node)
                function = node  # its decorators and defaults too, as KernelScopeProvider counts them
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if node.value is not None:
                    for target in targets:
                        for name in ast.walk(target):
                            if isinstance(name, ast.Name):
                                values.setdefault(name.id, []).append(node.value)
            stack.extend((child, function) for child in ast.iter_child_nodes(node))

        for name, assigned in values.items():
            if any(self._mentions_launcher(value) for value in assigned):
                for call in calls_by_name.get(name, ()):
                    pending.extend(call.args)
                    pending.extend(keyword.value for keyword in call.keywords)

        self.kernels: set[ast.AST] = set()
        followed: set[str] = set()
        while pending:
            for node in ast.walk(pending.pop()):
                if isinstance(node, _FUNCTIONS):
                    self.kernels.add(node)
                if isinstance(node, ast.Name):
                    name = node.id
                elif isinstance(node, ast.Attribute):
                    name = node.attr
                else:
                    continue
                if name in followed:
                    continue
                followed.add(name)
                pending.extend(f for f in by_name.get(name, ()) if f not in self.kernels)
                pending.extend(values.get(name, ()))

    def _launcher(self, expression: ast.AST) -> bool:
        name = called_name(expression)
        return self._aliases.get(name, name) in LAUNCHER_NAMES

    def _mentions_launcher(self, expression: ast.AST) -> bool:
        return any(
            isinstance(node, (ast.Name, ast.Attribute)) and self._launcher(node) for node in ast.walk(expression)
        )

    def may_contain(self, call: ast.Call) -> bool:
        function = self.enclosing.get(call)
        while function is not None:
            if function in self.kernels:
                return True
            function = self.parent.get(function)
        return False


def summarize(source: bytes) -> Optional[SyntaxSummary]:
    """None when the stdlib cannot parse it (e.g. newer syntax than this Python): then libcst decides."""
    try:
        return SyntaxSummary(ast.parse(source))
    except (SyntaxError, ValueError):
        return None


def called_name(func: ast.expr) -> str:
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
