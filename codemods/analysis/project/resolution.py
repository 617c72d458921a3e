"""What a name of one module denotes in the project: top-level tables, re-exports, and the project
modules an import line names, read from bare syntax trees and import lines."""

from __future__ import annotations

import ast
from typing import Optional

from codemods.analysis.module import FunctionNode, ModuleIndex, import_binding
from codemods.analysis.names import root_name
from codemods.analysis.project.base import ProjectBase
from codemods.analysis.project.modules import CONTENT, TOP_LEVEL, _MAX_REEXPORTS, _Module
from codemods.analysis.project.scan import _TRY_STAR, _conditional_imports, _dotted, _imports_within


class NameResolution(ProjectBase):
    """Qualified names resolved across the project's modules, through re-exports."""

    def _outside_name(self, qualified: str, depth: int) -> Optional[str]:
        """What a project module's top-level name is when the module imports it from outside the
        project (through re-exports, as `_find_function` follows them); None for the project's own."""
        owner_name, _, name = qualified.rpartition(".")
        owner = self._modules.get(owner_name)
        kind = self._top_level_entry(owner, name) if owner is not None else None
        absolute = owner.absolute(kind) if owner is not None and kind not in (None, "def") and depth > 0 else None
        if absolute is None or absolute == qualified:
            return None
        return absolute if absolute.split(".")[0] not in self._tops else self._outside_name(absolute, depth - 1)

    def _spellings(self, module: _Module, launchers: dict) -> dict:
        """The names `module` calls `launchers` by, as its own analysis spells them: through a relative
        import (`from . import launch` -> `.launch.run`), a module alias, or a package's re-export
        (`from pkg import run` for `pkg.launch.run`)."""
        spelled: dict[str, str] = {}
        for statement in self._import_statements(module):
            if isinstance(statement, ast.ImportFrom):
                for alias in statement.names:
                    name = import_binding(statement, alias)[1]
                    absolute = module.absolute(name)
                    if absolute is not None:
                        spelled[name] = absolute
            elif isinstance(statement, ast.Import):
                spelled.update((alias.name, alias.name) for alias in statement.names)
        found = {}
        tails = {key.rpartition(".")[2] for key in launchers}
        for name, absolute in spelled.items():
            owner = self._modules.get(absolute.rpartition(".")[0])
            # A package's re-export of a launcher's name (only then is that package's top level read)
            re_export = owner is not None and owner.is_package and absolute.rpartition(".")[2] in tails
            target = self._function(absolute, _MAX_REEXPORTS) if re_export else None
            if absolute in launchers:  # `from .launch import run`: spelled `.launch.run`
                found[name] = launchers[absolute]
            elif target is not None and f"{target[0].name}.{target[1]}" in launchers:
                found[name] = launchers[f"{target[0].name}.{target[1]}"]
            for key, spec in launchers.items():
                if key.startswith(absolute + "."):
                    found[name + key[len(absolute):]] = spec
        return {name: spec for name, spec in found.items() if name not in launchers}

    def _targets(self, module: _Module, index: ModuleIndex, node: ast.AST) -> list[tuple[_Module, str]]:
        """The project functions or values (module, top-level name) a name or attribute refers to."""
        found = []
        for name in index.qualified_names(node):
            absolute = module.absolute(name)
            target = self._function(absolute, _MAX_REEXPORTS) if absolute else None
            if target is not None and target[0] is not module:
                found.append(target)
        return found

    def _function(self, qualified: str, depth: int) -> Optional[tuple[_Module, str]]:
        """The module and top-level def or value a qualified name denotes, through re-exports."""
        return self._remembered(self._functions, qualified,  # type: ignore[return-value]
                                lambda: self._find_function(qualified, depth))

    def _find_function(self, qualified: str, depth: int) -> Optional[tuple[_Module, str]]:
        # Only a module's own top-level name: `pkg.mod.Class.method` and the like are not followed.
        owner_name, _, name = qualified.rpartition(".")
        owner = self._modules.get(owner_name)
        if owner is None:
            return None
        kind = self._top_level_entry(owner, name)
        if kind == "def":  # a def, or a value such as `exp_hi = functools.partial(...)`
            return owner, name
        if kind is not None and depth > 0:  # imported there: a re-export
            absolute = owner.absolute(kind)
            if absolute and absolute != qualified:
                return self._function(absolute, depth - 1)
        return None

    def _top_level_entry(self, module: _Module, name: str) -> Optional[str]:
        """`_top_level(module).get(name)`, a part of its own: what else the module binds does not matter."""
        dependency = (module.name, (TOP_LEVEL, name))
        self._depend(*dependency)
        if dependency not in self._part_values:
            with self._quiet():
                self._part_values[dependency] = self._top_level(module).get(name)
        return self._part_values[dependency]  # type: ignore[return-value]

    def _top_level(self, module: _Module) -> dict[str, str]:
        """What a module binds at its top level, from its bare syntax tree: "def" for a def or a
        value computed by a call, else the qualified name an import binds ("..ops.act")."""
        self._depend(module.name, CONTENT)  # the whole table: read only where the code is too
        if module.top_level is None:
            with self._quiet():
                tree = self._tree(module)
            module.top_level = {}
            for statement in tree.body if tree is not None else ():
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    module.top_level[statement.name] = "def"
                elif isinstance(statement, ast.Assign):  # a value: a partial, an alias, a container of bodies
                    outside = self._outside_alias(module.top_level, statement.value)
                    for target in statement.targets:
                        if isinstance(target, ast.Name):
                            module.top_level[target.id] = outside or "def"
                elif isinstance(statement, (ast.Import, ast.ImportFrom)):
                    for alias in statement.names:
                        if alias.name != "*":
                            bound, imported = import_binding(statement, alias)
                            module.top_level[bound] = imported
                elif isinstance(statement, (ast.If, ast.Try, *_TRY_STAR)):
                    # `try: from jax import lax` / `except ImportError: lax = None`: jax's where it imports
                    for bound, imported in _conditional_imports(statement):
                        if not imported.startswith(".") and imported.split(".")[0] not in self._tops:
                            module.top_level.setdefault(bound, imported)
        return module.top_level

    def _outside_alias(self, table: dict[str, str], value: ast.expr) -> Optional[str]:
        """What `name = value` binds when `value` names what an import above brought from outside the
        project (`lax = _lax` after `from jax import lax as _lax`; `lax = jax.lax`): re-exported as
        an import is. A value of the project's own stays a value ("def")."""
        dotted = _dotted(value)
        root, _, rest = (dotted or "").partition(".")
        imported = table.get(root)
        if imported is None or imported == "def" or imported.startswith(".") or imported.split(".")[0] in self._tops:
            return None
        return f"{imported}.{rest}" if rest else imported

    def _project_mentions(self, module: _Module, index: ModuleIndex) -> dict[Optional[FunctionNode], list[ast.AST]]:
        """The module's mentions (by innermost function) that start from a name bound to the project."""
        self._depend(module.name, CONTENT)
        if module.project_mentions is None:
            names = self._project_names(module, index)
            module.project_mentions = {function: kept for function, mentions in index.mentions.items()
                                       if (kept := [m for m in mentions if (root := root_name(m)) is not None and root.id in names])}
        return module.project_mentions

    def _project_names(self, module: _Module, index: ModuleIndex) -> frozenset[str]:
        """Names the module binds to other project modules or their contents (by import, or by
        assignment from such a name): the only roots a cross-module reference can start from."""
        self._depend(module.name, CONTENT)
        if module.project_names is None:
            names = {b.name for b in index.imports if self._is_project_name(module, b.imported)}  # type: ignore[arg-type]
            for bindings in index.module_scope.bindings.values():
                for binding in bindings:
                    root = binding.value
                    while isinstance(root, (ast.Attribute, ast.Call)):
                        root = root.value if isinstance(root, ast.Attribute) else root.func
                    if isinstance(root, ast.Name) and root.id in names:
                        names.add(binding.name)
            module.project_names = frozenset(names)
        return module.project_names

    def _is_project_name(self, module: _Module, imported: str) -> bool:
        absolute = module.absolute(imported)
        return bool(absolute) and absolute.split(".")[0] in self._tops  # type: ignore[union-attr]

    def _imported_names(self, module: _Module, shallow: bool) -> set[str]:
        """The project modules a module's import lines name: `import a.b` names `a.b`, `from a import
        b, c` names `a.b` (a module), or the module `a` re-exports `c` from. `shallow`: a package
        entered for its own sake, of whose imports only its own re-exports are followed (relative,
        or absolute within the package: `from spell import scale` in `spell/__init__.py`)."""
        found = set()
        for statement in self._import_statements(module):
            if shallow and not _imports_within(statement, module.name):
                continue
            if isinstance(statement, ast.Import):
                found.update(alias.name for alias in statement.names if alias.name in self._modules)
            elif isinstance(statement, ast.ImportFrom):
                base = module.absolute("." * statement.level + (statement.module or "")) if statement.level \
                    else statement.module
                if not base or base not in self._modules:
                    continue
                found.add(base)
                for alias in statement.names:
                    if f"{base}.{alias.name}" in self._modules:
                        found.add(f"{base}.{alias.name}")
                    elif self._modules[base].is_package:  # a name the package re-exports
                        target = self._function(f"{base}.{alias.name}", _MAX_REEXPORTS)
                        found.update([target[0].name] if target is not None else [])
        return found - {module.name}
