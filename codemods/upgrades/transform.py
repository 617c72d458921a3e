"""The JAX1xx rules' transform: a row's references reported, and fixed the way its kind says.

The fixes keep the user's names: a reference is respelled through a name the file already has
(`jax.tree_map` -> `jax.tree.map`, `P.TPUCompilerParams` -> `P.CompilerParams`, `pltpu.ANY` ->
`pl.ANY` where `pl` is imported); an import of a moved name is moved and keeps its alias; an
import left unused is removed. Rows whose call changes shape (`pjit`, `shard_map`, `pl.dot`, ...)
have handlers of their own (codemods/upgrades/core_calls.py, pallas_calls.py).
"""

from __future__ import annotations

import ast
import builtins
import textwrap
from dataclasses import replace
from typing import Callable, Mapping, Optional, Union

from codemods.analysis.module import ModuleIndex
from codemods.analysis.names import canonical, display
from codemods.api_changes import ApiChange, Change
from codemods.base import JaxTransform
from codemods.capabilities import format_version
from codemods.engine.diagnostics import Applicability, Finding, Kind
from codemods.engine.fixes import Edit, FixPlan
from codemods.engine.rule import ParsedFile, Rule
from codemods.upgrades.scan import ROWS, Finder, Reference, Scan

# -- the transform --

Handler = Callable[["JaxUpgrade", Reference], None]


class JaxUpgrade(JaxTransform):
    """One row's rule: reports and fixes the references the shared scan found for its code."""

    row: ApiChange
    handlers: Mapping[str, Handler] = {}  # rows with a rewrite of their own, by code
    finders: Mapping[str, Finder] = {}  # rows found by something other than a name (`with mesh:`)

    def plan(self) -> None:
        self.row = ROWS[self.rule.code]
        if not self.row.applies(self.settings.jax_version):
            return
        references = Scan.of(self._file, self.finders).by_code.get(self.row.code, [])
        handler = self.handlers.get(self.row.code) or DEFAULT_HANDLERS[self.row.change]
        for reference in references:
            handler(self, reference)
        if not self.row.applies(self.settings.jax_version, self.settings.jax_floor):
            self.findings = [self._held_back(finding) for finding in self.findings]

    def _held_back(self, finding: Finding) -> Finding:
        """The target retired the old spelling, but the project's oldest supported jax lacks the
        replacement: the code must change, and no one spelling serves both; a person decides."""
        why = (f"; not rewritten: {display(self.row.new or 'the replacement')} needs jax "
               f">= {format_version(self.row.since)} and the project supports jax >= "
               f"{format_version(self.settings.jax_floor)} (guard it, or raise the lowest supported jax)")
        return replace(finding, kind=Kind.MANUAL, message=finding.message + why, fix=None)

    def __init__(self, rule: Rule, file: ParsedFile) -> None:
        super().__init__(rule, file)
        self._file = file

    # -- what the findings say --

    def status(self) -> str:
        """What the target release does with the old spelling."""
        target = format_version(self.settings.jax_version)
        if self.row.state(self.settings.jax_version) == "fails":
            return f"removed in jax {format_version(self.row.removed)} ({self.row.failure} on {target})"
        return f"deprecated since jax {format_version(self.row.deprecated)}"

    def fixed(self, node: ast.AST, old: str, new: str, fix: FixPlan,
              applicability: Applicability = Applicability.SAFE, note: str = "") -> None:
        tail = f"; {note}" if note else ""
        self.report(node, Kind.FIXED, f"{old} -> {new}: {self.status()}{tail}", fix, applicability)

    def manual(self, node: ast.AST, old: str, what: str) -> None:
        self.report(node, Kind.MANUAL, f"{old}: {self.status()}; {what}")

    # -- spelling a qualified name where a reference is --

    def spell(self, qualified: str, at: ast.AST, fix: FixPlan) -> str:
        """`qualified` as code at `at`: through a module-level import that binds it or a module
        above it (the longest), else through a new `from <module> import <name>`, else `import <module>`."""
        inner = at.value if isinstance(at, ast.Attribute) else None
        while inner is not None:  # through the reference's own names first: `P.X` stays `P.Y`
            for name in sorted(self.module.qualified_names(inner), key=len, reverse=True):
                if qualified.startswith(name + "."):
                    return self.module.segment(inner) + qualified[len(name):]
            inner = inner.value if isinstance(inner, ast.Attribute) else None
        scope = self.module.scope_of.get(_root(at)) or self.module.module_scope
        best: Optional[tuple[int, str]] = None
        for binding in self.module.imports:
            imported = canonical(binding.imported or "")
            if binding.scope is not self.module.module_scope or not imported:
                continue
            if qualified != imported and not qualified.startswith(imported + "."):
                continue
            if scope.lookup(binding.name) != self.module.module_scope.bindings.get(binding.name):
                continue  # shadowed where the reference is, or bound some other way too
            candidate = (len(imported), binding.name + qualified[len(imported):])
            best = max(best, candidate) if best else candidate
        if best is not None:
            return best[1]
        module, _, member = qualified.rpartition(".")
        if not self._free(member):
            raise _CannotSpell(qualified)
        fix.imports_to_add.append((module, member, None))
        return member

    def _free(self, name: str) -> bool:
        """`name` is bound nowhere in the module and is no builtin: a new import may take it."""
        if hasattr(builtins, name):
            return False
        return all(name not in scope_bindings for scope_bindings in _all_bindings(self.module))


class _CannotSpell(Exception):
    """No name in the module can reach the replacement, and none can be added without a clash."""


def _all_bindings(module: ModuleIndex):
    """Every scope's bindings: the module's, and each scope a name is looked up in."""
    seen = set()
    for scope in (module.module_scope, *module.scope_of.values()):
        if id(scope) not in seen:
            seen.add(id(scope))
            yield scope.bindings


def _root(node: ast.AST) -> ast.AST:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


# -- RENAME: a reference becomes one to the new name --

def _rename(transform: JaxUpgrade, reference: Reference) -> None:
    row = transform.row
    assert row.new is not None
    if isinstance(reference.node, ast.alias):
        uses = reference.binding.references if reference.binding is not None else []
        outside = [use for use in uses if not _in_annotation(transform.module, use)]
        if row.annotations_only and outside:
            transform.manual(outside[0], display(reference.old), row.migration)
            return
        _move_import(transform, reference, row.import_as or row.new)
        return
    if isinstance(reference.node, ast.Name):
        return  # a name an import binds: fixed at the import (or a name bound by assignment: at its value)
    if row.annotations_only and not _in_annotation(transform.module, reference.node):
        transform.manual(reference.node, display(reference.old), row.migration)
        return
    fix = FixPlan()
    try:
        spelled = transform.spell(row.new, reference.node, fix)
    except _CannotSpell:
        transform.manual(reference.node, display(reference.old), f"use {display(row.new)}")
        return
    if row.module is not None and spelled.split(".")[0] == row.module.split(".")[0]:
        fix.imports_to_add.append((row.module, None, None))  # `jax.extend.backend.x` needs its own import
    transform.replace(fix, reference.node, spelled)
    transform.forget_imports(fix, reference.node)
    transform.fixed(reference.node, display(reference.old), display(row.new), fix)


def _in_annotation(module: ModuleIndex, node: ast.AST) -> bool:
    """Inside a parameter's or a return's annotation, or an annotated assignment's."""
    child, parent = node, module.parent.get(node)
    while parent is not None:
        if isinstance(parent, ast.arg) and parent.annotation is child:
            return True
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and parent.returns is child:
            return True
        if isinstance(parent, ast.AnnAssign) and parent.annotation is child:
            return True
        if isinstance(parent, ast.stmt):
            return False
        child, parent = parent, module.parent.get(parent)
    return False


def _move_import(transform: JaxUpgrade, reference: Reference, target: str) -> None:
    """`from m import old [as a]` -> `from m2 import new [as a]`, the uses renamed when the bound
    name changes and nothing else holds the new one (else `new as old`, the uses untouched)."""
    alias = reference.node
    binding = reference.binding
    assert isinstance(alias, ast.alias) and binding is not None
    statement = binding.statement
    module, _, member = target.rpartition(".")
    fix = FixPlan()
    if isinstance(statement, ast.Import):  # `import jax.config [as c]`: the module itself is gone
        top = module.split(".")[0]
        if alias.asname is None and len(statement.names) == 1 and _imported_elsewhere(transform.module, top, statement) \
                and _alone_on_its_lines(transform.module, statement):
            fix.edits.append(_delete_lines(transform.module, statement))  # `import jax` is there already
            transform.fixed(alias, f"import {alias.name}", f"import {top} (already imported)", fix)
            return
        change = _replace_alias(transform.module, statement, alias, module if alias.asname else module.split(".")[0],
                                alias.asname, member=member if alias.asname else None)
        fix.edits.append(change)
        transform.fixed(alias, f"import {_alias_text(alias.name, alias.asname)}",
                        f"from {module} import {_alias_text(member, alias.asname)}" if alias.asname
                        else f"import {module.split('.')[0]}", fix)
        return
    asname = alias.asname
    renamed_uses = []
    if asname is None and member != alias.name:
        uses = binding.references
        if transform._free(member) and all(transform.module.bindings(use) == [binding] for use in uses):
            renamed_uses = uses
        else:
            asname = alias.name
    for use in renamed_uses:
        transform.replace(fix, use, member)
    fix.edits.append(_replace_alias(transform.module, statement, alias, module, asname, member=member))
    assert isinstance(statement, ast.ImportFrom)
    written = f"from {'.' * statement.level}{statement.module or ''} import {_alias_text(alias.name, alias.asname)}"
    transform.fixed(alias, written, f"from {module} import {_alias_text(member, asname)}", fix)


def _imported_elsewhere(module: ModuleIndex, name: str, statement: ast.stmt) -> bool:
    """Another module-level `import name` binds it already."""
    return any(isinstance(b.statement, ast.Import) and b.statement is not statement and b.node.name == name
               for b in module.module_scope.bindings.get(name, []))


def _alone_on_its_lines(module: ModuleIndex, statement: ast.stmt) -> bool:
    """Nothing else on the statement's lines but whitespace and a comment (`import a; b = 1` is not)."""
    start, end = module.span(statement)
    before = module.text[module.line_start(statement.lineno):start]
    after = module.text[end:module.line_start(statement.end_lineno + 1)]
    return not before.strip() and (not after.strip() or after.strip().startswith("#"))


def _delete_lines(module: ModuleIndex, statement: ast.stmt) -> Edit:
    """The statement's lines, removed (alone on them: `_alone_on_its_lines`)."""
    start = module.line_start(statement.lineno)
    end = module.line_start(statement.end_lineno + 1)
    return Edit(start, end, lambda _code: "")


def _alias_text(name: str, asname: Optional[str]) -> str:
    return name if asname is None else f"{name} as {asname}"


def _replace_alias(module: ModuleIndex, statement: Union[ast.Import, ast.ImportFrom], alias: ast.alias,
                   new_module: str, asname: Optional[str], member: Optional[str] = None) -> Edit:
    """The edit of an import statement that moves one of its names: `member` from `new_module` (for
    an `import m` statement without `member`: `import new_module`). In place when the module stays,
    else into a statement of its own after it, at the same indentation. Edits of one statement chain
    (two moved names of one import), so each reads the statement as the edits before it left it."""
    start, end = module.span(statement)
    indent = module.text[module.line_start(statement.lineno):start]
    newline = next((n for n in ("\r\n", "\n", "\r") if n in module.text), "\n")
    old_name, old_asname = alias.name, alias.asname

    def moved() -> ast.stmt:
        if member is None:
            return ast.Import(names=[ast.alias(new_module, asname)])
        return ast.ImportFrom(module=new_module, names=[ast.alias(member, asname)], level=0)

    def change(code: str) -> str:
        try:
            statements = ast.parse(code).body
        except SyntaxError:  # statements an earlier edit of this one made, one per line
            statements = ast.parse(textwrap.dedent(indent + code)).body
        for position, node in enumerate(statements):
            names = getattr(node, "names", [])
            index = next((i for i, n in enumerate(names) if (n.name, n.asname) == (old_name, old_asname)), None)
            if index is None:
                continue
            stays = isinstance(node, ast.ImportFrom) and member is not None and node.level == 0 \
                and node.module == new_module
            if stays:
                names[index] = ast.alias(member, asname)
            else:
                joined = next((other for other in statements if isinstance(other, ast.ImportFrom) and member
                               and other.level == 0 and other.module == new_module), None)
                if joined is not None:  # a name moved to the same module before: one statement
                    joined.names.append(ast.alias(member, asname))
                else:
                    statements.insert(position + 1, moved())
                del names[index]
                if not names:
                    del statements[position]
            break
        return (newline + indent).join(ast.unparse(node) for node in statements)

    return Edit(start, end, change)


# -- IMPORT: only the import moves --

def _import_move(transform: JaxUpgrade, reference: Reference) -> None:
    if isinstance(reference.node, ast.alias):
        assert transform.row.new is not None
        _move_import(transform, reference, transform.row.new)


# -- ATTRIBUTE: an attribute of any object (its type is not known) --

def _attribute(transform: JaxUpgrade, reference: Reference) -> None:
    node = reference.node
    assert isinstance(node, ast.Attribute) and transform.row.new is not None
    fix = FixPlan()
    owner = transform.module.segment(node.value)
    if reference.old == ".device_buffers":
        transform.replace(fix, node, f"[shard.data for shard in {owner}.addressable_shards]")
        new = "[shard.data for shard in x.addressable_shards]"
    else:
        transform.replace(fix, node, owner + transform.row.new)
        new = "x" + transform.row.new
    # Unsafe: any object's attribute of that name matches; only a jax.Array's is meant.
    transform.fixed(node, "x" + reference.old, new, fix, Applicability.UNSAFE,
                    note="unsafe: the object's type is not known here")


def _manual(transform: JaxUpgrade, reference: Reference) -> None:
    transform.manual(reference.node, display(reference.old), transform.row.migration)


DEFAULT_HANDLERS: dict[Change, Handler] = {
    Change.RENAME: _rename,
    Change.IMPORT: _import_move,
    Change.ATTRIBUTE: _attribute,
    Change.MANUAL: _manual,
    Change.ARGUMENTS: _manual,
}
