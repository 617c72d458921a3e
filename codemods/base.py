"""What every transform shares: the file's one analysis, kernel scope, planned edits and findings.

A transform reads the module through the stdlib-`ast` analysis (`ModuleIndex`: qualified names,
scopes, kernel bodies) and plans: it reports findings and schedules edits over source spans. The
engine applies the edits of every transform at once (codemods/engine/fixes.py) and verifies them.
Nothing here imports libcst: most files plan no edit, and then libcst is never loaded.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from abc import ABC, abstractmethod
from typing import Callable, ClassVar, Optional

from codemods.analysis.kernel_scope import Backends, KernelScope, find_kernels
from codemods.analysis.module import FunctionNode, ModuleIndex
from codemods.analysis.module_helpers import Helper, HelperInserter
from codemods.engine.fixes import Edit, FixPlan, import_spec
from codemods.engine.report import Finding, Kind
from codemods.rules import Rule
from codemods.settings import Scope, Settings


# `# jax-codemod: ignore` or `# jax-codemod: ignore[JAX001, JAX002]`, anywhere in a comment.
_SUPPRESSION = re.compile(r"jax-codemod:\s*ignore(?:\[([^\]]*)\])?")


class FileAnalysis:
    """One module's analysis, computed once and shared by every transform that runs on it."""

    def __init__(self, module: ModuleIndex, settings: Settings,
                 proven: Optional[dict[str, frozenset[int]]] = None) -> None:
        self.module = module
        self.settings = settings
        # Lines a traceback proves to hold a failing call, by rule (`jax-codemod explain`).
        self.proven = proven or {}
        self.plan = FixPlan()
        self.helpers = HelperInserter(module, self.plan, settings.helpers_module)
        self._kernels: Optional[KernelScope] = None
        self.suppressions = _suppressions(module.text)
        self.suppressed = 0  # findings silenced by a suppression comment, for the summary

    @property
    def kernels(self) -> KernelScope:
        if self._kernels is None:
            self._kernels = find_kernels(self.module)
        return self._kernels


def _suppressions(text: str) -> dict[int, Optional[frozenset[str]]]:
    """Line -> the rule codes its comment silences (None: every rule). Read from real comments
    (the tokenizer's), so a string that mentions the marker silences nothing."""
    if "jax-codemod:" not in text:
        return {}
    found: dict[int, Optional[frozenset[str]]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            match = _SUPPRESSION.search(token.string) if token.type == tokenize.COMMENT else None
            if match:
                codes = match.group(1)
                found[token.start[0]] = None if codes is None else frozenset(
                    code.strip().upper() for code in codes.split(",") if code.strip())
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


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

    def matches(self, call: ast.Call) -> bool:
        """Whether `call` is one this rule rewrites or reports, wherever it sits."""
        return False

    def proven(self, call: ast.Call) -> bool:
        """A traceback proved that this call fails in a kernel (`jax-codemod explain`)."""
        lines = self.analysis.proven.get(self.RULE.code, frozenset())
        return any(call.lineno <= line <= call.end_lineno for line in lines)

    def rejecting_backends(self, call: ast.Call, rejecters: Backends) -> Backends:
        """The backends among `rejecters` that the code at `call` may be lowered for: empty when
        the rule has nothing to do there. Outside kernels nothing rejects (XLA honours the code),
        except with --scope all, where every rejecter counts, and where a traceback proved that
        the call fails in a kernel static analysis cannot see."""
        if self.settings.scope is Scope.ALL or self.proven(call):
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
        if self.suppressed(call):
            return True
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
        self.findings[self._shared_findings[kernel]] = Finding(
            self.RULE.code, Kind.MANUAL, line, column, message, *self.module.end_position(uses[0]))

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

    def suppressed(self, node: ast.AST) -> bool:
        """Whether a `# jax-codemod: ignore[...]` comment on the finding's line silences this rule
        there (counted: the summary says how many findings were silenced)."""
        line, _ = self.module.position(node)
        if line not in self.analysis.suppressions:
            return False
        codes = self.analysis.suppressions[line]
        if codes is not None and self.RULE.code not in codes:
            return False
        self.analysis.suppressed += 1
        return True

    def report(self, node: ast.AST, kind: Kind, message: str) -> None:
        """A finding, unless a suppression comment silences it."""
        if not self.suppressed(node):
            self.record(node, kind, message)

    def record(self, node: ast.AST, kind: Kind, message: str) -> None:
        """A finding whose suppression the caller has already checked (before making its fix)."""
        line, column = self.module.position(node)
        self.findings.append(Finding(self.RULE.code, kind, line, column, message, *self.module.end_position(node)))
