"""What every transform shares: metadata, kernel scope, planned edits and findings.

A transform works in two steps. `plan()` looks at the whole module (with qualified names, scopes
and the kernel analysis) and schedules edits keyed by the original nodes; the traversal then
applies each edit to the updated node, so edits nested inside each other compose.
"""

from __future__ import annotations

from abc import abstractmethod
from contextlib import contextmanager
from dataclasses import replace
from typing import Callable, ClassVar, Iterator, Optional

import libcst as cst
from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand
from libcst.metadata import (
    CodePosition,
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedName,
    ScopeProvider,
)

from codemods.analysis.kernel_scope import FunctionNode, KernelScope, KernelScopeProvider
from codemods.analysis.names import qualified_names
from codemods.engine.report import Finding, Kind
from codemods.rules import Rule
from codemods.settings import Scope, Settings

Edit = Callable[[cst.CSTNode], cst.CSTNode]


class JaxCodemod(VisitorBasedCodemodCommand):
    RULE: ClassVar[Rule]  # code, name and the prefilters, importable without libcst

    # Positions are resolved only when there is something to report; qualified names are asked
    # of the scope per node: both are too costly to compute for every node of a large module.
    METADATA_DEPENDENCIES = (ScopeProvider, ParentNodeProvider, KernelScopeProvider)

    def __init__(self, context: CodemodContext, settings: Settings) -> None:
        super().__init__(context)
        self.settings = settings
        self.findings: list[Finding] = []
        self._edits: dict[cst.CSTNode, Edit] = {}
        self.kernel_scope = KernelScope()

    # -- planning --

    # Set by the runner when the module comes straight from the parser, so no node object appears
    # twice in it: libcst's defensive deep copy before computing metadata (as costly as a metadata
    # pass) can then be skipped. Unchanged files come back as the very same module object.
    unique_nodes: bool = False

    @contextmanager
    def _handle_metadata_reference(self, module: cst.Module) -> Iterator[cst.Module]:
        # libcst's own version, less the deep copy when the runner vouches for `module`.
        if not self.unique_nodes or self.context.metadata_manager is not None or self.should_allow_multiple_passes():
            with super()._handle_metadata_reference(module) as tree:
                yield tree
            return
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        previous = self.context.wrapper
        with self.resolve(wrapper):
            self.context = replace(self.context, wrapper=wrapper)
            try:
                yield wrapper.module
            finally:
                self.context = replace(self.context, wrapper=previous)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        """Plan first; walk the tree to apply edits only when there are any (most files have none)."""
        self.kernel_scope = self.get_metadata(KernelScopeProvider, tree)
        self.plan(tree)
        return tree.visit(self) if self._edits else tree

    @abstractmethod
    def plan(self, module: cst.Module) -> None:
        """Inspect the module, call `edit()` and `report()`."""

    def calls(self) -> list[cst.Call]:
        """Every call in the module, in source order (collected by the kernel-scope pass)."""
        return self.kernel_scope.calls

    def names(self, node: cst.CSTNode) -> set[QualifiedName]:
        return qualified_names(self.metadata, node)

    def target_kernel(self, call: cst.Call) -> Optional[FunctionNode]:
        return self.kernel_scope.kernel_of(call)

    def in_scope(self, call: cst.Call) -> bool:
        """Whether a call may be rewritten: inside a kernel body, or anywhere with --scope all."""
        if self.settings.scope is Scope.ALL:
            return True
        kernel = self.target_kernel(call)
        if kernel is None:
            return False
        if kernel in self.kernel_scope.shared:
            assert isinstance(kernel, cst.FunctionDef)
            self.report(call, Kind.MANUAL, f"`{kernel.name.value}` runs in kernels and in plain XLA code: "
                        "rewriting it would change the XLA path too; not rewritten (give the kernel its own copy)")
            return False
        return True

    def edit(self, node: cst.CSTNode, change: Edit) -> None:
        """Schedule `change(updated_node)` to replace `node`; several edits to one node chain."""
        previous = self._edits.get(node)
        self._edits[node] = change if previous is None else (lambda n: change(previous(n)))

    def position(self, node: cst.CSTNode) -> CodePosition:
        """Where `node` starts (positions are computed on first use: most files report nothing)."""
        return self.context.wrapper.resolve(PositionProvider)[node].start

    def report(self, node: cst.CSTNode, kind: Kind, message: str) -> None:
        position = self.position(node)
        self.findings.append(Finding(self.RULE.code, kind, position.line, position.column + 1, message))

    # -- applying --

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[override]
        updated = super().on_leave(original_node, updated_node)
        change = self._edits.get(original_node)
        return change(updated) if change is not None and isinstance(updated, cst.CSTNode) else updated
