"""The whole-program value flow in the index: which modules the link (codemods/analysis/flow/link.py) starts
from, each module's summary, and the link's answers, kept until a summary they were linked from changes."""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, Optional, Sequence, TYPE_CHECKING

from codemods.analysis.flow.flow_facts import FlowFacts
from codemods.analysis.kernel_scope import ModuleFacts
from codemods.analysis.flow.graph import closure
from codemods.analysis.flow.link import link
from codemods.analysis.flow.moved_sites import moved_answers, site_moves
from codemods.analysis.project.base import ProjectBase, SummaryStore
from codemods.analysis.project.modules import _KEPT, _Module, _NOT_SUMMARISED, _absolute, _hash, _is_jax, _top
from codemods.analysis.project.scan import _parsed
from codemods.analysis.flow.summary import ModuleSummary, as_data, from_data, summarise_tree

if TYPE_CHECKING:
    from concurrent.futures import Future


class LinkedFlow(ProjectBase):
    """The link's answers for the project (`link_flow`, `flow`)."""

    @property
    def flow(self) -> dict[str, FlowFacts]:
        """The whole-program value flow's answers, by module (link.py)."""
        self._settle_link()
        return self._flow

    def _settle_link(self) -> None:
        """Take the answers of a link running in another process, waiting for them (see
        `link_flow_elsewhere`)."""
        if self._linking is not None:
            linking, self._linking = self._linking, None
            self._take_link(linking.result())

    def link_flow_elsewhere(self, follows: Mapping[str, tuple[Optional[int], str]],
                            targets: "Optional[Iterable[Path | str]]",
                            fork: Callable[[Callable[[], tuple]], Future]) -> None:
        """`link_flow`, run in a process forked from this one (`fork(function)`: `function()` there,
        forked at once, its answer as a future), while this one works out the facts that do not read
        the link's answers (`learn_facts`): on a large tree the link's fixpoint is a fifth of a run's
        work, and the workers had nothing to do meanwhile. The answers are read back at the first
        use of `flow`, with the summaries the link made on demand, so that the state kept is the
        one `link_flow` here leaves."""
        global _LINKING
        _LINKING = (self, follows, targets)
        try:
            self._linking = fork(_link_here)
        finally:
            _LINKING = None

    def link_flow_from(self, linking: "Future") -> None:
        """The answers of `link_flow` worked out where this index is not (`linking`: a future of
        `linked_here`'s, from an index of the same files, a cluster's worker's), read back at the
        first use of `flow`, as `link_flow_elsewhere`'s."""
        self._linking = linking

    def facts_before_the_link(self, paths: "Sequence[Path | str]") -> dict[int, ModuleFacts]:
        """While a link runs elsewhere (`link_flow_elsewhere`), the facts, by position, of the modules
        at `paths` its answers cannot be about by what the import lines say: it starts from no
        module of their package and reads none (`_may_read`). Their files need not wait for the link
        (on the trees, 408 of the 767 files analysed). The caller checks them against `facts` once
        its answers are in: a link may read a module through an import its import lines miss."""
        if self._linking is None:
            return {}
        linked = self.linked()
        reach = linked | self._may_read(linked)
        modules = [(position, self._by_path.get(_absolute(path))) for position, path in enumerate(paths)]
        return {position: self._own_facts(module) for position, module in modules  # type: ignore[attr-defined]
                if module is not None and module.name not in reach}

    def linked_here(self, follows: Mapping[str, tuple[Optional[int], str]],
                     targets: "Optional[Iterable[Path | str]]") -> tuple:
        """`link_flow`, and what it learnt that `_take_link` keeps: in the forked process."""
        unsummarised = [module for module in self._modules.values() if module.flow_summary is _NOT_SUMMARISED]
        unhashed = [module for module in self._modules.values() if module.summary_hash is None]
        known = set(self._import_dependencies)
        self.link_flow(follows, targets)
        return (self._flow, self._flow_read, self._flow_scope, self._flow_key, self._learnt,
                {module.name: module.flow_summary for module in unsummarised if module.flow_summary is not _NOT_SUMMARISED},
                {module.name: module.summary_hash for module in unhashed if module.summary_hash is not None},
                {name: (self._module_imports[name], {part: self._value_of(part) for part in dependencies})  # type: ignore[attr-defined]
                 for name, dependencies in self._import_dependencies.items() if name not in known})

    def _take_link(self, linked: tuple) -> None:
        self._flow, self._flow_read, self._flow_scope, self._flow_key, learnt, summaries, hashes, imports = linked
        for name, summary in summaries.items():
            self._modules[name].flow_summary = summary
        for name, summary_hash in hashes.items():
            self._modules[name].summary_hash = summary_hash
        for name, (found, parts) in imports.items():  # with the values of what it read, for the state
            if name not in self._import_dependencies:
                self._module_imports[name], self._import_dependencies[name] = found, frozenset(parts)
                for part, value in parts.items():
                    self._part_values.setdefault(part, value)
        self._learnt = self._learnt or learnt  # (a kept link taken there learns nothing)

    def link_flow(self, follows: Mapping[str, tuple[Optional[int], str]],
                  targets: "Optional[Iterable[Path | str]]" = None) -> None:
        """The whole-program value flow's answers (`flow`): linked from the summaries of the modules
        that may bear on a kernel (`linked`) and of those their code reads, or the last run's where
        none of the modules it read and no followed call changed since (a pre-commit or editor run
        over an unchanged project links nothing; an edit elsewhere neither). `targets`: the run's
        files, where it runs on some of the project's: the link starts from what their answers
        need (`_link_scope`), and answers as the whole link would."""
        kept_scope = self._kept_flow[3]
        if kept_scope is None and self._take_kept_flow(self.linked(), follows):
            return
        scope = self._link_scope(targets) if targets is not None else None
        if scope is not None and kept_scope == scope and self._take_kept_flow(scope, follows):
            return
        start = self.linked() if scope is None else scope
        loadable = frozenset(name for name in self._modules if not _is_jax(name))
        flow, read = link(self.flow_summaries(start), follows, lambda name: self._flow_summary(self._modules[name]),
                          loadable)
        if scope is not None and not read <= self._may_read(scope):  # (see `_link_scope`)
            self.link_flow(follows)
            return
        complete = self._complete(read)
        self._flow = {name: facts.unfollowed(read - complete, lambda name: self._unfollowed_importers(name, read))
                      for name, facts in flow.items() if name in complete}
        self._flow_read, self._flow_scope = read - start, scope
        self._flow_key, self._learnt = (start | self._flow_read, dict(follows)), True  # (see `_kept_flow_key`)

    def _take_kept_flow(self, start: frozenset[str], follows: Mapping) -> bool:
        """Take the restored state's answers (linked from `start`) if nothing they read changed, or
        if the edits only moved the sites of the modules they read (see moved_sites.py)."""
        kept_key, kept_flow, kept_read, kept_scope = self._kept_flow
        read = start | kept_read
        moves: dict[str, dict] = {}
        # (no module changed: the answers kept are these, as a state is kept per set of rules run)
        if not kept_key:
            return False
        if not self._unchanged_since_kept and kept_key != self._flow_key_of(read, follows):
            moves = self._moved_sites(read)
            if not moves or kept_key != self._flow_key_of(read, follows, {name: self._kept_summaries[name]
                                                                           for name in moves}):
                return False
        try:
            flow = {name: FlowFacts.from_data(data) for name, data in kept_flow.items()}
        except ValueError:
            return False  # of another shape: linked again
        self._flow = moved_answers(flow, moves) if moves else flow
        self._flow_key = self._flow_key_of(read, follows) if moves else kept_key
        self._flow_read, self._flow_scope = kept_read, kept_scope
        return True

    def _kept_flow_key(self) -> str:
        """The key `flow` is kept by, made when a state is kept (`state`): the hashes of the summaries
        the link read are the last of its work and none of its answers; a run that keeps no state
        (`--no-cache`) never makes them, and a link elsewhere sends its answers without them."""
        if not isinstance(self._flow_key, str):
            self._flow_key = self._flow_key_of(*self._flow_key)
        return self._flow_key

    def _moved_sites(self, names: frozenset[str]) -> dict[str, dict]:
        """Of the modules `names` whose summary changed since the restored state, where each site
        went (`site_moves`); empty where any changed otherwise."""
        moves = {}
        for name in names & self._kept_summaries.keys():
            module = self._modules[name]
            if self._summary_hash(module) != self._kept_summaries[name]:
                summary, data = self._flow_summary(module), self._summary_store.data(name)
                moved = site_moves(data, as_data(summary)) if summary is not None and data is not None else None
                if moved is None:
                    return {}
                moves[name] = moved
        return moves

    @property
    def flow_modules(self) -> frozenset[str]:
        """The modules the link whose answers `flow` holds read: those it started from and those read
        on demand."""
        self._settle_link()
        return (self.linked() if self._flow_scope is None else self._flow_scope) | self._flow_read

    def _link_scope(self, targets: "Iterable[Path | str]") -> Optional[frozenset[str]]:
        """What a link for the files `targets` starts from where it need not be `linked` (None
        otherwise): every linked module that may reach a module whose answers it gives, so that
        they are the whole link's. The link is context-insensitive: a helper's parameters and
        return hold what every caller passes (`shared.pick(PAIR)` in one module reaches
        `shared.pick(None)` in another), so the files' importers are not enough. From import
        lines, by top-level package: the modules that may reach a package are its own and those
        whose import lines name it; those a module may read, its package's and those of the
        packages its import lines name (`import pkg` reads `pkg.sub.f`; `builtins`, the summary's
        name for what a module does not bind). The scope is the linked modules that may reach the
        files, grown by those that may reach what it may read until none is left out: no module
        outside it then writes or reads a value it reads (an import the import lines miss, `x = 1;
        import pkg`, makes the link read a module outside: `link_flow` links the whole; a module
        outside whose import of what it reads hides so is not seen, as `linked` misses it). A package
        most modules import (utilities, numpy in a site-packages tree) makes it the whole link, as
        a scope of more than half the linked modules does (it would cost as much, and serve only
        runs over these files)."""
        linked = self.linked()
        scope: set[str] = set()
        reaching: set[str] = set()  # the packages that may reach the files or what the scope may read
        read: set[str] = set()  # the packages the scope may read
        # (a package, whether the scope may read it)
        pending = [(_top(name), False) for path in targets if (name := self.module_of(path)) is not None]
        pending += [("builtins", True)] if "builtins" in self._tops else []
        while pending:
            top, may_read = pending.pop()
            if may_read and top not in read:
                read.add(top)
                pending += [(imported, True) for imported in self._tops_imported(top)]
            if top not in reaching:
                reaching.add(top)
                pending += [(importer, False) for importer in self._tops_importing(top)]
                starting = [name for name in self._modules_of(top) if name in linked]
                if starting:
                    scope.update(starting)
                    if 2 * len(scope) > len(linked):
                        return None
                    pending.append((top, True))
        return frozenset(scope)

    def _may_read(self, scope: frozenset[str]) -> set[str]:
        """The modules a link started from `scope` may read (see `_link_scope`)."""
        return {name for top in self._tops_read(scope) for name in self._modules_of(top)}

    def _tops_read(self, scope: "set[str] | frozenset[str]") -> set[str]:
        """The packages a link started from `scope` may read: theirs and what their import lines name."""
        return closure({_top(name) for name in scope} | ({"builtins"} & self._tops), self._tops_imported)

    def _modules_of(self, top: str) -> list[str]:
        """The modules of a top-level package, or the lone module (a notebook is its own)."""
        if self._by_top is None:
            self._by_top = {}
            for name in self._modules:
                self._by_top.setdefault(_top(name), []).append(name)
        return self._by_top.get(top, [])

    def _tops_importing(self, top: str) -> set[str]:
        """The top-level names of the modules that may reach package `top`: their import lines name
        it (looked up in the word table; jax's own never run in the link)."""
        return {_top(name) for name in self._importers_of(top.encode())
                if not _is_jax(name) and top in self._tops_named(name)}

    def _tops_imported(self, top: str) -> set[str]:
        """The project's top-level names the import lines of package `top`'s modules name (jax's left
        out: the link never reads jax)."""
        return {named for name in self._modules_of(top) for named in self._tops_named(name) if not _is_jax(named)}

    def _tops_named(self, name: str) -> set[str]:
        """The project's top-level names a module's import lines name (`import a.b`, `from a.b import
        c`: `a`; a relative import, as the link resolves it: in a lone module, `from .b import c`
        names `b`, `from . import c` names `c`)."""
        found = self._named_tops.get(name)
        if found is None:
            module = self._modules[name]
            with self._quiet():
                statements = self._import_statements(module)
            found = set()
            for statement in statements:
                if isinstance(statement, ast.Import):
                    found.update(alias.name.split(".", 1)[0] for alias in statement.names)
                elif isinstance(statement, ast.ImportFrom):
                    base = module.absolute("." * statement.level + (statement.module or ""))
                    found.update([base.split(".", 1)[0]] if base else [alias.name for alias in statement.names])
            found = self._named_tops[name] = found & self._tops
        return found

    def _flow_key_of(self, names: "frozenset[str] | set[str]", follows: Mapping,
                     hashes: Mapping[str, bytes] = {}) -> str:
        """What a link's answers are kept by: the summaries of the modules it read (all it reads of
        them: an edit that leaves a summary as it was, a comment or a blank line at the end of the
        module, links nothing), and the calls it followed. `hashes`: summary hashes to read instead
        of some modules' own (the restored state's)."""
        return _hash((sorted((name, hashes.get(name) or self._summary_hash(self._modules[name]))
                             for name in names if name in self._modules),
                      sorted(follows.items()))).hex()

    def _summary_hash(self, module: _Module) -> bytes:
        if module.summary_hash is None:
            summary = self._flow_summary(module)
            # (repr, not marshal: marshal's bytes depend on which equal strings are one object, and a
            # summary read back from the project state shares fewer than one just made)
            module.summary_hash = _hash(as_data(summary) if summary is not None else None)
        return module.summary_hash

    def flow_summaries(self, start: Optional[frozenset[str]] = None) -> Iterator[ModuleSummary]:
        """The summary of each module the link starts from (`start`, by default `linked`; the workers'
        where they made one; a notebook's from its code cells, where the index decodes them: a
        notebook passes values to the project's wrappers as any module does)."""
        for name in sorted(self.linked() if start is None else start):
            summary = self._flow_summary(self._modules[name])
            if summary is not None:
                yield summary

    def linked(self) -> frozenset[str]:
        """The modules the whole-program value flow starts from: every module of a top-level package
        (or a lone module) that launches kernels (it says pallas, or launches through another's
        helpers) or imports `jax.experimental.rnn` while importing the project (JAX003's LSTM, fixed
        outside kernels: `PLAIN_FOLLOWED`), each where the run's rules need it (a kernel-scoped rule,
        one that follows the LSTM), and every module that imports one of them, however
        indirectly (callers pass values in). What they import is read on demand (`link_flow`). Found from import lines,
        without a parse. Never jax itself: its names are the API the rules know, not project code
        to follow, even where jax's source lies in the tree."""
        if self._linked is None:
            self._frames.append(set())  # what it reads is its own, as kernel land's
            try:
                starting = [*(self._launching_modules() if self._kernel_rules else ()),
                            *(self._plain_starts() if self._plain_follows else ())]
                packages = {name.split(".", 1)[0] for name in starting if not _is_jax(name)}
                linked = {name for name in self._modules if name.split(".", 1)[0] in packages and not _is_jax(name)}
                linked |= flat_imports(self._modules, linked, self._tops_named)
                self._linked = frozenset(closure(linked, self._importers))
            finally:
                self._frames.pop()
        return self._linked

    def _importers(self, name: str) -> set[str]:
        """The modules whose import lines name module `name` (jax's left out): looked up in the word
        table (an import of `a.b.c` says `c`: `from a.b import c`, `from .c import f`, `import
        a.b.c`; one of a name `a.b` re-exports is an import of `a.b`), then read, so that a warm
        run parses the import lines of a few modules, not of every module of a large tree."""
        found = self._import_graph.get(name)
        if found is None:
            # (an import from outside `name`'s top-level package says that package's name too)
            top = name.split(".", 1)[0]
            outside = self._package_importers.get(top)
            if outside is None:
                outside = self._package_importers[top] = set(self._importers_of(top.encode()))
            found = self._import_graph[name] = {
                importer for importer in self._importers_of(name.rsplit(".", 1)[-1].encode())
                if (importer.split(".", 1)[0] == top or importer in outside or "." not in name)
                and not _is_jax(importer) and name in self._imports_of(importer)}
        return found

    def _imports_of(self, name: str) -> set[str]:
        """`_imported_names` of a module (not shallow), once a run, and kept in the project state with
        the parts it read (its import lines, the top-level names of the packages that re-export what
        it imports): a warm run reads none of them where none changed (JAX005's question whether two
        modules may share a process walks the imports of thousands of modules)."""
        found = self._module_imports.get(name)
        if found is None:
            kept = self._kept_imports.get(name)
            if kept is not None and self._stale_parts.isdisjoint(kept[1]):
                found, dependencies = set(kept[0]), kept[1]  # (the state keeps it as it is)
            else:
                self._frames.append(set())
                try:
                    found = self._imported_names(self._modules[name], False)
                finally:
                    dependencies = self._import_dependencies[name] = frozenset(self._frames.pop())
            if self._frames:
                self._frames[-1].update(dependencies)
            self._module_imports[name] = found
        return found

    def _kept_imports_now(self) -> dict[str, tuple[tuple, tuple]]:
        """Each module's `_imports_of` known in this run or kept from the last and still so, for the
        state (sorted: the same whichever process worked them out)."""
        kept = {name: entry for name, entry in self._kept_imports.items() if self._stale_parts.isdisjoint(entry[1])}
        kept.update((name, (tuple(sorted(self._module_imports[name])), tuple(sorted(dependencies, key=repr))))
                    for name, dependencies in self._import_dependencies.items())
        return kept

    def _complete(self, read: frozenset[str]) -> set[str]:
        """Of the modules a link read, those every importer of which, however indirect, it read too:
        what it says of their calls is all there is to say. Of a module read on demand that code
        outside the link imports (a helper of another package that plain code calls), the link
        knows some callers only: its answers are not kept, and the module's own analysis speaks."""
        partial = {name for name in read if self._importers(name) - read}
        return set(read) - closure(partial, self._imports_of)

    def _unfollowed_importers(self, name: str, read: frozenset[str]) -> tuple[str, ...]:
        """The modules outside a link (which read `read`) that import module `name`, or a module of the
        link importing it, however indirectly: code that may read its values unseen."""
        within = closure({name}, lambda module: self._importers(module) & read)
        return tuple(sorted(set().union(*(self._importers(module) for module in within)) - read))

    def _flow_summary(self, module: _Module) -> Optional[ModuleSummary]:
        """The module's summary for the whole-program value flow (link.py), from this index's parse
        (worked out in the worker that parses it, on a large tree). None: blank, or it does not parse."""
        if module.flow_summary is _KEPT:
            try:
                data = self._summary_store.data(module.name)
                module.flow_summary = from_data(data) if data is not None else _NOT_SUMMARISED
            except ValueError:  # of another shape: worked out again
                module.flow_summary = _NOT_SUMMARISED
            if module.flow_summary is _NOT_SUMMARISED:
                module.summary_hash = None
        if module.flow_summary is _NOT_SUMMARISED:
            shared = self._shared_summaries
            module.flow_summary = self._summarised(module) if shared is None else \
                shared.made(self._content_hash(module), module.name, module.is_package, lambda: self._summarised(module))
        return module.flow_summary  # type: ignore[return-value]

    def _summarised(self, module: _Module) -> Optional[ModuleSummary]:
        tree = self._tree(module) if self._bytes(module).strip() else None
        return summarise_tree(tree, module.name, module.is_package) if tree is not None else None

    def made_summaries(self, names: Iterable[str]) -> dict[str, Optional[ModuleSummary]]:
        """The whole-program summaries made of the modules `names` (by the map stage), for an index of
        the same files elsewhere that links (`take_summaries`): it need not make them again."""
        made = {name: self._modules[name].flow_summary for name in names}
        return {name: summary for name, summary in made.items()  # type: ignore[misc]
                if summary is not _NOT_SUMMARISED and summary is not _KEPT}

    def take_summaries(self, summaries: Mapping[str, Optional[ModuleSummary]]) -> None:
        """Summaries another index of the same files made (`made_summaries`)."""
        for name, summary in summaries.items():
            self._modules[name].flow_summary = summary

    def share_summaries(self, shared: "SummaryStore") -> None:
        """Take the summaries this index makes from `shared`, and keep there those it makes: a store
        by the hash of a module's bytes, its name and whether it is a package (what a summary is a
        function of), which the nodes of a cluster share."""
        self._shared_summaries = shared


_LINKING: Optional[tuple] = None  # (index, follows, targets) while `link_flow_elsewhere` forks


def _link_here() -> tuple:
    """In the process `link_flow_elsewhere` forked: its index's link."""
    assert _LINKING is not None
    index, follows, targets = _LINKING
    return index.linked_here(follows, targets)


def flat_imports(modules: Mapping[str, _Module], linked: set[str], named: Callable[[str], set[str]]) -> set[str]:
    """The lone modules a lone module of `linked` imports from its own folder, however indirectly (a
    flat layout: `model.py` says `import kernels  # noqa: F401`, whose decorators fill
    `registry.KERNELS`): linked as a package's modules are. Read on demand, a module runs none of its own
    calls until something reads them, and nothing reads `kernels`: the registry would stay empty of its
    bodies. (`named`: the project's top-level names a module's import lines name.)"""
    def lone(name: str) -> bool:
        module = modules.get(name)
        return module is not None and "." not in name and not module.is_package and not name.startswith("<")

    found: set[str] = set()
    pending = [name for name in linked if lone(name)]
    while pending:
        name = pending.pop()
        folder = os.path.dirname(modules[name].path)
        for imported in named(name):
            if imported not in linked and imported not in found and lone(imported) and not _is_jax(imported) \
                    and os.path.dirname(modules[imported].path) == folder:
                found.add(imported)
                pending.append(imported)
    return found
