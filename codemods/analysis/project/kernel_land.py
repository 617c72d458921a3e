"""Where kernels may run: the modules a launch of this project can reach (kernel land, from import
lines), the launch helpers modules define or forward to one another, and each module's own kernels
knowing the helpers it imports."""

from __future__ import annotations

import ast
import keyword
from typing import Optional

from codemods.analysis.kernel_scope import Backends, KernelScope, ModuleFacts, find_kernels
from codemods.analysis.project.base import ProjectBase
from codemods.analysis.project.modules import CONTENT, KERNEL_LAND, LAUNCHERS, LAUNCHING, PROJECT, _Module
from codemods.analysis.project.scan import _launchers_in, _may_define_launch_helpers, _may_hand_on


class KernelLand(ProjectBase):
    """Kernel land and the launch helpers across modules."""

    def _scope(self, module: _Module) -> Optional[KernelScope]:
        """The module's own kernels, knowing the launch helpers it imports."""
        def scope() -> Optional[KernelScope]:
            index = self._index(module)
            return None if index is None else find_kernels(index, ModuleFacts(launchers=self._imported_launchers(module)))
        return self._remembered(self._scopes, module.name, scope)  # type: ignore[return-value]

    def _imported_launchers(self, module: _Module) -> tuple:
        """Launch helpers (`def run(body): pl.pallas_call(body, ...)`) of the project modules it imports."""
        if not self._imports_project(module):
            return ()
        found: dict[str, tuple[Optional[int], str, Backends]] = {}
        for dependency in sorted(self._imported_names(module, shallow=False)):
            found.update(self._launch_helpers(self._modules[dependency]))
            found.update(self._forwarded_launchers(self._modules[dependency]))
        return tuple(sorted((name, *spec) for name, spec in {**found, **self._spellings(module, found)}.items()))

    def _launch_helpers(self, module: _Module) -> dict[str, tuple[Optional[int], str, Backends]]:
        self._depend(module.name, LAUNCHERS)
        if module.name not in self._launchers:
            kept = self._part_values.get((module.name, LAUNCHERS))  # the last run's, if the module is unchanged
            if kept is not None:
                self._launchers[module.name] = {name: (position, keyword, frozenset(backends))
                                                for name, position, keyword, backends in kept}  # type: ignore[attr-defined]
            else:
                with self._quiet():
                    self._find_launch_helpers(module)
        return self._launchers[module.name]

    def _find_launch_helpers(self, module: _Module) -> None:
        """A part of its own (LAUNCHERS): what its defs and partials launch, for its importers."""
        index = self._index(module) if _may_define_launch_helpers(self._bytes(module)) else None
        self._launchers[module.name] = _launchers_in(module.name, find_kernels(index)) if index is not None else {}

    def _forwarded_launchers(self, module: _Module) -> dict[str, tuple[Optional[int], str, Backends]]:
        """Its defs and partials that hand a body on to a launch helper it imports (`def run(body):
        tpu_call(body, ...)`, `run = functools.partial(tpu_call, ...)`): launchers of their own, for
        its importers, however long the chain. Not a part of its own: it depends on what it imports.
        Only a module that launches can (`_launching_modules`): of any other, nothing is read, which
        spares a walk of the import graph of every module asked."""
        if self._may_forward is not None:
            if module.name not in self._may_forward:
                return {}
        else:
            self._depend(PROJECT, (LAUNCHING, module.name))
            if module.name not in self._launching_modules():
                return {}

        def forwarded() -> dict[str, tuple[Optional[int], str, Backends]]:
            imported = self._imported_launchers(module)
            if not imported:
                return {}
            names = {name.rpartition(".")[2] for name, *_ in imported}
            names |= {alias.asname for statement in self._import_statements(module) if isinstance(statement, ast.ImportFrom)
                      for alias in statement.names if alias.asname and alias.name in names}  # `import run as _run`
            self._depend(module.name, CONTENT)  # its code decides, whether or not it is parsed
            if not _may_hand_on(self._bytes(module), names):
                return {}
            scope = self._scope(module)
            return _launchers_in(module.name, scope) if scope is not None else {}
        return self._remembered(self._forwarders, module.name, forwarded, in_progress={})  # type: ignore[return-value]

    def _in_kernel_land(self, name: str) -> bool:
        """Whether a kernel launched in this project can reach the module (a part of the project)."""
        self._depend(PROJECT, (KERNEL_LAND, name))
        return name in self._kernel_land()

    def _launching_modules(self) -> set[str]:
        """The modules that say pallas or launch through another module's launcher (a table built
        with kernel land): only they may hand a body on to a launcher."""
        self._kernel_land()
        assert self._launching is not None
        return self._launching

    def _kernel_land(self) -> set[str]:
        if self._reachable is None:
            self._frames.append(set())  # what it reads is its own, kept apart from any fact's
            try:
                self._reachable = self._find_kernel_land()
            finally:
                self._table_dependencies = self._frames.pop()
                self._learnt = True
        return self._reachable

    def _find_kernel_land(self) -> set[str]:
        """The modules a kernel launched in this project can reach: those that mention pallas (every
        launcher lives there) and what they import, transitively, read from their import lines
        without parsing the modules. A package's `__init__` is entered only for what is imported
        from it and for its relative imports (its own re-exports): `import jax` in a kernel module
        does not make all of jax kernel code. Code anywhere else never runs in a kernel here."""
        pending = [(m, False) for m in self._modules.values() if self._marker(m)]
        pending += [(m, False) for m in self._launching_through_helpers([m for m, _ in pending])]
        reachable = {m.name for m, _ in pending}
        self._launching = set(reachable)
        while pending:
            module, shallow = pending.pop()
            for target in self._imported_names(module, shallow):
                if target not in reachable:
                    reachable.add(target)
                    pending.append((self._modules[target], self._modules[target].is_package))
        return reachable

    def _launching_through_helpers(self, pallas_modules: list[_Module]) -> list[_Module]:
        """Modules that never say pallas but launch kernels through a launcher one of `pallas_modules`
        defines (`from .launch import tpu_call`, a def or a module-level partial), or one that such a
        module forwards to it (`def run(body): tpu_call(body)`), however long the chain: kernels run
        there. Until none is found, each round searches the importers of the launchers the last found
        (only these modules may forward one: `_may_forward`), then works out what every module found
        so far forwards again (a later one may lengthen an earlier one's chain)."""
        found: list[_Module] = []
        searched: set[tuple[str, bytes]] = set()
        pallas_modules = [module for module in pallas_modules if self._may_be_imported(module)]
        defining = [(module, self._launch_helpers(module)) for module in pallas_modules]
        self._may_forward = {module.name for module in pallas_modules}
        try:
            while True:
                # Imported by name (`from .launch import run`), or their module is (`from . import launch`).
                helpers = [(module.name, [name for name in (qualified.rpartition(".")[2].encode() for qualified in launchers)
                                          if (module.name, name) not in searched]) for module, launchers in defining]
                helpers = [(module, names) for module, names in helpers if names]
                if not helpers:
                    return found
                searched |= {(module, name) for module, names in helpers for name in names}
                words = {word for module, names in helpers for word in (*names, module.rpartition(".")[2].encode())}
                names = {name.decode() for _, listed in helpers for name in listed}
                defined_in = {module for module, _ in helpers}
                saying = self._importers_saying(words, tuple(sorted(names)), unmarked=True)
                found += [importer for importer in saying
                          if importer not in found and self._imported_names(importer, shallow=False) & defined_in]
                self._may_forward |= {module.name for module in found}
                self._forwarders.clear()  # answered while fewer modules could forward
                self._scopes.clear()
                defining = [(module, self._forwarded_launchers(module)) for module in [*pallas_modules, *found]]
        finally:
            self._may_forward = None
            self._forwarders.clear()
            self._scopes.clear()

    def _may_be_imported(self, module: _Module) -> bool:
        """Whether another module's imports may bring in its names: one says its last name in its
        imports and its code. Only then can a module that never says pallas launch with a launcher
        it defines: a module nothing imports (a script, a benchmark, a test's kernel, a notebook)
        is not analysed for launch helpers (in a repository of kernel scripts, every one was, on
        each run of one file). Nor is one that no import statement can name: a golden's
        `case.in.py` (every module whose import lines and code say `in` was taken for its importer),
        a notebook's `<name>.ipynb>`."""
        if not all(part.isidentifier() and not keyword.iskeyword(part) for part in module.name.split(".")):
            return False
        last = module.name.rpartition(".")[2]
        return bool(self._importers_saying({last.encode()}, (last,), exclude=module, limit=0))
