"""One copy of a helper function per module, or one import of it from the user's shared module.

Transforms that route calls through a helper (JAX002's rsqrt_safe, JAX003's float32 LSTM wrapper)
ask for it here. The helper is inserted once, after the imports; a definition already present with
the same code is reused; a name taken by something else makes us pick a free one (`name_2`, ...).
With `--helpers-module pkg.jax_compat` the helper is imported from there instead, so a monorepo
keeps one copy.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Iterator, Optional, Union

import libcst as cst
import libcst.matchers as m
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import GlobalScope, ScopeProvider

if TYPE_CHECKING:
    from codemods.base import JaxCodemod


# An import a helper's body uses: (module, obj or None), or with an asname as a third element.
Need = Union[tuple[str, Optional[str]], tuple[str, Optional[str], str]]


@dataclass(frozen=True)
class Helper:
    name: str  # preferred name
    template: str  # the `def`, with `{name}` where its name goes
    needs: tuple[Need, ...] = ()  # the arguments of AddImportsVisitor.add_needed_import

    def code(self, name: str) -> str:
        return self.template.format(name=name)


_SOURCE_INDENT = "    "
REFERENCE_SOURCE = "helpers_source.py"  # in the codemods package; users copy it for --helpers-module
_NAME_PLACEHOLDER = "__jax_codemod_helper_name__"


@functools.lru_cache(maxsize=None)
def reference_helper(name: str) -> Helper:
    """The helper `name` as codemods/helpers_source.py defines it, with the imports its body uses.

    That file is the one copy of each helper's code: what is inserted, and what users copy."""
    source = cst.parse_module(resources.files("codemods").joinpath(REFERENCE_SOURCE).read_text())
    function = next(
        statement for statement in source.body
        if isinstance(statement, cst.FunctionDef) and statement.name.value == name
    )
    used = {node.value for node in m.findall(function, m.Name())}
    needs = tuple(need for statement in source.body for need in _imports(statement) if _binding(need)[0] in used)
    return Helper(name, _template(_code(function.with_changes(name=cst.Name(_NAME_PLACEHOLDER)))), needs)


def _template(code: str) -> str:
    return code.replace("{", "{{").replace("}", "}}").replace(_NAME_PLACEHOLDER, "{name}")


def _imports(statement: cst.CSTNode) -> Iterator[Need]:
    """The need for each import in `statement`."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return
    for small in statement.body:
        if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                module = _code(alias.name) if isinstance(small, cst.Import) else _code(small.module or cst.Name(""))
                obj = None if isinstance(small, cst.Import) else _code(alias.name)
                asname = alias.asname.name if alias.asname is not None else None
                yield (module, obj) if asname is None else (module, obj, _code(asname))


def _binding(need: Need) -> tuple[str, str]:
    """(the name the import binds, the qualified name it binds it to)."""
    module, obj, *asname = need
    if obj is None:
        return (asname[0], module) if asname else (module.split(".")[0], module.split(".")[0])
    return (asname[0] if asname else obj), f"{module}.{obj}"


def use_helper(transform: "JaxCodemod", module: cst.Module, helper: Helper) -> str:
    """The name to call the helper by in this module; schedules its definition or import once."""
    cache: dict[Helper, str] = transform.__dict__.setdefault("_helpers_in_use", {})
    if helper in cache:
        return cache[helper]
    scope = transform.get_metadata(ScopeProvider, module)
    assert isinstance(scope, GlobalScope)
    helpers_module = transform.settings.helpers_module
    local = helper if helpers_module else _indented(_in_module_names(scope, helper), module.default_indent)
    name = _free_name(scope, local, helpers_module, module.default_indent)
    if helpers_module:
        if not _imported_from(scope, name, helpers_module):
            AddImportsVisitor.add_needed_import(
                transform.context, helpers_module, helper.name, None if name == helper.name else name
            )
    elif not _defined_as(scope, name, local, module.default_indent):
        for need in local.needs:
            AddImportsVisitor.add_needed_import(transform.context, *need)
        definition = cst.parse_statement(local.code(name))
        transform.edit(module, lambda updated: _insert_after_imports(updated, definition))
    cache[helper] = name
    return name


def _in_module_names(scope: GlobalScope, helper: Helper) -> Helper:
    """The helper spelled with the module's own imports: what the module already imports is not
    imported again, and where it binds it under another name (`import jax.numpy as np`) the body
    uses that name (`np.float32`)."""
    renames: dict[str, str] = {}
    needs: list[Need] = []
    for need in helper.needs:
        bound, target = _binding(need)
        names = sorted(
            a.name for a in scope.assignments
            if "." not in a.name and any(q.name == target for q in scope.get_qualified_names_for(a.name))
        )
        if not names:
            needs.append(need)
        elif bound not in names:
            renames[bound] = names[0]
    if not renames:
        return helper
    function = cst.parse_statement(helper.code(_NAME_PLACEHOLDER)).visit(_RenameFreeNames(renames))
    return Helper(helper.name, _template(_code(function)), tuple(needs))


class _RenameFreeNames(cst.CSTTransformer):
    """Renames variables; attribute names and keywords of the same spelling stay."""

    def __init__(self, renames: dict[str, str]) -> None:
        super().__init__()
        self.renames = renames

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        return updated_node.with_changes(value=self.renames.get(updated_node.value, updated_node.value))

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        return updated_node.with_changes(attr=original_node.attr)

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(keyword=original_node.keyword)


def _indented(helper: Helper, indent: str) -> Helper:
    """The helper indented like the module (helpers_source.py uses four spaces), its docstring too."""
    if indent == _SOURCE_INDENT:
        return helper

    def reindent(line: str) -> str:
        depth = (len(line) - len(line.lstrip(" "))) // len(_SOURCE_INDENT)
        return indent * depth + line[depth * len(_SOURCE_INDENT):]

    return dataclasses.replace(helper, template="\n".join(map(reindent, helper.template.split("\n"))))


def _free_name(scope: GlobalScope, helper: Helper, helpers_module: Optional[str], indent: str) -> str:
    candidate, suffix = helper.name, 1
    while candidate in scope and not (
        _imported_from(scope, candidate, helpers_module) if helpers_module
        else _defined_as(scope, candidate, helper, indent)
    ):
        suffix += 1
        candidate = f"{helper.name}_{suffix}"
    return candidate


def _defined_as(scope: GlobalScope, name: str, helper: Helper, indent: str) -> bool:
    """`name` is a module-level def with exactly the helper's code (ignoring blank lines around)."""
    wanted = helper.code(name).strip()
    nodes = [a.node for a in scope[name]]
    return len(nodes) == 1 and isinstance(nodes[0], cst.FunctionDef) and _code(nodes[0], indent) == wanted


def _imported_from(scope: GlobalScope, name: str, module: str) -> bool:
    return any(
        isinstance(a.node, cst.ImportFrom) and _code(a.node.module or cst.Name("")) == module
        for a in scope[name]
    )


def _code(node: cst.CSTNode, indent: str = _SOURCE_INDENT) -> str:
    function = node.with_changes(leading_lines=()) if isinstance(node, cst.FunctionDef) else node
    return cst.Module([], default_indent=indent).code_for_node(function).strip()


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
    # PEP 8's two blank lines around the new def, but none above it when it opens the file.
    definition = definition.with_changes(leading_lines=(blank, blank) if position else ())
    if position < len(body):
        following = body[position]
        lines = list(following.leading_lines)
        blanks = next((i for i, line in enumerate(lines) if line.comment is not None), len(lines))
        if blanks < 2:
            body[position] = following.with_changes(leading_lines=[blank] * (2 - blanks) + lines)
    body.insert(position, definition)
    return module.with_changes(body=body)
