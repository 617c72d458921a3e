"""What one run leaves the next (`ProjectState`, kept in the result cache) and how the next takes it
over: the facts none of whose dependencies changed are reused, the others computed again."""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from typing import Optional

from codemods.analysis.kept_summaries import KeptSummaries
from codemods.analysis.kernel_scope import ModuleFacts
from codemods.analysis.project.base import ProjectBase
from codemods.analysis.project.modules import (
    CONTENT, IMPORTS, KERNEL_LAND, LAUNCHERS, MARKER, PROJECT, SEARCH, WRAPPERS, X64, _Dependency, _KEPT,
    _NOT_SUMMARISED, _hash, _launchers_value, _wrappers_value,
)
from codemods.analysis.flow.summary import ModuleSummary, as_data


@dataclass
class ProjectState:
    """What one run learnt about a project, for the next (plain data, kept in the result cache):
    each module's content hash, the facts computed with what they were computed from, the value of
    each part read (a hash), and the project-wide tables with what they were built from."""

    contents: dict[str, bytes] = field(default_factory=dict)
    facts: dict[str, tuple[ModuleFacts, frozenset]] = field(default_factory=dict)
    parts: dict[_Dependency, object] = field(default_factory=dict)
    tables: tuple = (None, None, None)  # (importers by word, kernel land, launching modules), each if built
    table_dependencies: frozenset = frozenset()  # of kernel land
    summaries: KeptSummaries = field(default_factory=KeptSummaries)
    # The link's answers (name -> FlowFacts.as_data) with the key of what they were linked from, the
    # modules it read on demand (beyond those it started from) and what it started from (None:
    # `linked`; else a run's `_link_scope`).
    flow: tuple = ("", {}, [], None)
    # Each module's project imports (`_imports_of`) with the parts they were read from.
    imports: dict[str, tuple[tuple, tuple]] = field(default_factory=dict)


class KeptState(ProjectBase):
    """The index's state between runs (`state`, `restore`, `changed`)."""

    @property
    def top_names(self) -> frozenset[bytes]:
        """The project's top-level module and package names, as bytes: what an import of it says."""
        return self._top_bytes

    def learnt(self) -> bool:
        """Whether this run learnt anything its `state()` should keep (a module changed, a fact or
        the tables were computed)."""
        return self._learnt

    @functools.cached_property
    def _layout(self) -> str:
        digest = hashlib.sha256()
        for name, path in sorted((module.name, path) for path, module in self._by_path.items()):
            digest.update(f"{name}\0{path}\0".encode())  # absolute: the same from any folder
        return digest.hexdigest()

    def layout(self) -> str:
        """A hash of the project's module names and paths: what a kept state is looked up by (an
        added, removed or renamed module starts the project's analysis afresh). Worked out once: a
        run asks it when it loads the state and when it keeps it, and its modules do not change."""
        return self._layout

    def state(self) -> ProjectState:
        """What this run learnt, for `restore` in the next run over the same layout."""
        self._settle_link()
        contents = {name: self._content_hash(module) for name, module in self._modules.items()}
        imports = self._kept_imports_now()  # type: ignore[attr-defined]
        needed = set(self._table_dependencies).union(*self._fact_dependencies.values(),
                                                     *(dependencies for _, dependencies in imports.values()))
        # (a part read this run or restored is in `_part_values`: taken there, not asked of `_value_of`
        # for each of the tens of thousands a large tree's facts read)
        known = self._part_values
        parts = {dependency: known[dependency] if dependency[0] != PROJECT and dependency in known
                 else self._value_of(dependency) for dependency in needed}
        parts.update({dependency: value for dependency, value in self._part_values.items() if dependency[1] == X64})
        reachable = sorted(self._reachable) if self._reachable is not None else None
        launching = sorted(self._launching) if self._launching is not None else None
        kept = self._summary_store.hashes
        summarised = [module for module in self._modules.values()
                      if module.flow_summary is _KEPT or isinstance(module.flow_summary, ModuleSummary)]
        hashes = {module.name: self._summary_hash(module) for module in summarised}
        summaries = self._summary_store.updated(hashes, {
            name: as_data(self._modules[name].flow_summary) for name, summary_hash in hashes.items()
            if kept.get(name) != summary_hash})
        flow = (self._kept_flow_key(), {name: facts.as_data() for name, facts in self._flow.items()}, sorted(self._flow_read),
                sorted(self._flow_scope) if self._flow_scope is not None else None)
        return ProjectState(contents, {name: (facts, self._fact_dependencies[name]) for name, facts in self._facts.items()},
                            parts, (self._importing, reachable, launching), frozenset(self._table_dependencies),
                            summaries, flow, imports)

    def restore(self, state: Optional[ProjectState], changed: Optional[set[str]] = None) -> set[str]:
        """Take over what an earlier run over the same layout learnt and this project still holds:
        the facts none of whose dependencies changed, and the project-wide tables (the word table
        updated for the changed modules; kernel land built again if what it read changed). Returns
        the modules whose code changed (`changed`, where the caller asked `changed(state)` already:
        on a large tree, each asking stats every file)."""
        if state is None:
            return set(self._modules)
        changed = self.changed(state) if changed is None else changed
        # (a changed module's summary as it was: an edit that only moved its sites moves the answers, see `link_flow`)
        self._summary_store, kept = state.summaries, state.summaries.hashes
        self._kept_summaries = {name: kept[name] for name in changed if name in kept}
        self._kept_flow = (state.flow[0], state.flow[1], frozenset(state.flow[2]),
                           frozenset(state.flow[3]) if state.flow[3] is not None else None)
        for name, summary_hash in kept.items():  # kept while its module's bytes are
            module = self._modules.get(name)
            if module is not None and name not in changed and module.flow_summary is _NOT_SUMMARISED:
                module.flow_summary, module.summary_hash = _KEPT, summary_hash
        self._learnt = bool(changed)
        self._unchanged_since_kept = not changed
        self._part_values.update({dependency: value for dependency, value in state.parts.items()
                                  if dependency[0] != PROJECT and dependency[0] not in changed})
        stale = {dependency for dependency in state.parts
                 if dependency[0] in changed and self._value_of(dependency) != state.parts[dependency]}
        # Searches first: kernel land reads some (who imports a launcher), and a changed module may
        # answer one otherwise now (the first import of a launcher) without any part it read changing.
        stale |= {dependency for dependency in state.parts
                  if dependency[0] == PROJECT and dependency[1][0] == SEARCH and self._answer_changed(dependency[1], changed)}
        importing, reachable, launching = (*state.tables, None)[:3]  # a state without launching modules: built again
        if importing is not None:
            self._importing = importing
            for name in changed:
                self._index_import_words(self._modules[name])
        if reachable is not None and launching is not None and not stale & state.table_dependencies:
            self._reachable, self._table_dependencies = set(reachable), set(state.table_dependencies)
            self._launching = set(launching)
        # (whether a module is in kernel land, or launches: asked of the tables, once they are restored)
        stale |= {dependency for dependency, value in state.parts.items()
                  if dependency[0] == PROJECT and dependency[1][0] != SEARCH and self._value_of(dependency) != value}
        for name, (facts, dependencies) in state.facts.items():
            if not dependencies & stale:
                self._facts[name], self._fact_dependencies[name] = facts, dependencies
        self._kept_imports, self._stale_parts = state.imports, stale
        return changed

    def changed(self, state: Optional[ProjectState]) -> set[str]:
        """The modules whose code is not the code `state` was learnt from (every module without one)."""
        if state is None:
            return set(self._modules)
        return {name for name, module in self._modules.items() if state.contents.get(name) != self._content_hash(module)}

    def _value_of(self, dependency: _Dependency) -> object:
        """The value of a part (see CONTENT), as this project's code gives it."""
        name, part = dependency
        if name == PROJECT:  # not kept between runs in _part_values: the tables may change
            # A search's answer is its key: `restore` checks it against the changed modules.
            if part[0] == SEARCH:
                return True
            return part[1] in (self._kernel_land() if part[0] == KERNEL_LAND else self._launching_modules())
        if dependency not in self._part_values:
            with self._quiet():
                module = self._modules[name]
                if part == CONTENT:
                    value: object = self._content_hash(module)
                elif part == IMPORTS:
                    value = _hash(self._import_texts(module))
                elif part == MARKER:
                    value = self._marker(module)
                elif part == LAUNCHERS:
                    value = _launchers_value(self._launch_helpers(module))
                elif part == WRAPPERS:
                    value = _wrappers_value(self._precision_wrappers(module))
                elif part == X64:
                    value = self._x64_line(module)
                else:
                    value = self._top_level_entry(module, part[1])
            self._part_values[dependency] = value
        return self._part_values[dependency]
