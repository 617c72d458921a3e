"""What every transform shares: the file's one analysis, kernel scope, planned edits and findings.

A transform reads the module through the stdlib-`ast` analysis (`ModuleIndex`: qualified names,
scopes, kernel bodies) and plans: it reports findings and schedules edits over source spans. The
engine applies the edits of every transform at once (codemods/engine/fixes.py) and verifies them.
Nothing here imports libcst: most files plan no edit, and then libcst is never loaded.
"""

from __future__ import annotations

import ast
from abc import ABC, abstractmethod
from typing import Callable, ClassVar, Optional

from codemods.analysis.kernel_scope import Backends, KernelScope, find_kernels
from codemods.analysis.module import FunctionNode, ModuleIndex
from codemods.analysis.module_helpers import Helper, HelperInserter, import_spec
from codemods.engine.fixes import Edit, FixPlan
from codemods.engine.report import Finding, Kind
from codemods.rules import Rule
from codemods.settings import Scope, Settings


class FileAnalysis:
    """One module's analysis, computed once and shared by every transform that runs on it."""

    def __init__(self, module: ModuleIndex, settings: Settings) -> None:
        self.module = module
        self.settings = settings
        self.plan = FixPlan()
        self.helpers = HelperInserter(module, self.plan, settings.helpers_module)
        self._kernels: Optional[KernelScope] = None

    @property
    def kernels(self) -> KernelScope:
        if self._kernels is None:
            self._kernels = find_kernels(self.module)
        return self._kernels


class JaxTransform(ABC):
    RULE: ClassVar[Rule]  # code, name and the byte prefilter

    def __init__(self, analysis: FileAnalysis) -> None:
        self.analysis = analysis
        self.module = analysis.module
        self.settings = analysis.settings
        self.findings: list[Finding] = []
        self._shared_uses: dict[ast.FunctionDef, list[ast.Call]] = {}
        self._shared_findings: dict[ast.FunctionDef, int] = {}

    @abstractmethod
    def plan(self) -> None:
        """Inspect the module, call `replace()`/`rewrite()` and `report()`."""

    # -- where a call runs --

    def target_kernel(self, node: ast.AST) -> Optional[FunctionNode]:
        return self.analysis.kernels.kernel_of(node)

    def rejecting_backends(self, call: ast.Call, rejecters: Backends) -> Backends:
        """The backends among `rejecters` that the code at `call` may be lowered for: empty when
        the rule has nothing to do there. Outside kernels nothing rejects (XLA honours the code),
        except with --scope all, where every rejecter counts."""
        if self.settings.scope is Scope.ALL:
            return rejecters
        return self.analysis.kernels.backends_of(call) & rejecters

    def shared_with_xla(self, call: ast.Call) -> bool:
        """A call that needs a rewrite but sits in a helper plain XLA code uses too: reported once per
        helper, not rewritten (rewriting it would change the XLA path)."""
        if self.settings.scope is Scope.ALL:
            return False
        kernel = self.target_kernel(call)
        if kernel is None or kernel not in self.analysis.kernels.shared:
            return False
        assert not isinstance(kernel, ast.Lambda)
        uses = self._shared_uses.setdefault(kernel, [])
        uses.append(call)
        if len(uses) == 1:
            self._shared_findings[kernel] = len(self.findings)
            self.findings.append(Finding(self.RULE.code, Kind.MANUAL, 0, 0, ""))  # filled in by _describe_shared
        self._describe_shared(kernel)
        return True

    def _describe_shared(self, kernel: ast.FunctionDef) -> None:
        uses = self._shared_uses[kernel]
        line, column = self.module.position(uses[0])
        lines = ", ".join(str(self.module.position(use)[0]) for use in uses)
        message = (f"`{kernel.name}` runs in kernels and in plain XLA code, and needs a rewrite for its kernel "
                   f"callers (line{'s' if len(uses) > 1 else ''} {lines}): rewriting it would change the XLA path "
                   "too; not rewritten (give the kernel its own copy)")
        self.findings[self._shared_findings[kernel]] = Finding(self.RULE.code, Kind.MANUAL, line, column, message)

    # -- planning edits --

    def replace(self, node: ast.AST, text: str) -> None:
        """Replace the source of `node` (its own parentheses stay) with `text`."""
        self.rewrite(node, lambda _code: text)

    def rewrite(self, node: ast.AST, change: Callable[[str], str]) -> None:
        """Replace the source of `node` with `change(source)`, edits inside it applied first."""
        start, end = self.module.span(node)
        self.analysis.plan.edits.append(Edit(start, end, change))

    def use_helper(self, helper: Helper) -> str:
        return self.analysis.helpers.use(helper)

    def forget_imports(self, node: ast.AST) -> None:
        """Let the imports `node` used go once nothing else uses them.

        Relative imports stay: which module they name depends on the file's package."""
        names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
        bindings = [binding for name in names for binding in self.module.bindings(name)]
        if any(binding.is_relative_import for binding in bindings):
            return
        for binding in bindings:
            if binding.statement is not None:
                spec = import_spec(binding.statement, binding.node)  # type: ignore[arg-type]
                self.analysis.plan.maybe_unused_imports[spec] = binding.name

    # -- findings --

    def report(self, node: ast.AST, kind: Kind, message: str) -> None:
        line, column = self.module.position(node)
        self.findings.append(Finding(self.RULE.code, kind, line, column, message))
