"""The one scan the JAX1xx rules share: each reference a module makes to an old jax spelling.

Names are followed through the module's imports and the names bound to them (`jax.tree_map`,
`from jax import tree_map as tm`, `P = pltpu` then `P.TPUCompilerParams`). A reference inside a
version guard (`try: ... except ImportError`, that handler's fallback, `if hasattr(jax, ...)`, a
comparison with jax's version) is the user's own compatibility code and is left out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable, Mapping, Optional

from codemods import api_changes
from codemods.analysis.module import Binding, ModuleIndex
from codemods.analysis.names import canonical
from codemods.api_changes import ApiChange, Change
from codemods.engine.rule import ParsedFile

ROWS = {row.code: row for row in api_changes.TABLE}
ROWS_BY_OLD = {old: row for row in api_changes.TABLE for old in row.old}

# Exceptions whose handler makes a `try:` a version guard.
_GUARD_EXCEPTIONS = {"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException", "TypeError"}
# Exceptions a missing name raises: their handler is the fallback where the try's name is missing,
# a version guard too (`try: f = jax.tree.map` / `except AttributeError: f = jax.tree_map`).
_MISSING_NAME_EXCEPTIONS = {"ImportError", "ModuleNotFoundError", "AttributeError"}
# Words whose presence in an `if` test makes it a version guard (of both branches).
_GUARD_WORDS = ("__version__", "version_info", "version", "__jax_version__")
# Calls whose presence makes it a guard of its else branch and, in its body, of the names they ask about.
_ASKING_CALLS = ("hasattr", "getattr")


@dataclass
class Reference:
    """One place the module names an old spelling."""

    row: ApiChange
    old: str  # which of the row's old names
    node: ast.AST  # the Name/Attribute expression, or the import's ast.alias
    binding: Optional[Binding] = None  # for an import: the binding it makes


class Scan:
    """Every reference to an old spelling in one module, by rule code (computed once per file)."""

    def __init__(self, module: ModuleIndex, finders: Mapping[str, "Finder"]) -> None:
        self.module = module
        self.by_code: dict[str, list[Reference]] = {}
        rows = [row for row in api_changes.TABLE if row.code not in finders]
        names = {old: row for row in rows for old in row.old if old.startswith("jax.")}
        modules = {name: row for row in rows for name in row.modules}
        attributes = {old[1:]: row for row in rows for old in row.old if old.startswith(".")}
        for reference in _name_references(module, names, modules, attributes):
            self._add(reference)
        for code, find in finders.items():  # rows whose old spelling is not just a name (`with mesh:`, ...)
            if any(word.decode() in module.text for word in ROWS[code].prefilter_words()):  # else nothing to find
                for reference in find(module, ROWS[code]):
                    self._add(reference)

    def _add(self, reference: Reference) -> None:
        if not guarded(self.module, reference.node):
            self.by_code.setdefault(reference.row.code, []).append(reference)

    @classmethod
    def of(cls, file: ParsedFile, finders: Mapping[str, "Finder"]) -> "Scan":
        scan = file.shared.get(cls.__name__)
        if scan is None:
            scan = file.shared[cls.__name__] = cls(file.module, finders)
        return scan


Finder = Callable[[ModuleIndex, ApiChange], list[Reference]]


def _name_references(module: ModuleIndex, names: Mapping[str, ApiChange], modules: Mapping[str, ApiChange] = {},
                     attributes: Mapping[str, ApiChange] = {}) -> list[Reference]:
    """References to qualified `names` (imports of them included), `import` statements of `modules`,
    and `.attributes` of objects that are no module (a jax.Array's `x.device_buffer`)."""
    found = []
    for binding in module.imports:
        if isinstance(binding.statement, ast.Import):  # `import jax.config`: the module path is the spelling
            path = binding.node.name  # type: ignore[attr-defined]
            if path in modules:
                found.append(Reference(modules[path], path, binding.node, binding))
            continue
        imported = canonical(binding.imported or "")
        # `from jax.lib import xla_bridge` of a removed module: its uses are the references (a fix of
        # each may drop the import); only an import nothing reads is one itself.
        gone = next((name for name in modules if imported.startswith(name + ".")), None)
        if imported in names and not (imported in names[imported].modules and binding.references):
            found.append(Reference(names[imported], imported, binding.node, binding))
        elif imported not in names and gone is not None:  # `from jax.experimental.maps import xmap`: the import fails
            found.append(Reference(modules[gone], gone, binding.node, binding))
    names = {old: row for old, row in names.items() if row.change is not Change.IMPORT}
    last_parts = {name.rsplit(".", 1)[-1] for name in names}
    # A bare name can stand for an old name only if an import binds it to one, or it is bound to
    # another name (`tm = jax.tree_map`): every other name is passed over without being resolved.
    roots = module.aliases | {binding.name for binding in module.imports
                              if canonical(binding.imported or "").rsplit(".", 1)[-1] in last_parts}
    for outer in _outermost(module):
        node: ast.AST = outer  # the longest part of `pltpu.DeviceIdType.MESH` that is an old name
        match = None
        while isinstance(node, ast.Attribute):  # resolving costs; only a part that ends as an old name can be one
            if node.attr in last_parts:
                match = module.matching_name(node, names)
                if match is not None:
                    break
            node = node.value
        if match is None and isinstance(node, ast.Name) and node.id in roots:
            match = module.matching_name(node, names)
        if match is not None:
            found.append(Reference(names[match], match, node))
        elif isinstance(outer, ast.Attribute) and outer.attr in attributes and not module.qualified_names(outer):
            found.append(Reference(attributes[outer.attr], "." + outer.attr, outer))
    return found


def named_on(module: ModuleIndex, reference: Reference, lines: frozenset[int]) -> bool:
    """Whether a traceback's `lines` name this reference (`jax-codemod explain`): it is on one of
    them, or it reads a name an import on one of them binds (the ImportError of `from jax.lib import
    xla_bridge` names `xla_bridge.get_backend()` below it)."""
    node = reference.node
    if any(node.lineno <= line <= node.end_lineno for line in lines):  # type: ignore[attr-defined]
        return True
    if reference.row.raised_later:  # it fails in the call it is handed to, on a line of its statement
        statement = _statement_of(module, node)
        if statement is not None and any(statement.lineno <= line <= statement.end_lineno for line in lines):  # type: ignore[attr-defined]
            return True
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and any(
        binding.statement is not None and any(binding.statement.lineno <= line <= binding.statement.end_lineno  # type: ignore[attr-defined]
                                              for line in lines) for binding in module.bindings(node))


def _statement_of(module: ModuleIndex, node: ast.AST) -> Optional[ast.stmt]:
    while node is not None and not isinstance(node, ast.stmt):
        node = module.parent.get(node)
    return node


def references_to(module: ModuleIndex, qualified: str, row: Optional[ApiChange] = None) -> list[Reference]:
    """The module's references to one qualified name (for finders), attributed to `row`."""
    return _name_references(module, {qualified: row or ROWS_BY_OLD[qualified]})


def _outermost(module: ModuleIndex):
    """Each Name or Attribute in a load, but not the parts of a longer attribute chain (`jax.tree`
    in `jax.tree_map` is not visited apart)."""
    parent_of, attribute, load = module.parent.get, ast.Attribute, ast.Load
    for mentions in module.mentions.values():
        for node in mentions:
            if node.ctx.__class__ is not load:  # type: ignore[attr-defined]
                continue
            parent = parent_of(node)
            if parent.__class__ is attribute and parent.value is node:  # type: ignore[union-attr]
                continue
            yield node


def guarded(module: ModuleIndex, node: ast.AST) -> bool:
    """Inside the user's own compatibility code: a try whose handler catches a missing name, that
    handler itself (the fallback), or an if on hasattr/getattr or on a version."""
    child, parent = node, module.parent.get(node)
    while parent is not None:
        if isinstance(parent, ast.Try) and child in parent.body and any(
                _catches(handler, _GUARD_EXCEPTIONS) for handler in parent.handlers):
            return True
        if isinstance(parent, ast.ExceptHandler) and child in parent.body and parent.type is not None \
                and _catches(parent, _MISSING_NAME_EXCEPTIONS):
            return True
        if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test and _guards(module, parent, child, node):
            return True
        child, parent = parent, module.parent.get(parent)
    return False


def _catches(handler: ast.ExceptHandler, exceptions: set[str]) -> bool:
    """The handler catches one of `exceptions` (a bare `except:` catches all)."""
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(t, (ast.Name, ast.Attribute)) and (t.id if isinstance(t, ast.Name) else t.attr)
               in exceptions for t in types)


def _guards(module: ModuleIndex, branch: ast.If | ast.IfExp, child: ast.AST, node: ast.AST) -> bool:
    """An if on jax's version guards both its branches. An if on hasattr/getattr guards its else
    branch, and in its body only the names it asks about: `if hasattr(jax, "Array") and
    isinstance(x, jax.Array):` is no guard of a `jax.sharding.PmapSharding` in its body."""
    if _mentions_version(branch.test):
        return True
    asked = set()
    for call in ast.walk(branch.test):
        function = getattr(call, "func", None)
        if (isinstance(call, ast.Call) and len(call.args) >= 2 and (getattr(function, "id", None) in _ASKING_CALLS
                                                                    or getattr(function, "attr", None) in _ASKING_CALLS)):
            name = call.args[1]
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                return True  # asks about a name it computes: any name may be the one
            asked.add(name.value)
    if not asked:
        return False
    if child is not branch.body and not (isinstance(branch.body, list) and child in branch.body):
        return True  # the else branch: the fallback where the name asked about is missing
    words = set(re.findall(r"\w+", ast.unparse(node)))
    if isinstance(node, (ast.Name, ast.Attribute)):
        words.update(part for name in module.qualified_names(node) for part in name.split("."))
    return bool(asked & words)


def _mentions_version(test: ast.expr) -> bool:
    for node in ast.walk(test):
        word = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        if word is not None and any(w in word for w in _GUARD_WORDS):
            return True
    return False


