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
import re
import textwrap
from dataclasses import dataclass, replace
from typing import Callable, Mapping, Optional, Union

from codemods.analysis.module import ModuleIndex
from codemods.analysis.names import canonical, display
from codemods.api_changes import ApiChange, Change, landing, retiring
from codemods.base import JaxTransform
from codemods.capabilities import format_version
from codemods.engine.diagnostics import Applicability, Finding, Kind
from codemods.engine.fixes import Edit, FixPlan, alone_on_its_lines, import_spec
from codemods.engine.rule import ParsedFile, Rule
from codemods.upgrades.scan import ROWS, Finder, Reference, Scan, named_on

# -- the transform --

Handler = Callable[["JaxUpgrade", Reference], None]


class JaxUpgrade(JaxTransform):
    """One row's rule: reports and fixes the references the shared scan found for its code."""

    row: ApiChange
    handlers: Mapping[str, Handler] = {}  # rows with a rewrite of their own, by code
    finders: Mapping[str, Finder] = {}  # rows found by something other than a name (`with mesh:`)

    def plan(self) -> None:
        self.row = ROWS[self.rule.code]
        target, floor = self.settings.jax_version, self.settings.jax_floor
        if target is None or self.row.state(target) == "works":
            return
        references = Scan.of(self._file, self.finders).by_code.get(self.row.code, [])
        traced = self._file.proven.get(self.row.code)
        if traced:  # `jax-codemod explain`: only what the traceback's lines name
            references = [reference for reference in references if named_on(self.module, reference, traced)]
        handler = self.handlers.get(self.row.code) or DEFAULT_HANDLERS[self.row.change]
        for reference in references:
            found = len(self.findings)
            handler(self, reference)
            if len(self.findings) == found and isinstance(reference.node, ast.alias) and reference.binding is not None \
                    and not reference.binding.references and self._import_is_the_old_spelling(reference):
                if self._reexports(reference):
                    self.manual(reference.node, f"import of {display(reference.old)}",
                                "it is re-exported: its importers must move to the replacement, and this import go")
                else:
                    self._drop_unused_import(reference)
        if self.row.superseded is not None and target >= self.row.superseded:
            self.findings = [self._held_back(f, f"{display(self.row.new or '')} {self.row.superseded_as} since jax "
                                                f"{format_version(self.row.superseded)}: {self.row.migration}",
                                             needs=False) for f in self.findings]
        elif not self.row.spellings(target):  # retired there, and its replacement not there yet
            self.findings = [self._held_back(f, f"the target is jax {format_version(target)}") for f in self.findings]
        elif not self.row.applies(target, floor):
            self.findings = [self._held_back(f, f"the project supports jax >= {format_version(floor)}", by_floor=True)
                             for f in self.findings]

    def _import_is_the_old_spelling(self, reference: Reference) -> bool:
        """The import itself warns or fails: the row retires the name, not a way of calling it
        (`jnp.clip` stays, only `a_max=` went), and it names a public module (jax's own
        `from jax._src.numpy.lax_numpy import clip` is not the public spelling the row speaks of)."""
        statement = reference.binding.statement if reference.binding is not None else None
        private = isinstance(statement, ast.ImportFrom) and (statement.module or "").startswith("jax._src")
        names_a_name = self.row.change in (Change.RENAME, Change.IMPORT) \
            or self.row.failure_on(self.settings.jax_version) in _MISSING_NAME  # plan() ran: a target
        return names_a_name and not private

    def _reexports(self, reference: Reference) -> bool:
        """`from m import x as x`, an `__init__.py`'s import, or a name in `__all__`: other modules
        import it from here, so "nothing here uses it" does not make it unused."""
        alias = reference.node
        assert isinstance(alias, ast.alias) and reference.binding is not None
        return alias.asname == alias.name or self._file.path.name == "__init__.py" \
            or reference.binding.name in _dunder_all(self.module.tree)

    def _drop_unused_import(self, reference: Reference) -> None:
        """An import of the old name that nothing uses: a handler that rewrites uses leaves it to go
        with them, yet alone it still fails (or warns) where it is imported."""
        alias, binding = reference.node, reference.binding
        assert isinstance(alias, ast.alias) and binding is not None and binding.statement is not None
        fix = FixPlan(maybe_unused_imports={import_spec(binding.statement, alias): binding.name})
        self.fixed(alias, f"import of {display(reference.old)}", "removed (nothing here uses it)", fix)

    def _held_back(self, finding: Finding, why: str, needs: bool = True, by_floor: bool = False) -> Finding:
        """The release that matters retired the old spelling, but a release the code must run on
        lacks the replacement (or the target deprecates it too: `needs=False`): the code must
        change, and no one spelling serves; a person decides. A finding with no fix to hold back
        (a `[manual]` row, `with mesh:`) is a person's whatever the releases: it says so, and what
        the releases mean for the change the person makes, not that a floor held a fix back."""
        oldest, since = ((self.row.new, self.row.since), *self.row.also)[-1]  # the spelling the oldest jax has
        what = self.row.replacement or display(oldest or "the replacement")
        lacking = f"{what} needs jax >= {format_version(since)} and " if needs else ""
        if finding.fix is None:
            whatever = ", whatever the lowest supported jax" if by_floor else ""
            advice = ": guard it" if by_floor else ""
            return replace(finding, kind=Kind.MANUAL, message=f"{finding.message}; no fix is written for this change"
                                                               f"{whatever}; {lacking}{why}{advice}")
        advice = " (guard it, or raise the lowest supported jax)" if by_floor else ""
        return replace(finding, kind=Kind.MANUAL, message=f"{finding.message}; not rewritten: {lacking}{why}{advice}",
                       fix=None, held_back=by_floor)

    def __init__(self, rule: Rule, file: ParsedFile) -> None:
        super().__init__(rule, file)
        self._file = file

    # -- what the findings say --

    def status(self, node: Optional[ast.AST] = None) -> str:
        """What the target release does with the old spelling at `node`: `from m import gone`
        raises ImportError where `m.gone` raises AttributeError (or where `gone` was a module)."""
        target = format_version(self.settings.jax_version)
        if self.row.state(self.settings.jax_version) == "fails":
            failure = self.row.failure_on(self.settings.jax_version)
            if failure in ("AttributeError", "ModuleNotFoundError") and self._imported_by_name(node, failure):
                failure = "ImportError"
            elif failure == "ModuleNotFoundError" and self._through_a_package(node):
                failure = "AttributeError"
            happens = f"raises {failure}" if re.match(r"[A-Z]\w*(Error|Exception)\b", failure) else failure
            return f"removed in jax {format_version(self.row.removed)} ({happens} on jax {target})"
        return f"deprecated since jax {format_version(self.row.deprecated)}"

    def _imported_by_name(self, node: Optional[ast.AST], failure: str) -> bool:
        """The old spelling at `node` fails where `from m import name` imports it: `node` is that
        import, or reads the name it binds, and the name is the old spelling (or, for a removed
        module, the module or a package above it)."""
        root = _root(node.func if isinstance(node, ast.Call) else node)
        if isinstance(node, ast.alias):
            statement = self.module.parent.get(node)
            imported = [f"{statement.module}.{node.name}"] if isinstance(statement, ast.ImportFrom) \
                and not statement.level else []
        elif isinstance(root, ast.Name):
            imported = [b.imported for b in self.module.bindings(root) if isinstance(b.statement, ast.ImportFrom)
                        and not b.statement.level and b.imported]
        else:
            imported = []
        imported = [name for name in imported  # `from jax.util import x`: the module itself is gone
                    if not any(name.startswith(module + ".") for module in self.row.modules)]
        return any(name == old or failure == "ModuleNotFoundError" and old.startswith(name + ".")
                   for name in imported for old in self.row.old)

    def _through_a_package(self, node: Optional[ast.AST]) -> bool:
        """`jax.lib.xla_bridge.get_backend` after `import jax`: the package exists and lacks the
        gone module as an attribute (AttributeError); only `import jax.lib.xla_bridge` itself
        raises ModuleNotFoundError."""
        root = _root(node.func if isinstance(node, ast.Call) else node)
        if not isinstance(root, ast.Name):
            return False
        gone = self.row.modules or tuple(old.rpartition(".")[0] for old in self.row.old)
        paths = [b.node.name for b in self.module.bindings(root)  # type: ignore[attr-defined]
                 if isinstance(b.statement, ast.Import)]
        return bool(paths) and all(any(module.startswith(path + ".") for module in gone) for path in paths)

    def fixed(self, node: ast.AST, old: str, new: str, fix: FixPlan,
              applicability: Applicability = Applicability.SAFE, note: str = "") -> None:
        tail = f"; {note}" if note else ""
        self.report(node, Kind.FIXED, f"{old} -> {new}: {self.status(node)}{tail}", fix, applicability)

    def manual(self, node: ast.AST, old: str, what: str, by_floor: bool = False) -> None:
        self.report(node, Kind.MANUAL, f"{old}: {self.status(node)}; {what}")
        if by_floor:  # a fix the floor holds back
            self.findings[-1] = replace(self.findings[-1], held_back=True)

    # -- spelling a qualified name where a reference is --

    def spell(self, qualified: str, at: ast.AST, fix: FixPlan) -> Optional[str]:
        """`qualified` as code at `at`, in the file's own names where they reach it, else through a
        new import; None when every way is taken by a name the file binds. In order: a name of the
        reference bound to the new name's module (`tpu.TPUCompilerParams` -> `tpu.CompilerParams`,
        where `tpu = pltpu`), then the imports that reach it, the function's own included
        (the longest: `jnp.dot`), then the module's usual name imported (`import
        jax.numpy as jnp`), then `jax.` with `import jax` (and an import of the module where
        `import jax` does not load it: `import jax.extend.backend`), then `from module import name`.
        A path through a package never crosses a module the package does not load (`pl.tpu.X`
        fails until something imports jax.experimental.pallas.tpu), unless the file imports it."""
        module, _, member = qualified.rpartition(".")
        inner = at.value if isinstance(at, ast.Attribute) else None
        while inner is not None:  # a name of the reference that is the new name's module
            if module in self.module.qualified_names(inner):
                return f"{self.module.segment(inner)}.{member}"
            inner = inner.value if isinstance(inner, ast.Attribute) else None
        scope = self.module.scope_of.get(_root(at)) or self.module.module_scope
        best: Optional[tuple[int, str]] = None
        jax_name = None
        for binding in self.module.imports:
            imported = canonical(binding.imported or "")
            reaching = scope.lookup(binding.name)  # a function's own `import jax` included
            if binding not in reaching or any(canonical(b.imported or "") != imported for b in reaching):
                continue  # shadowed where the reference is, or bound some other way too
            if imported == "jax":
                jax_name = binding.name
            if qualified == imported or qualified.startswith(imported + ".") and self._loads(imported, module):
                candidate = (len(imported), binding.name + qualified[len(imported):])
                best = max(best, candidate) if best else candidate
        if best is not None:
            return best[1]
        alias = USUAL_NAMES.get(module)
        if alias is not None and self.is_free(alias):
            package, _, last = module.rpartition(".")
            fix.imports_to_add.append((package, last, None) if alias == last else (module, None, alias))
            return f"{alias}.{member}"
        if qualified.startswith("jax.") and (jax_name == "jax" or self.is_free("jax")):
            fix.imports_to_add.append((module if not self._loads("jax", module) else "jax", None, None))
            return qualified
        if self.is_free(member):
            fix.imports_to_add.append((module, member, None))
            return member
        return None

    def _loads(self, package: str, module: str) -> bool:
        """Whether `package`.x.y reaches `module` once `package` is imported: each module on the way
        is one its parent loads (`import jax` loads jax.numpy, not jax.extend) or one the file imports."""
        path = package
        for part in module[len(package):].split(".")[1:]:
            parent, path = path, f"{path}.{part}"
            if not (parent == "jax" and part in LOADED_BY_JAX) and path not in self._imported_modules():
                return False
        return True

    def _imported_modules(self) -> set[str]:
        """The modules the file imports anywhere (`import a.b`, `from a import b` naming a module or not)."""
        found = set()
        for binding in self.module.imports:
            statement = binding.statement
            if isinstance(statement, ast.Import):
                name = binding.node.name  # type: ignore[attr-defined]
                found.update(name.rsplit(".", depth)[0] for depth in range(name.count(".") + 1))
            elif isinstance(statement, ast.ImportFrom) and not statement.level and statement.module:
                found.update({statement.module, canonical(binding.imported or "")})
        return found

    def is_free(self, name: str) -> bool:
        """`name` is bound nowhere in the module and is no builtin: a new import may take it."""
        if hasattr(builtins, name):
            return False
        return all(name not in scope_bindings for scope_bindings in _all_bindings(self.module))


# What `import jax` loads (the same on jax 0.10.2 and 0.12.0.1): `jax.tree.map` works after it, while
# `jax.extend.backend.x` needs `import jax.extend.backend`.
LOADED_BY_JAX = frozenset({
    "api_util", "core", "custom_batching", "custom_derivatives", "debug", "distributed", "dlpack", "dtypes", "errors",
    "experimental", "export", "ffi", "image", "interpreters", "lax", "lib", "monitoring", "nn", "numpy", "ops",
    "profiler", "random", "ref", "scipy", "sharding", "stages", "tree", "tree_util", "typing", "version",
})
# The names JAX code imports these modules under, for a new import.
USUAL_NAMES = {
    "jax.numpy": "jnp", "jax.lax": "lax", "jax.experimental.pallas": "pl", "jax.experimental.pallas.tpu": "pltpu",
    "jax.experimental.pallas.triton": "plt", "jax.experimental.pallas.mosaic_gpu": "plgpu",
}


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
    # The spelling every supported release runs: `jax.tree_util.tree_map` under a floor of 0.3.0,
    # where `jax.tree.map` (0.4.25) would break the oldest install.
    floor, target = transform.settings.jax_floor, transform.settings.jax_version
    spellings = row.spellings(floor, target)  # none: the fix is held back (plan)
    best = row.replacement_of(reference.old)
    written = row.replacement_of(reference.old, (spellings or (row.new,))[0])
    assert best is not None and written is not None
    lowest = min(v for v in (floor, target) if v is not None)
    why = "" if written == best else f"{display(best)} needs jax >= {format_version(row.since)}, " + (
        f"the project supports jax >= {format_version(floor)}" if lowest == floor else f"the target is jax {format_version(target)}")
    if isinstance(reference.node, ast.alias):
        uses = reference.binding.references if reference.binding is not None else []
        outside = [use for use in uses if not _in_annotation(transform.module, use)]
        if row.annotations_only and outside:
            transform.manual(outside[0], display(reference.old), row.migration_for(reference.old))
            return
        fix = FixPlan()
        imported = row.import_as if row.import_as and row.import_as in (spellings or (row.import_as,)) else written
        old, new = plan_import_move(transform, reference, imported, fix)
        landings = []
        for use in uses:  # `TPUMemorySpace.ANY` lands elsewhere than `TPUMemorySpace` on a later jax
            landed = _land(transform, use, imported)
            if landed is not None and landed[1] is not use and _respell(transform, landed, fix):
                landings.append(f"{display(reference.old)}{landed[2]} -> {display(landed[0])}")
        if imported == (row.import_as or best):
            why = ""  # the spelling any floor gets
        transform.fixed(reference.node, old, new, fix, note=", ".join(dict.fromkeys([*landings, why] if why else landings)))
        return
    if isinstance(reference.node, ast.Name):
        return  # a name an import binds: fixed at the import (or a name bound by assignment: at its value)
    if row.annotations_only and not _in_annotation(transform.module, reference.node):
        transform.manual(reference.node, display(reference.old), row.migration_for(reference.old))
        return
    landed = _land(transform, reference.node, written)
    if landed is None:
        return
    new, node, members = landed
    fix = FixPlan()
    if not _respell(transform, landed, fix):
        transform.manual(node, display(reference.old) + members, f"use {display(new)} (its names are taken here)")
        return
    transform.forget_imports(fix, node)
    transform.fixed(node, display(reference.old) + members, display(new), fix, note=why)


def _land(transform: JaxUpgrade, node: ast.AST, new: str) -> Optional[tuple[str, ast.AST, str]]:
    """Where the fix that writes `new` at `node` lands on the target (api_changes.landing): the
    spelling, the node it replaces (`pltpu.TPUMemorySpace.ANY` where `.ANY` lands on `pl.ANY`) and
    the members that node takes in (".ANY"). None, with a finding, where what lands is itself
    retired on the target (a later rename the floor holds back)."""
    target, floor = transform.settings.jax_version, transform.settings.jax_floor
    assert target is not None  # plan() ran: a target
    above = []
    parent = transform.module.parent.get(node)
    while isinstance(parent, ast.Attribute) and parent.value is (above[-1] if above else node):
        above.append(parent)
        parent = transform.module.parent.get(parent)
    spelling, took = landing(new, [attribute.attr for attribute in above], target, floor)
    replaced = above[took - 1] if took else node
    members = "".join(f".{attribute.attr}" for attribute in above[:took])
    rest = [attribute.attr for attribute in above[took:]]
    later = next((row for row in retiring(".".join([spelling, *rest]), target) if row is not transform.row), None)
    if later is not None:  # named with the members the later row's old spelling reads (`.HOST`)
        written = [*spelling.split("."), *rest]
        old = next(parts for parts in (o.split(".") for o in later.old) if written[:len(parts)] == parts)
        read = max(0, len(old) - len(spelling.split(".")))
        replaced = above[took + read - 1] if took + read else node
        members += "".join(f".{name}" for name in rest[:read])
        spelling = ".".join([spelling, *rest[:read]])
        by_floor = floor is not None and floor < later.since <= target
        why = (f"{display(later.new)} needs jax >= {format_version(later.since)} and the "
               + (f"project supports jax >= {format_version(floor)}" if by_floor else f"target is jax {format_version(target)}")
               if later.change is Change.RENAME and later.new else later.migration)
        transform.manual(replaced, transform.module.segment(replaced), f"not rewritten: its replacement "
                         f"{display(spelling)} is retired on jax {format_version(target)} too ({later.code}); {why}",
                         by_floor=by_floor)
        return None
    return spelling, replaced, members


def _respell(transform: JaxUpgrade, landed: tuple[str, ast.AST, str], fix: FixPlan) -> bool:
    """The landed spelling written over its node, through the file's names; False where every way is taken."""
    spelling, node, _ = landed
    spelled = transform.spell(spelling, node, fix)
    if spelled is not None:
        transform.replace(fix, node, spelled)
    return spelled is not None


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
    fix = FixPlan()
    old, new = plan_import_move(transform, reference, target, fix)
    transform.fixed(reference.node, old, new, fix)


def plan_import_move(transform: JaxUpgrade, reference: Reference, target: str, fix: FixPlan,
                     released: frozenset[str] = frozenset()) -> tuple[str, str]:
    """Plan `from m import old [as a]` -> `from m2 import new [as a]` into `fix`: the uses renamed
    when the bound name changes and nothing else holds the new one (`released`: names this fix frees
    elsewhere), else `new as old` with the uses untouched. A moved name gets a statement of its own,
    so that the fixes of one file give the same text applied together or one by one. Returns the
    import as written and as it becomes."""
    alias = reference.node
    binding = reference.binding
    assert isinstance(alias, ast.alias) and binding is not None
    statement = binding.statement
    module, _, member = target.rpartition(".")
    if isinstance(statement, ast.Import):  # `import jax.config [as c]`: the module itself is gone
        top = module.split(".")[0]
        old = f"import {_alias_text(alias.name, alias.asname)}"
        if alias.asname is None and len(statement.names) == 1 and _imported_elsewhere(transform.module, top, statement) \
                and alone_on_its_lines(transform.module.text, transform.module.line_starts, statement):
            fix.edits.append(_delete_lines(transform.module, statement))  # `import jax` is there already
            return old, f"import {top} (already imported)"
        if alias.asname:
            fix.edits.append(_import_edit(transform.module, statement, alias, _Move(module, member, alias.asname)))
            return old, f"from {module} import {_alias_text(member, alias.asname)}"
        fix.edits.append(_import_edit(transform.module, statement, alias, _Move(top, None, None)))
        return old, f"import {top}"
    assert isinstance(statement, ast.ImportFrom)
    asname = alias.asname
    if asname is None and member != alias.name:
        uses = binding.references
        if (transform.is_free(member) or member in released) and all(
                transform.module.bindings(use) == [binding] for use in uses):
            for use in uses:
                transform.replace(fix, use, member)
        else:
            asname = alias.name
    in_place = statement.level == 0 and statement.module == module
    fix.edits.append(_import_edit(transform.module, statement, alias, _Move(module, member, asname, in_place)))
    old = f"from {'.' * statement.level}{statement.module or ''} import {_alias_text(alias.name, alias.asname)}"
    return old, f"from {module} import {_alias_text(member, asname)}"


def _imported_elsewhere(module: ModuleIndex, name: str, statement: ast.stmt) -> bool:
    """Another module-level `import name` binds it already."""
    return any(isinstance(b.statement, ast.Import) and b.statement is not statement and b.node.name == name
               for b in module.module_scope.bindings.get(name, []))


def _delete_lines(module: ModuleIndex, statement: ast.stmt) -> Edit:
    """The statement's lines, removed (alone on them: `alone_on_its_lines`)."""
    start = module.line_start(statement.lineno)
    end = module.line_start(statement.end_lineno + 1)
    return Edit(start, end, lambda _code: "")


def _alias_text(name: str, asname: Optional[str]) -> str:
    return name if asname is None else f"{name} as {asname}"


@dataclass(frozen=True)
class _Move:
    """Where a name of an import statement goes: `member` from `module` (member None: `import
    module`), in the same statement when `in_place`, else into a statement of its own before it."""

    module: str
    member: Optional[str]
    asname: Optional[str]
    in_place: bool = False


def _import_edit(module: ModuleIndex, statement: Union[ast.Import, ast.ImportFrom], alias: ast.alias,
                 move: Optional[_Move]) -> Edit:
    """The edit of an import statement that moves one of its names (`move` None: drops it). It
    spans the statement's whole lines where it is alone on them, so a statement left with no name
    goes with its line. Edits of one statement chain (two names of one import moved by two fixes),
    each reading the statement as the edits before it left it."""
    start, end = module.span(statement)
    indent = module.text[module.line_start(statement.lineno):start]
    whole_lines = alone_on_its_lines(module.text, module.line_starts, statement)
    if whole_lines:
        start, end = module.line_start(statement.lineno), module.line_start(statement.end_lineno + 1)
    line_end = module.text[module.span(statement)[1]:end]
    newline = next((n for n in ("\r\n", "\n", "\r") if n in module.text), "\n")
    wanted = (alias.name, alias.asname)

    def change(code: str) -> str:
        first = code[len(indent):] if whole_lines and code.startswith(indent) else code
        try:  # the statement as written (its continuation lines may be indented any way)
            statements = ast.parse(first).body
        except SyntaxError:  # statements an earlier edit of this one wrote, one per line
            statements = ast.parse(textwrap.dedent(code if whole_lines else indent + code)).body
        for position, node in enumerate(statements):
            names = getattr(node, "names", [])
            index = next((i for i, n in enumerate(names) if (n.name, n.asname) == wanted), None)
            if index is None:
                continue
            if move is not None and move.in_place:
                names[index] = ast.alias(move.member, move.asname)
                break
            del names[index]
            if not names:
                del statements[position]
            if move is not None:  # before the statement it leaves: the names keep their order
                statements.insert(position, ast.Import(names=[ast.alias(move.module, move.asname)])
                                  if move.member is None else
                                  ast.ImportFrom(module=move.module, names=[ast.alias(move.member, move.asname)], level=0))
            break
        if whole_lines:
            return "".join(indent + ast.unparse(node) + (line_end if i == len(statements) - 1 else newline)
                           for i, node in enumerate(statements))
        return (newline + indent).join(ast.unparse(node) for node in statements) or "pass"

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
        call = transform.module.parent.get(node)
        if isinstance(call, ast.Call) and call.func is node and not call.args and not call.keywords:
            node = call  # `compiled.input_layouts()`: a method before jax 0.4.32, a property since
        transform.replace(fix, node, owner + transform.row.new)
        new = "x" + transform.row.new
    # Unsafe: any object's attribute of that name matches; only a jax.Array's is meant.
    transform.fixed(node, "x" + reference.old, new, fix, Applicability.UNSAFE,
                    note="unsafe: the object's type is not known here")


def _manual(transform: JaxUpgrade, reference: Reference) -> None:
    transform.manual(reference.node, display(reference.old), transform.row.migration_for(reference.old))


DEFAULT_HANDLERS: dict[Change, Handler] = {
    Change.RENAME: _rename,
    Change.IMPORT: _import_move,
    Change.ATTRIBUTE: _attribute,
    Change.MANUAL: _manual,
    Change.ARGUMENTS: _manual,
}


# How a removed name fails where it is imported (a row whose old spelling fails otherwise, with a
# TypeError for `jnp.clip(a_max=)`, keeps the name).
_MISSING_NAME = ("AttributeError", "ImportError", "ModuleNotFoundError")


def _dunder_all(tree: ast.Module) -> set[str]:
    """The names a module's top-level `__all__ = [...]` (or tuple) lists."""
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) \
                    and isinstance(statement.value, (ast.List, ast.Tuple)):
                names.update(e.value for e in statement.value.elts
                             if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return names
