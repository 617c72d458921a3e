"""One module's facts (ModuleFacts): its needy names and how other modules use them, the launch helpers
and precision wrappers it imports, its imports of names that are jax's; worked out again where the
search met itself, until the answer does not depend on which module was asked first."""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Iterator, Optional

from codemods.analysis.flow.graph import closure
from codemods.analysis.kernel_scope import Backends, KERNEL_MARKER, MAYBE, ModuleFacts, find_kernels, precision_wrappers
from codemods.analysis.module import import_binding
from codemods.analysis.project.base import ProjectBase
from codemods.analysis.project.modules import CONTENT, WRAPPERS, X64, _MAX_REEXPORTS, _Module, _absolute
from codemods.analysis.project.scan import (
    _POSITIONAL_PRECISION, _hint_offsets, _holder, _launchable_parts, _may_fail_bytes, _may_fail_in_a_kernel,
    _may_wrap_a_precision, _precision_constants, _reaching, _ref_takers, _says_a_launcher,
)
from codemods.analysis.project.usage import _MAX_REFERRERS
from codemods.analysis.x64_switch import says_x64, x64_switch


_MAX_CYCLE_ROUNDS = 8  # see ProjectIndex._fact_through_cycles


class FactsSearch(ProjectBase):
    """What the rest of the project says about one module (`facts`)."""

    def facts(self, path: Path) -> ModuleFacts:
        """What the rest of the project says about the module at `path` (empty if nothing)."""
        module = self._by_path.get(_absolute(path))
        if module is None:
            return ModuleFacts()
        facts = self._own_facts(module)
        flow = self.flow.get(module.name)
        facts = facts if flow is None else replace(facts, flow=flow.placed(self.notebook_place))
        # (only where kernels may run: elsewhere no rule asks, and the facts stay empty)
        elsewhere = self._x64_elsewhere(module) if self._kernel_rules and (facts.holds_kernels or self._marked(module)) \
            else ()
        return replace(facts, x64_elsewhere=elsewhere) if elsewhere else facts

    def _x64_elsewhere(self, module: _Module) -> tuple:
        """Where another module that may run in the same process may turn jax_enable_x64 on (the flag
        is process-wide): (its name, line), the first in the project's order; () if none. Each
        module's line is a part kept by value (X64), so that a warm run reads only the changed
        modules' bytes for it."""
        if self._x64_sites is None:
            self._x64_sites = [(other.name, line) for other in self._in_order(self._modules)
                               if (line := self._x64_line(other))]
        return next(((name, line) for name, line in self._x64_sites
                     if name != module.name and module.name in self._same_process(name)), ())

    def _same_process(self, name: str) -> set[str]:
        """The modules a process that imports module `name` may import too: what its importers,
        however indirect, and it import, however indirectly (a `conftest.py` no module imports
        reaches only its own imports; another package of the same tree, nothing)."""
        if name not in self._processes:
            self._processes[name] = closure(closure({name}, self._importers), self._imports_of)  # type: ignore[attr-defined]
        return self._processes[name]

    def _x64_line(self, module: _Module) -> int:
        dependency = (module.name, X64)
        if dependency not in self._part_values:
            line = 0
            # (jax's own modules name the flag to define it; a module that says x64 nowhere is not parsed)
            if module.name.split(".")[0] not in ("jax", "jaxlib") and says_x64(self._bytes(module)):
                with self._quiet():
                    index = self._index(module)
                switch = x64_switch(index) if index is not None else None
                line = switch.lineno if switch is not None else 0
            self._part_values[dependency] = line
        return self._part_values[dependency]  # type: ignore[return-value]

    def learn_facts(self, paths: "Iterable[Path | str]") -> None:
        """Work out the facts of the modules at `paths`, in order, but for the link's answers, which
        `facts` joins: what the main process does while a link runs elsewhere (`link_flow_elsewhere`)."""
        for path in paths:
            module = self._by_path.get(_absolute(path))
            if module is not None:
                self._own_facts(module)

    def _own_facts(self, module: _Module) -> ModuleFacts:
        """The module's facts but for the link's answers, worked out once (none where no kernel-scoped
        rule runs: which kernels other modules launch is asked by none)."""
        if not self._kernel_rules:
            return ModuleFacts()
        if module.name not in self._facts:
            facts, dependencies = self._fact_through_cycles(module)
            self._facts[module.name] = facts
            self._fact_dependencies[module.name] = frozenset(dependencies)
            self._learnt = True
        return self._facts[module.name]

    def _fact_through_cycles(self, module: _Module) -> tuple[ModuleFacts, set]:
        """The module's facts. Where the computation met itself (`ops.mm` calls `helpers.h`, which
        calls `ops.mm`), what it found there was partial (a value in progress: see `_remembered`):
        it is computed again with the values found as those in progress, until none changes, so
        that the answer does not depend on which module was asked first. Uses only grow (a union),
        so this ends; `_MAX_CYCLE_ROUNDS` bounds it all the same. Where each value read in progress
        is the value it came to, the first computation was exact and is kept."""
        self._seeds = {}
        for _ in range(_MAX_CYCLE_ROUNDS):
            self._frames.append(set())
            try:
                facts = self._facts_of(module)
            finally:
                dependencies = self._frames.pop()
                cycle, made, read = self._cycle_in_this_fact, self._made_in_this_fact, self._read_in_progress
                if cycle:  # see `_remembered`
                    for memo in self._memos_of_this_fact:
                        memo |= dependencies
                self._memos_of_this_fact, self._made_in_this_fact, self._cycle_in_this_fact = [], [], False
                self._read_in_progress = {}
            # Exact where every value read in progress is what it came to (most cycles: a use that adds nothing).
            final = {ident: memo[key][0] for ident, (memo, key, _) in read.items() if key in memo}
            if all(final.get(ident) == value for ident, (_, _, value) in read.items()):
                break
            for memo, key in made:  # computed from values in progress: again, from what they came to
                memo.pop(key, None)
            self._seeds = final
        self._seeds = {}
        return facts, dependencies

    def _facts_of(self, module: _Module) -> ModuleFacts:
        self._depend(module.name, CONTENT)
        if len(self._modules) == 1 and not self._imports_project(module):
            return ModuleFacts()  # a lone file (pre-commit's script, an editor's): no other module says anything of it
        raw = self._bytes(module)
        wrappers = self._imported_precision_wrappers(module)
        if KERNEL_MARKER not in raw and not self._in_kernel_land(module.name):
            # No kernel of this project reaches it (a set lookup: first). It may still launch its own
            # with a launcher a project module re-exports (`from pkg.compat import plgpu`, then
            # `plgpu.kernel(body, ...)`): its rules read those names as jax's.
            facts = ModuleFacts(through=self._imported_from_outside(module)) if _says_a_launcher(raw) else ModuleFacts()
            return self._with_wrappers(module, facts, wrappers)
        if not self._is_relevant(module):
            return ModuleFacts()
        needy = self._needy_names(module)
        if not needy:
            return self._with_wrappers(module, ModuleFacts(), wrappers)  # nothing in it can fail in a kernel
        launchers = self._imported_launchers(module)
        kernels, shared = [], set()
        for name in needy:
            usage = self._usage(module, name)
            if usage.backends:
                kernels.append((name, usage.backends, usage.why, usage.role))
                kernels += [(f"{name}.{member}", usage.backends, usage.why, usage.role) for member in usage.members]
            if usage.plain:
                shared.add(name)
        launched = {name for name, *_ in kernels}
        kernels += self._maybe_launched(module, [name for name in needy if name not in launched])
        return ModuleFacts(tuple(sorted(kernels)), frozenset(shared), launchers, self._imported_from_outside(module),
                           self._constants_read_elsewhere(module), wrappers)

    def _with_wrappers(self, module: _Module, facts: ModuleFacts, wrappers: tuple) -> ModuleFacts:
        """`facts` with the precision wrappers the module calls, and then its constants that other
        modules read too (a value it hands a wrapper may be one: a fix rewrites it where it is set)."""
        return facts if not wrappers else \
            replace(facts, precision_wrappers=wrappers, read_elsewhere=self._constants_read_elsewhere(module))

    def _imported_precision_wrappers(self, module: _Module) -> tuple:
        """The precision wrappers (ModuleFacts.precision_wrappers) of the project modules it imports,
        by the names it calls them by."""
        if not self._imports_project(module):
            return ()
        found: dict[str, tuple[Optional[int], str, Backends, bool]] = {}
        for dependency in sorted(self._imported_names(module, shallow=False)):
            found.update(self._precision_wrappers(self._modules[dependency]))
        if not found or not self._is_relevant(module):
            return ()
        return tuple(sorted((name, *spec) for name, spec in {**found, **self._spellings(module, found)}.items()))

    def _precision_wrappers(self, module: _Module) -> dict[str, tuple[Optional[int], str, Backends, bool]]:
        """Its top-level defs that hand a parameter to a kernel of theirs as its precision, by
        qualified name (see `precision_wrappers`): a part of its own (WRAPPERS), so that an edit of
        its code elsewhere leaves its importers' facts alone. Its own launches only (a kernel it
        launches through another module's launcher is not asked about). Only a module that says
        pallas and binds a precision to a name a def takes is parsed for it."""
        self._depend(module.name, WRAPPERS)
        if module.name not in self._wrappers:
            kept = self._part_values.get((module.name, WRAPPERS))  # the last run's, if the module is unchanged
            if kept is not None:
                self._wrappers[module.name] = {name: (position, keyword, frozenset(backends), plain)
                                               for name, position, keyword, backends, plain in kept}  # type: ignore[attr-defined]
            else:
                with self._quiet():
                    raw = self._bytes(module)
                    index = self._index(module) if KERNEL_MARKER in raw and _may_wrap_a_precision(raw) else None
                    self._wrappers[module.name] = {} if index is None else \
                        {f"{module.name}.{name}": spec
                         for name, spec in precision_wrappers(find_kernels(index), _POSITIONAL_PRECISION).items()}
        return self._wrappers[module.name]

    def _imported_from_outside(self, module: _Module) -> tuple[tuple[str, str], ...]:
        """Its imports of a project module's name that the project module imports from jax (`ops.py`:
        `from jax import lax`; here `from pkg.ops import lax`): each as its index spells it, with
        what it is (`jax.lax`), so that its calls read as jax's (ModuleFacts.through). From its
        import lines alone: a module whose facts say nothing else is not parsed for them."""
        return self._remembered(self._outside_imports, module.name, lambda: self._find_imported_from_outside(module))  # type: ignore[return-value]

    def _find_imported_from_outside(self, module: _Module) -> tuple[tuple[str, str], ...]:
        if "jax" in self._tops or not self._imports_project(module):
            return ()  # (a tree that holds jax itself: its names are the project's, none comes from outside)
        found = set()
        for statement in self._import_statements(module):
            for alias in statement.names:
                if alias.name == "*":
                    continue
                bound, spelled = import_binding(statement, alias)
                # The module an import names: `import pkg.compat` binds `pkg`, and its code says `pkg.compat`.
                named, said = (alias.name, alias.asname or alias.name) if isinstance(statement, ast.Import) \
                    else (spelled, bound)
                absolute = module.absolute(named)
                if absolute in self._modules:  # a project module: its attributes (`compat.lax.dot`)
                    found.update((f"{named}.{name}", outside)
                                 for name, outside in self._attributes_from_outside(module, absolute, said))
                elif absolute and isinstance(statement, ast.ImportFrom):
                    outside = self._outside_name(absolute, _MAX_REEXPORTS)
                    if outside is not None and outside.split(".")[0] == "jax":
                        found.add((spelled, outside))
        return tuple(sorted(found))

    def _attributes_from_outside(self, module: _Module, imported: str, said: str) -> Iterator[tuple[str, str]]:
        """The names of the project module `imported` that `module` says as its attributes (`said.name`)
        and that are jax's, each with jax's name for it. Only names the imported module's import
        lines bind are asked of its top-level table (a parse): most attributes are its own defs."""
        # The attributes it says, in one pass over its bytes (a module of jax itself says hundreds).
        attributes = set(re.findall(rb"(?<![\w.])" + re.escape(said.encode()) + rb"\.(\w+)", self._bytes(module)))
        if not attributes:
            return
        bound = {import_binding(statement, alias)[0] for statement in self._import_statements(self._modules[imported])
                 for alias in statement.names if alias.name != "*"}
        for name in sorted(bound):
            if name.encode() in attributes:
                outside = self._outside_name(f"{imported}.{name}", _MAX_REEXPORTS)
                if outside is not None and outside.split(".")[0] == "jax":
                    yield name, outside

    def _maybe_launched(self, module: _Module, needy: list[str]) -> list[tuple[str, Backends, str, str]]:
        """Its needy defs that take refs as kernel bodies do, where a module that imports it launches a
        body its analysis cannot resolve (`getattr(bodies, name)`, `from bodies import *`): one of them
        may be that body (MAYBE, a [manual] note where it may fail), never silently plain code."""
        # (`_needy_names` found them on the parse that found `needy`, here or in a worker)
        bodies = [name for name in module.ref_takers or () if name in needy]
        if not bodies:
            return []
        word = module.name.rpartition(".")[2]
        importers = self._importers_saying({word.encode()}, (word,), exclude=module, limit=_MAX_REFERRERS)
        found: list[tuple[str, Backends, str, str]] = []
        for importer in importers if len(importers) <= _MAX_REFERRERS else ():  # else a library's API
            # Only a module that launches (in kernel land, saying pallas or importing a launcher) can.
            launches = self._in_kernel_land(importer.name) and (
                self._marker(importer) or bool(self._imported_launchers(importer)))
            scope = self._scope(importer) if launches else None
            for site, reason, launched in scope.unresolved if scope is not None else ():
                line = scope.module.position(site)[0]
                why = f"the launch on line {line} of {importer.name} runs a body this analysis cannot resolve ({reason})"
                found += [(name, launched, why, MAYBE) for name in bodies]
        return found

    def _needy_names(self, module: _Module) -> list[str]:
        """Top-level defs and values whose own code holds a call that may fail in a kernel (read from
        the bare syntax tree: the full index is built only for modules the search visits)."""
        self._depend(module.name, CONTENT)
        if module.needy is not None:
            return module.needy
        raw = self._bytes(module)
        module.needy = []
        hints = _hint_offsets(raw)  # none: `_may_fail_bytes` is false (one pass over the module, not two)
        if not hints:
            return module.needy
        tree = self._tree(module)
        starts = [0, *(match.end() for match in re.finditer(rb"\r\n|\r|\n", raw))]
        names = []
        for statement in tree.body if tree is not None else ():
            start = starts[statement.lineno - 1]
            end = starts[statement.end_lineno] if statement.end_lineno < len(starts) else len(raw)
            first = bisect.bisect_left(hints, start)
            if first == len(hints) or hints[first] >= end:
                continue  # no hint of a failing call starts in it: most statements stop here
            if not _may_fail_bytes(raw[start:end]):
                continue  # the walk below costs more than this look at its bytes
            # A def; a class: its members (`kernel = staticmethod(partial(body, ...))`); a partial, or
            # a container of partials, however it is filled.
            name = statement.name if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                else _holder(statement)
            if name is None:
                continue
            # (the walk stops at the first call that may fail: the bytes said one is likely there)
            if any(node.__class__ is ast.Call and _may_fail_in_a_kernel(node)
                   for part in _launchable_parts(statement) for node in ast.walk(part)):
                names.append(name)
        module.needy = names + _reaching(tree, raw, starts, set(names)) if names else names
        module.ref_takers = _ref_takers(tree) if tree is not None else []  # `_maybe_launched` asks, on the same parse
        module.constants = _precision_constants(tree)  # and `_constants_read_elsewhere`
        return module.needy
