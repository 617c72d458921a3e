"""One copy of a helper function per module, or one import of it from the user's shared module.

Transforms that route calls through a helper (JAX002's rsqrt_safe, JAX003's float32 LSTM wrapper)
ask for it here. The helper is inserted once, after the imports; a definition already present with
the same code is reused; a name taken by something else makes us pick a free one (`name_2`, ...).
With `--helpers-module pkg.jax_compat` the helper is imported from there instead, so a monorepo
keeps one copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import libcst as cst
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import GlobalScope, ScopeProvider

if TYPE_CHECKING:
    from codemods.base import JaxCodemod


@dataclass(frozen=True)
class Helper:
    name: str  # preferred name
    template: str  # the `def`, with `{name}` where its name goes
    needs: tuple[tuple[str, Optional[str]], ...] = ()  # imports the body uses: (module, obj or None)

    def code(self, name: str) -> str:
        return self.template.format(name=name)


def use_helper(transform: "JaxCodemod", module: cst.Module, helper: Helper) -> str:
    """The name to call the helper by in this module; schedules its definition or import once."""
    cache: dict[Helper, str] = transform.__dict__.setdefault("_helpers_in_use", {})
    if helper in cache:
        return cache[helper]
    scope = transform.get_metadata(ScopeProvider, module)
    assert isinstance(scope, GlobalScope)
    helpers_module = transform.settings.helpers_module
    name = _free_name(scope, helper, helpers_module)
    if helpers_module:
        if not _imported_from(scope, name, helpers_module):
            AddImportsVisitor.add_needed_import(
                transform.context, helpers_module, helper.name, None if name == helper.name else name
            )
    elif not _defined_as(scope, name, helper):
        for needed_module, needed_obj in helper.needs:
            AddImportsVisitor.add_needed_import(transform.context, needed_module, needed_obj)
        definition = cst.parse_statement(helper.code(name))
        transform.edit(module, lambda updated: _insert_after_imports(updated, definition))
    cache[helper] = name
    return name


def _free_name(scope: GlobalScope, helper: Helper, helpers_module: Optional[str]) -> str:
    candidate, suffix = helper.name, 1
    while candidate in scope and not (
        _imported_from(scope, candidate, helpers_module) if helpers_module else _defined_as(scope, candidate, helper)
    ):
        suffix += 1
        candidate = f"{helper.name}_{suffix}"
    return candidate


def _defined_as(scope: GlobalScope, name: str, helper: Helper) -> bool:
    """`name` is a module-level def with exactly the helper's code (ignoring blank lines around)."""
    wanted = helper.code(name).strip()
    nodes = [a.node for a in scope[name]]
    return len(nodes) == 1 and isinstance(nodes[0], cst.FunctionDef) and _code(nodes[0]) == wanted


def _imported_from(scope: GlobalScope, name: str, module: str) -> bool:
    return any(
        isinstance(a.node, cst.ImportFrom) and _code(a.node.module or cst.Name("")) == module
        for a in scope[name]
    )


def _code(node: cst.CSTNode) -> str:
    function = node.with_changes(leading_lines=()) if isinstance(node, cst.FunctionDef) else node
    return cst.Module([]).code_for_node(function).strip()


def _is_import_block(statement: cst.CSTNode, index: int) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    small = statement.body
    is_docstring = index == 0 and isinstance(small[0], cst.Expr) and isinstance(small[0].value, cst.SimpleString)
    return is_docstring or all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in small)


def _insert_after_imports(module: cst.CSTNode, definition: cst.BaseStatement) -> cst.CSTNode:
    assert isinstance(module, cst.Module)
    body = list(module.body)
    position = 0
    while position < len(body) and _is_import_block(body[position], position):
        position += 1
    blank = cst.EmptyLine()
    definition = definition.with_changes(leading_lines=(blank, blank))
    if position < len(body):
        following = body[position]
        lines = list(following.leading_lines)
        if len(lines) < 2:  # keep PEP 8's two blank lines after the new def
            body[position] = following.with_changes(leading_lines=[blank] * (2 - len(lines)) + lines)
    body.insert(position, definition)
    return module.with_changes(body=body)
