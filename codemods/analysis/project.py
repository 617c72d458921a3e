"""The project as a set of modules: kernel bodies, helpers and launchers that live in different files.

Real kernel packages define a body in `kernels.py`, its helpers in `ops/math.py` and launch it with
`pl.pallas_call` in `api.py`. Each file is still analysed on its own (in parallel, cached); what the
rest of the project says about it travels as `ModuleFacts`: "your `body` is launched for Mosaic
TPU", "your `act` is called from a kernel, and plain XLA code calls it too", "`pkg.launch.run`
passes its first argument on as a kernel body".

The search is driven by need and runs backwards. Only a module that passes a rule's prefilter can
have a finding; in it, only a top-level def or value whose own source passes the prefilter can
need a fix (a "needy" name). For each needy name the index asks who uses it: the modules of the
project whose words include the name and a part of the module's dotted name (a word index, built
once per module that imports the project), parsed on demand. A use inside a kernel (local to
that module, or launched there) gives the backends; a use inside another function asks the same
question of that function; a use in plain code marks the name as shared with XLA. A module that
needs none of this is never parsed here, so a tree with no kernel code costs a byte scan.

A run's answers outlive it (`state()`, `restore()`): each module's facts are kept with what they
were computed from, module by module, and part by part of each module: its whole code, or only its
imports, its top-level names, its launch helpers or whether it says a word. An edit is checked
against those parts alone; the facts it cannot have changed are reused, the others computed
again, so a one-line change in a large tree costs the modules it touches, not the project.

The answer depends on the project and the module alone, never on which files a run processes:
one file, a shard or a PR's files get the facts the whole run gets. Names from a C extension or an
installed package, a module that does not parse, a relative import above the root and an import
cycle yield nothing more; the rest proceeds.
"""

from __future__ import annotations

import ast
import bisect
import hashlib
import keyword
import os
import re
import sys
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Optional, TypeVar

from codemods.analysis.kernel_scope import (
    BODY, FACTORY, HELPER, KERNEL_MARKER, MAYBE, MOSAIC_TPU, Backends, KernelScope, ModuleFacts, defined_launchers,
    find_kernels, precision_taken, precision_wrappers, takes_refs,
)
from codemods.analysis.flow.flow_facts import FlowFacts
from codemods.analysis.flow.graph import closure
from codemods.analysis.kept_summaries import KeptSummaries
from codemods.analysis.flow.link import link
from codemods.analysis.flow.moved_sites import moved_answers, site_moves
from codemods.analysis.flow.summary import ModuleSummary, as_data, from_data, summarise_tree
from codemods.analysis.module import MAX_ALIAS_DEPTH, FunctionNode, ModuleIndex, import_binding
from codemods.analysis.names import root_name
from codemods.analysis.value_flow import returned_values
from codemods.capabilities import PRECISION_NAMES, Level
from codemods.engine.rule import WORD_BYTES

if TYPE_CHECKING:
    from concurrent.futures import Future

FUNCTION_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NOT_SUMMARISED = object()
_KEPT = object()  # a module's summary is the restored state's (`KeptSummaries`), read when asked for

_MAX_REFERRERS = 16  # see ProjectIndex._referrers
_MAX_CYCLE_ROUNDS = 8  # see ProjectIndex._fact_through_cycles
_MAX_REEXPORTS = 8  # `from .a import f` in `__init__.py`, re-exported again ...: deeper chains are not followed
# Every byte that cannot be part of an identifier, as a space: a module's words are then its bytes
# split, in C (twice as fast as a regex's matches on 6,500 modules). A run of digits and letters
# that starts with a digit (`0x1f`, `3j`) is one word too, that no name can equal.
_SPACE_FOR_NON_WORD = bytes(byte if byte in WORD_BYTES else 0x20 for byte in range(256))


def _words(code: bytes) -> frozenset[bytes]:
    """The words `code` says: the names it may bind or use, and its numbers."""
    return frozenset(code.translate(_SPACE_FOR_NON_WORD).split())


# An import statement's first module: None for a relative one (`from . import x`, `from .a import x`).
_FIRST_IMPORTED = re.compile(rb"[ \t]*(?:from[ \t]+(?:\.|([A-Za-z_]\w*))|import[ \t]+([A-Za-z_]\w*))")
_IMPORT_STATEMENT = rb"[ \t]*(?:from[ \t]+\S+[ \t]+import[ \t]*\([^)]*\)|(?:from|import)[ \t][^\n]*)"
# Where an import line starts: the file's start, or after a newline. The search for the latter
# starts with the newline (a literal, which the regex engine skips to) rather than `^` under
# MULTILINE (tried at every byte): half the time on 6,500 modules, the same lines.
_IMPORT_AT_START = re.compile(_IMPORT_STATEMENT)
_IMPORT_AFTER_NEWLINE = re.compile(rb"\n(" + _IMPORT_STATEMENT + rb")")


def module_name(path: "Path | str", packages: set[str], prefixes: Optional[dict[str, str]] = None) -> tuple[str, bool]:
    """`src/pkg/sub/mod.py` -> ("pkg.sub.mod", False), the dotted name Python imports it by when its
    package folders (`packages`: those holding an `__init__.py`, as strs) are `src/pkg` and
    `src/pkg/sub`; `pkg/__init__.py` -> ("pkg", True). `prefixes`: each folder's package name, as
    worked out for the modules before (a large tree has thousands of modules in hundreds of
    folders; strings, not Paths: pathlib's parsing was most of the index's start-up)."""
    folder, file = os.path.split(os.path.normpath(os.fspath(path)))
    stem = file[:-3] if file.endswith(".py") else os.path.splitext(file)[0]
    package = _package_name(folder, packages, {} if prefixes is None else prefixes)
    if stem == "__init__":
        return package, True
    return f"{package}.{stem}" if package else stem, False


def _package_name(folder: str, packages: set[str], prefixes: dict[str, str]) -> str:
    """The dotted name of the package `folder` is ("" if it is none)."""
    if folder not in prefixes:
        parent, name = os.path.split(folder)
        outer = _package_name(parent, packages, prefixes) if name and parent != folder else ""
        prefixes[folder] = "" if folder not in packages else f"{outer}.{name}" if outer else name
    return prefixes[folder]


# The parts of a module that facts about other modules may depend on (see the module's docstring).
# Any other read depends on its whole code (CONTENT). A part is kept as a hash (CONTENT, IMPORTS),
# or as its value where that is small (MARKER: whether it says pallas; `(TOP_LEVEL, name)`: what
# one top-level name is; LAUNCHERS): a kept value also spares the next run reading or parsing the
# module to know it.
CONTENT, IMPORTS, MARKER, TOP_LEVEL, LAUNCHERS = "content", "imports", "marker", "top_level", "launchers"
WRAPPERS = "wrappers"  # its precision wrappers (see `_precision_wrappers`), kept by value as LAUNCHERS
# Parts of the project as a whole, under the module name "" (no module's): whether a module is in
# kernel land; the answer of a search of the importers for a word (`_importers_saying`); whether a
# module launches kernels (says pallas, or launches through another module's launcher).
PROJECT, KERNEL_LAND, SEARCH, LAUNCHING = "", "kernel land", "search", "launching"
_Dependency = tuple  # (module name, part)


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


@dataclass(frozen=True)
class Usage:
    """How the rest of the project uses one function or value."""

    backends: Backends = frozenset()  # of the kernels that run it
    role: str = HELPER  # BODY: handed to a launcher; FACTORY: what it returns is; HELPER: called from kernels
    plain: bool = False  # plain XLA code runs it too
    why: str = ""
    members: frozenset[str] = frozenset()  # of a class: the attributes launched (`Holder.kernel`)

    def __or__(self, other: "Usage") -> "Usage":
        roles = {self.role, other.role}
        role = FACTORY if FACTORY in roles else BODY if BODY in roles else HELPER
        return Usage(self.backends | other.backends, role, self.plain or other.plain, self.why or other.why,
                     self.members | other.members)


@dataclass
class _Module:
    path: str  # absolute
    name: str
    is_package: bool
    index: Optional[ModuleIndex] = None
    tree: Optional[ast.Module] = None  # parsed, not yet indexed
    needy: Optional[list[str]] = None  # see ProjectIndex._needy_names
    ref_takers: Optional[list[str]] = None  # its top-level defs that take refs, where `_needy_names` found any needy
    constants: Optional[list[str]] = None  # its top-level constants that may be a precision, from the same parse
    relevant: Optional[bool] = None  # see ProjectIndex._is_relevant
    parse_failed: bool = False
    raw: Optional[bytes] = None  # its bytes, once read (asked for thousands of times on a large tree)
    content: Optional[bytes] = None  # the hash of its bytes
    import_texts: Optional[list[bytes]] = None  # its import statements' source
    import_statements: Optional[list[ast.stmt]] = None
    import_words: Optional[frozenset[bytes]] = None
    words: Optional[frozenset[bytes]] = None  # every identifier in it
    said: Optional[frozenset[bytes]] = None  # those of the summary's needy names (ProjectIndex._named) it says
    project_mentions: Optional[dict] = None
    top_level: Optional[dict[str, str]] = None  # see ProjectIndex._top_level
    project_names: Optional[frozenset[str]] = None  # names it binds to project modules (import roots)
    holders: Optional[dict[str, list[tuple[str, frozenset[str]]]]] = None  # see ProjectIndex._holders
    dotted: Optional[dict[str, set[str]]] = None  # see ProjectIndex._dotted_names
    prefiltered: object = None  # see ProjectIndex.prefiltered
    flow_summary: object = None  # see ProjectIndex._flow_summary (_NOT_SUMMARISED until worked out)
    summary_hash: Optional[bytes] = None  # of the flow summary's data (ProjectIndex._summary_hash)

    def __post_init__(self) -> None:
        self.flow_summary = _NOT_SUMMARISED

    def absolute(self, name: str) -> Optional[str]:
        """A qualified name with a relative import's dots (`..ops.act`) made absolute; None above the root."""
        if not name.startswith("."):
            return name
        level = len(name) - len(name.lstrip("."))
        package = self.name.split(".") if self.is_package else self.name.split(".")[:-1]
        if level - 1 > len(package):
            return None
        base = package[: len(package) - (level - 1)]
        rest = name[level:]
        return ".".join([*base, rest]) if rest else ".".join(base) or None


class ProjectIndex:
    """Cross-module facts for the files of one project, computed on demand (main process)."""

    def __init__(self, files: "Iterable[Path | str]", read: Callable[[str], bytes],
                 relevant: Callable[[bytes], bool] = lambda code: True,
                 content_hash: Optional[Callable[[str], bytes]] = None,
                 prefilter: Optional[Callable[[str], object]] = None) -> None:
        """`read(path)`: a file's bytes (`path`: a str, as given; a notebook's: the Python of its code cells); `relevant(code)`:
        whether a rule may have something to do in `code` (its prefilter, for code inside a kernel);
        `content_hash(path)`: a hash of the file's bytes (`path`: absolute, a str), known without
        reading an unchanged file (by default the bytes `read` gives are hashed); `prefilter(path)`:
        the caller's own answer about a file (`path`: absolute), worked out by the summary's
        workers with the rest of a module's summary, where its bytes are read (see `prefiltered`).
        A notebook (`.ipynb`) is a module no other imports: its kernels may call the project's
        helpers and launchers, so it is indexed under a name no import can spell."""
        self._read = read
        self._relevant = relevant
        self._prefilter = prefilter
        self._hash_of_path = content_hash
        self._modules: dict[str, _Module] = {}
        self._by_path: dict[str, _Module] = {}  # by absolute path (a str: hashing Paths costs)
        files = [os.fspath(path) for path in files]
        packages = {os.path.dirname(os.path.normpath(path)) for path in files if os.path.basename(path) == "__init__.py"}
        prefixes: dict[str, str] = {}  # see module_name
        for path in files:
            absolute = _absolute(path)
            if path.lower().endswith(".ipynb"):
                name, is_package = f"<notebook {absolute}>", False
            else:
                name, is_package = module_name(path, packages, prefixes)
                if not name or not all(part.isidentifier() for part in name.split(".")):
                    continue
            if name not in self._modules:
                module = _Module(absolute, name, is_package)
                self._modules[name] = module
                self._by_path[absolute] = module
        self._tops = {name.split(".")[0] for name in self._modules if not name.startswith("<")}
        self._top_bytes = frozenset(top.encode() for top in self._tops)
        self._usages: dict[tuple[str, str], tuple[Usage, set]] = {}
        self._functions: dict[str, tuple[Optional[tuple[_Module, str]], set]] = {}
        self._scopes: dict[str, tuple[Optional[KernelScope], set]] = {}  # its own kernels, knowing imported launchers
        self._forwarders: dict[str, tuple[dict, set]] = {}  # see `_forwarded_launchers`
        self._outside_imports: dict[str, tuple[tuple, set]] = {}  # see `_imported_from_outside`
        self._launchers: dict[str, dict[str, tuple[Optional[int], str, Backends]]] = {}
        self._wrappers: dict[str, dict[str, tuple[Optional[int], str, Backends, bool]]] = {}  # see `_precision_wrappers`
        self._facts: dict[str, ModuleFacts] = {}
        self._order = {name: position for position, name in enumerate(self._modules)}
        self._importing: Optional[dict[bytes, list[str]]] = None  # see `_importers_of`
        self._reachable: Optional[set[str]] = None  # see `_kernel_land`
        self._linked: Optional[frozenset[str]] = None  # see `linked`
        self._import_graph: dict[str, set[str]] = {}  # see `_importers`
        self._module_imports: dict[str, set[str]] = {}  # see `_imports_of`
        self._package_importers: dict[str, set[str]] = {}  # a top-level name -> who says it (`_importers`)
        self._may_forward: Optional[set[str]] = None  # while kernel land is found: see `_launching_through_helpers`
        self._launching: Optional[set[str]] = None  # see `_launching_modules`
        self._named: frozenset[bytes] = frozenset()  # see `summarise`
        self._sayers: dict[bytes, list[str]] = {}  # each of `_named`: the modules that say it, in order
        self._unsummarised: list[str] = []  # the modules whose `said` the summary did not learn (notebooks)
        # What each computation read (see `_depend`): a stack of open frames, one per computation in
        # progress; the dependencies of each fact and of the project-wide tables; the values read.
        self._frames: list[set] = []
        self._fact_dependencies: dict[str, frozenset] = {}
        self._table_dependencies: set = set()
        self._part_values: dict[_Dependency, object] = {}
        self._memos_of_this_fact: list[set] = []  # see `_remembered`
        self._made_in_this_fact: list[tuple[dict, object]] = []  # the (memo, key) it computed
        self._cycle_in_this_fact = False
        self._seeds: dict[tuple[int, object], object] = {}  # see `_fact_through_cycles`
        self._read_in_progress: dict[tuple[int, object], tuple[dict, object, object]] = {}  # the same
        self._learnt = False  # anything `state()` would say that the restored state did not
        self._flow: dict[str, FlowFacts] = {}  # see `flow`
        self._linking: Optional[Future] = None  # a link running in another process (`link_flow_elsewhere`)
        self._flow_key = ""  # what `flow` was linked from (see `link_flow`)
        # The restored state's: its key, answers, the modules read on demand and what the link started
        # from (None: `linked`, every module that may bear on a kernel; else a run's `_link_scope`).
        self._kept_flow: tuple[str, dict[str, list], frozenset[str], Optional[frozenset[str]]] = \
            ("", {}, frozenset(), None)
        self._flow_read: frozenset[str] = frozenset()  # the modules the link read on demand (see `link_flow`)
        self._flow_scope: Optional[frozenset[str]] = None  # what it started from, where not `linked`
        self._by_top: Optional[dict[str, list[str]]] = None  # a top-level name -> its modules (`_link_scope`)
        self._named_tops: dict[str, set[str]] = {}  # see `_tops_named`
        self._unchanged_since_kept = False  # no module changed since the state restored (see `restore`)
        self._kept_summaries: dict[str, bytes] = {}  # see `restore`
        self._summary_store = KeptSummaries()  # the restored state's

    def module_of(self, path: "Path | str") -> Optional[str]:
        """The name of the project's module at `path` (None if it is none of them)."""
        module = self._by_path.get(_absolute(path))
        return module.name if module is not None else None

    def facts(self, path: Path) -> ModuleFacts:
        """What the rest of the project says about the module at `path` (empty if nothing)."""
        module = self._by_path.get(_absolute(path))
        if module is None:
            return ModuleFacts()
        facts = self._own_facts(module)
        flow = self.flow.get(module.name)
        return facts if flow is None else replace(facts, flow=flow)

    def learn_facts(self, paths: "Iterable[Path | str]") -> None:
        """Work out the facts of the modules at `paths`, in order, but for the link's answers, which
        `facts` joins: what the main process does while a link runs elsewhere (`link_flow_elsewhere`)."""
        for path in paths:
            module = self._by_path.get(_absolute(path))
            if module is not None:
                self._own_facts(module)

    def _own_facts(self, module: _Module) -> ModuleFacts:
        """The module's facts but for the link's answers, worked out once."""
        if module.name not in self._facts:
            facts, dependencies = self._fact_through_cycles(module)
            self._facts[module.name] = facts
            self._fact_dependencies[module.name] = frozenset(dependencies)
            self._learnt = True
        return self._facts[module.name]

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

    def _linked_here(self, follows: Mapping[str, tuple[Optional[int], str]],
                     targets: "Optional[Iterable[Path | str]]") -> tuple:
        """`link_flow`, and what it learnt that `_take_link` keeps: in the forked process."""
        unsummarised = [module for module in self._modules.values() if module.flow_summary is _NOT_SUMMARISED]
        unhashed = [module for module in self._modules.values() if module.summary_hash is None]
        self.link_flow(follows, targets)
        return (self._flow, self._flow_read, self._flow_scope, self._flow_key, self._learnt,
                {module.name: module.flow_summary for module in unsummarised if module.flow_summary is not _NOT_SUMMARISED},
                {module.name: module.summary_hash for module in unhashed if module.summary_hash is not None})

    def _take_link(self, linked: tuple) -> None:
        self._flow, self._flow_read, self._flow_scope, self._flow_key, learnt, summaries, hashes = linked
        for name, summary in summaries.items():
            self._modules[name].flow_summary = summary
        for name, summary_hash in hashes.items():
            self._modules[name].summary_hash = summary_hash
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
        self._flow = {name: facts for name, facts in flow.items() if name in complete}
        self._flow_read, self._flow_scope = read - start, scope
        self._flow_key, self._learnt = self._flow_key_of(start | self._flow_read, follows), True

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
        helpers), and every module that imports one of them, however indirectly (callers pass
        values in). What they import is read on demand (`link_flow`). Found from import lines,
        without a parse. Never jax itself: its names are the API the rules know, not project code
        to follow, even where jax's source lies in the tree."""
        if self._linked is None:
            self._frames.append(set())  # what it reads is its own, as kernel land's
            try:
                packages = {name.split(".", 1)[0] for name in self._launching_modules() if not _is_jax(name)}
                linked = {name for name in self._modules if name.split(".", 1)[0] in packages and not _is_jax(name)}
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
        """`_imported_names` of a module (not shallow), once a run."""
        found = self._module_imports.get(name)
        if found is None:
            found = self._module_imports[name] = self._imported_names(self._modules[name], False)
        return found

    def _complete(self, read: frozenset[str]) -> set[str]:
        """Of the modules a link read, those every importer of which, however indirect, it read too:
        what it says of their calls is all there is to say. Of a module read on demand that code
        outside the link imports (a helper of another package that plain code calls), the link
        knows some callers only: its answers are not kept, and the module's own analysis speaks."""
        partial = {name for name in read if self._importers(name) - read}
        return set(read) - closure(partial, self._imports_of)

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

    @property
    def top_names(self) -> frozenset[bytes]:
        """The project's top-level module and package names, as bytes: what an import of it says."""
        return self._top_bytes

    def learnt(self) -> bool:
        """Whether this run learnt anything its `state()` should keep (a module changed, a fact or
        the tables were computed)."""
        return self._learnt

    def layout(self) -> str:
        """A hash of the project's module names and paths: what a kept state is looked up by (an
        added, removed or renamed module starts the project's analysis afresh)."""
        digest = hashlib.sha256()
        for name, path in sorted((module.name, path) for path, module in self._by_path.items()):
            digest.update(f"{name}\0{path}\0".encode())  # absolute: the same from any folder
        return digest.hexdigest()

    def state(self) -> ProjectState:
        """What this run learnt, for `restore` in the next run over the same layout."""
        self._settle_link()
        contents = {name: self._content_hash(module) for name, module in self._modules.items()}
        needed = set(self._table_dependencies).union(*self._fact_dependencies.values())
        parts = {dependency: self._value_of(dependency) for dependency in needed}
        reachable = sorted(self._reachable) if self._reachable is not None else None
        launching = sorted(self._launching) if self._launching is not None else None
        kept = self._summary_store.hashes
        summarised = [module for module in self._modules.values()
                      if module.flow_summary is _KEPT or isinstance(module.flow_summary, ModuleSummary)]
        hashes = {module.name: self._summary_hash(module) for module in summarised}
        summaries = self._summary_store.updated(hashes, {
            name: as_data(self._modules[name].flow_summary) for name, summary_hash in hashes.items()
            if kept.get(name) != summary_hash})
        flow = (self._flow_key, {name: facts.as_data() for name, facts in self._flow.items()}, sorted(self._flow_read),
                sorted(self._flow_scope) if self._flow_scope is not None else None)
        return ProjectState(contents, {name: (facts, self._fact_dependencies[name]) for name, facts in self._facts.items()},
                            parts, (self._importing, reachable, launching), frozenset(self._table_dependencies),
                            summaries, flow)

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
        return changed

    def changed(self, state: Optional[ProjectState]) -> set[str]:
        """The modules whose code is not the code `state` was learnt from (every module without one)."""
        if state is None:
            return set(self._modules)
        return {name for name, module in self._modules.items() if state.contents.get(name) != self._content_hash(module)}

    def summarise(self, names: Iterable[str], map_in_workers: Callable[[Callable[[str], tuple], list[str]], list]) -> None:
        """Work out the parts of the modules `names` that no other module decides in worker
        processes, where most of a cold tree's index goes. First each module's: whether it says
        pallas, its import lines, a package's top-level table, a pallas module's launch helpers and
        precision wrappers.
        Then, with kernel land known from those, each module in it: whether a rule's prefilter
        passes its code and, if so, its needy names (a parse). A module that says pallas is in
        kernel land whatever the others say: its needy names come with the first answer, from the
        parse its launch helpers took. What is left here is the search across modules, which reads
        the results: the facts are those the lazy index gives, with the same dependencies. Of a
        notebook, only the `prefilter` answer (its code is decoded, if at all, here).
        `map_in_workers(function, items)`: `function` of each item, in order, computed in processes
        forked from this one while `_SUMMARISING` is this index (the first fork happens inside the
        first call). Call it before `restore`."""
        global _SUMMARISING
        names = list(names)
        pending = [name for name in names if not name.startswith("<")]  # a notebook: decoded here, once
        notebooks = [name for name in names if name.startswith("<")] if self._prefilter is not None else []
        _SUMMARISING = self
        try:
            for name, (marked, import_texts, top_level, launchers, wrappers, needy_parts, prefiltered) in zip(
                    pending, map_in_workers(_summary, pending)):
                module = self._modules[name]
                module.prefiltered = prefiltered
                self._part_values[(name, MARKER)] = marked
                module.import_texts, module.top_level = import_texts, top_level
                if launchers is not None:
                    self._launchers[name] = launchers
                if wrappers is not None:
                    self._wrappers[name] = wrappers
                if needy_parts is not None:
                    self._learn_needy_parts(module, needy_parts)
            for name, prefiltered in zip(notebooks, map_in_workers(_prefilter_summary, notebooks)):
                self._modules[name].prefiltered = prefiltered  # before kernel land reads them
            land = self._kernel_land()  # the modules whose facts may say more than "nothing"
            wanted = [name for name in pending if name in land and not self._marked(self._modules[name])]
            for name, needy_parts in zip(wanted, map_in_workers(_needy_summary, wanted)):
                self._learn_needy_parts(self._modules[name], needy_parts)
            linked = [name for name in pending if name in self.linked()]
            for name, flow in zip(linked, map_in_workers(_flow_summary, linked)):
                self._modules[name].flow_summary = flow
            self._learn_sayers(pending, map_in_workers)
        finally:
            _SUMMARISING = None

    def _learn_sayers(self, names: list[str], map_in_workers: Callable) -> None:
        """Which of the modules `names` say each needy name, found in the workers: the search across
        modules asks that of thousands of importers per name (everything that imports jax, on a
        site-packages tree), serially, and one pass over each module's words answers it for all
        the names at once."""
        named = frozenset(name.encode() for module in self._modules.values() for name in module.needy or ())
        if not named:
            return
        chunks = [(names[start:start + _SAYERS_CHUNK], named) for start in range(0, len(names), _SAYERS_CHUNK)]
        for (chunk, _), said in zip(chunks, map_in_workers(_names_said, chunks)):
            for name, words in zip(chunk, said):
                self._modules[name].said = words
                for word in words:
                    self._sayers.setdefault(word, []).append(name)
        self._named = named
        self._unsummarised = [name for name, module in self._modules.items() if module.said is None]

    def summarise_flow(self, names: Iterable[str], summarise_elsewhere: Callable[
            [list[tuple[str, bytes, str, bool]]], Iterable[tuple[bytes, Optional[ModuleSummary]]]]) -> None:
        """The whole-program summaries of those of the modules `names` the link starts from,
        worked out where this index is not (a cluster's workers): `summarise_elsewhere(items)` is
        given each module's absolute path, the hash of its bytes (the `content_hash` this index was
        given), its name and whether it is a package, and answers, in order, the hash of the bytes
        it read and their `flow_summary_of`. A summary is kept only where those are the bytes this
        index reads (the file changed meanwhile: it is summarised here, on demand, as before). A
        notebook's is not asked for: the index decodes its code cells here. Call it after `restore`."""
        modules = [self._modules[name] for name in names if not name.startswith("<")]
        linked = self.linked()
        # (a hash of nothing: the caller could not read the file, a FIFO say, on which a worker would block)
        wanted = [module for module in modules
                  if module.name in linked and module.flow_summary is _NOT_SUMMARISED and self._content_hash(module)]
        items = [(module.path, self._content_hash(module), module.name, module.is_package) for module in wanted]
        for module, (_, content, *_), (read, summary) in zip(wanted, items, summarise_elsewhere(items)):
            if read == content:
                module.flow_summary = summary

    def _summary_of(self, module: _Module) -> tuple:
        """See `summarise` (in a worker: no computation is in progress, so nothing is recorded)."""
        marked = self._marked(module)
        return (marked, self._import_texts(module), self._top_level(module) if module.is_package else None,
                self._launch_helpers(module) if marked else None,  # a package's table: its re-exports
                self._precision_wrappers(module) if marked else None,
                self._needy_parts(module) if marked else None,
                self._prefilter(module.path) if self._prefilter is not None else None)

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
            tree = self._tree(module) if self._bytes(module).strip() else None
            module.flow_summary = summarise_tree(tree, module.name, module.is_package) if tree is not None else None
        return module.flow_summary  # type: ignore[return-value]

    def prefiltered(self, path: "Path | str") -> object:
        """The answer of `prefilter` (see `__init__`) for the file at `path`, if the summary worked it
        out (a run over most of a large project): the main process, where each file's facts are
        worked out in turn, then neither reads nor tests the bytes of thousands of files."""
        module = self._by_path.get(_absolute(path))
        return module.prefiltered if module is not None else None

    def _needy_parts(self, module: _Module) -> tuple:
        """Whether a rule's prefilter passes its code, its needy names if so, and if that took a
        parse, its top-level table and what holds each name (read here, not parsed again in the
        search)."""
        relevant = self._is_relevant(module)
        needy = self._needy_names(module) if relevant else None
        parsed = module.tree is not None or module.index is not None
        return relevant, needy, self._top_level(module) if parsed else None, self._holders(module) if needy else None, \
            module.ref_takers, module.constants

    def _learn_needy_parts(self, module: _Module, parts: tuple) -> None:
        relevant, needy, top_level, holders, module.ref_takers, module.constants = parts
        module.relevant, module.needy = relevant, needy
        module.top_level = top_level if top_level is not None else module.top_level
        module.holders = holders if holders is not None else module.holders

    # -- what a computation read --

    def _depend(self, owner: str, part: object) -> None:
        """The computation in progress read `part` of the module named `owner`, or of the project
        (PROJECT): see CONTENT."""
        if self._frames:
            self._frames[-1].add((owner, part))

    @contextmanager
    def _quiet(self) -> Iterator[None]:
        """Computing a part: what it reads of its own module is that part, added by its caller."""
        self._frames.append(set())
        try:
            yield
        finally:
            self._frames.pop()

    def _remembered(self, memo: dict, key: object, compute: Callable[[], object], in_progress: object = None) -> object:
        """`memo[key]`, computed once with what it read: reusing it reads the same. `in_progress`:
        the value read while it is being computed (a cycle). A value computed through a cycle may
        have used that partial value, so every memo made during that fact then depends on all the
        fact read (an over-approximation, kept simple: cycles are rare)."""
        if key in memo:
            value, dependencies = memo[key]
            if dependencies is None:  # in progress
                self._cycle_in_this_fact = True
                self._read_in_progress[(id(memo), key)] = (memo, key, value)
            elif self._frames:
                self._frames[-1] |= dependencies
            return value
        if in_progress is not None:
            memo[key] = (self._seeds.get((id(memo), key), in_progress), None)
        self._frames.append(set())
        try:
            value = compute()
        finally:
            dependencies = self._frames.pop()
        memo[key] = (value, dependencies)
        self._memos_of_this_fact.append(dependencies)
        self._made_in_this_fact.append((memo, key))
        if self._frames:
            self._frames[-1] |= dependencies
        return value

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
                else:
                    value = self._top_level_entry(module, part[1])
            self._part_values[dependency] = value
        return self._part_values[dependency]

    def parsed(self, path: Path, text: str) -> Optional[ModuleIndex]:
        """The module at `path` if this index parsed it from exactly `text` (no need to parse it again)."""
        module = self._by_path.get(_absolute(path))
        if module is None or (module.index is None and module.tree is None):
            return None
        index = self._index(module)
        return index if index is not None and index.text == text else None

    # -- one module's facts --

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
            calls = [node for part in _launchable_parts(statement) for node in ast.walk(part) if node.__class__ is ast.Call]
            if any(_may_fail_in_a_kernel(call) for call in calls):
                names.append(name)
        module.needy = names + _reaching(tree, raw, starts, set(names)) if names else names
        module.ref_takers = _ref_takers(tree) if tree is not None else []  # `_maybe_launched` asks, on the same parse
        module.constants = _precision_constants(tree)  # and `_constants_read_elsewhere`
        return module.needy

    # -- who uses a name, and how --

    def _usage(self, module: _Module, name: str) -> Usage:
        """How modules other than `module` use its top-level `name` (memoized; a cycle gives nothing)."""
        return self._remembered(self._usages, (module.name, name), lambda: self._find_usage(module, name),
                                in_progress=Usage())  # type: ignore[return-value]

    def _find_usage(self, module: _Module, name: str) -> Usage:
        usage = Usage()
        referrers, renamed = self._referrers_under_any_name(module, name)
        for referrer in referrers:
            if not self._in_kernel_land(referrer.name):  # no kernel runs its code: any use is plain
                usage |= Usage(plain=self._mentions(referrer, module, name, renamed))
                continue
            index, scope = self._index(referrer), self._scope(referrer)
            if index is None or scope is None:
                continue
            bodies = {id(mention): (why, launched, role) for mention, why, launched, role in scope.foreign_bodies}
            aliases = self._aliases(referrer, name, renamed)
            for function, mentions in self._project_mentions(referrer, index).items():
                for mention in mentions:
                    if _last_name(mention) in aliases and (module, name) in self._targets(referrer, index, mention):
                        usage |= self._usage_at(referrer, index, scope, function, mention, bodies)
        for holder, members in self._holders(module).get(name, ()):  # `k = body`, `BODIES = [body]` here: used as they are
            held = self._usage(module, holder)
            # `kernel = staticmethod(Model().kernel)` in a launched class, `[Model().kernel]`: the member
            usage |= Usage(held.backends, held.role, held.plain, held.why, members if held.backends else frozenset())
        return usage

    def _referrers_under_any_name(self, module: _Module, name: str) -> tuple[list[_Module], set[str]]:
        """The modules that may use `module.name`, and the other names it is re-exported under."""
        referrers = self._referrers(module, name)
        renamed = self._renamed(module, name, referrers)
        for alias in sorted(renamed):  # `mylib.mm` after `from mylib.ops import fused_mm as mm` in mylib
            known = {referrer.name for referrer in referrers}
            referrers += [referrer for referrer in self._referrers(module, alias) if referrer.name not in known]
        return referrers, renamed

    def _constants_read_elsewhere(self, module: _Module) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Its top-level constants that may be a precision (`MIXED = (P.DEFAULT, P.HIGHEST)`), each
        with the other modules that read it otherwise than as the precision of a Mosaic TPU kernel's
        call (imported by name, as `kernels.MIXED`, or through a re-export): a fix of the constant
        would change what they read (plain XLA code's numerics), so its module's rules must not
        rewrite it (ModuleFacts.read_elsewhere)."""
        self._depend(module.name, CONTENT)
        if module.constants is None:  # (found by `_needy_names`, on the parse a worker took, where it ran)
            module.constants = _precision_constants(self._tree(module))
        found = [(name, readers) for name in module.constants if (readers := self._plain_readers(module, name))]
        return tuple(sorted(found))

    def _plain_readers(self, module: _Module, name: str) -> tuple[str, ...]:
        """The other modules that read `module.name`, not (only) as a Mosaic TPU kernel's precision."""
        referrers, renamed = self._referrers_under_any_name(module, name)
        readers = []
        for referrer in referrers:
            if self._star_imports(referrer, module):  # `from pkg.kernels import *`: its uses are not resolved
                readers.append(referrer.name)
                continue
            if not self._in_kernel_land(referrer.name):  # no kernel runs its code: any use is plain
                if self._mentions(referrer, module, name, renamed):
                    readers.append(referrer.name)
                continue
            index, scope = self._index(referrer), self._scope(referrer)
            if index is None or scope is None:
                continue
            aliases = self._aliases(referrer, name, renamed)
            if any(_last_name(mention) in aliases and (module, name) in self._targets(referrer, index, mention)
                   and not _kernel_precision(index, scope, mention)
                   for mentions in self._project_mentions(referrer, index).values() for mention in mentions):
                readers.append(referrer.name)
        return tuple(readers)

    def _star_imports(self, referrer: _Module, module: _Module) -> bool:
        """Whether `referrer` imports every name of `module` (`from pkg.kernels import *`)."""
        return any(isinstance(statement, ast.ImportFrom) and any(alias.name == "*" for alias in statement.names)
                   and referrer.absolute("." * statement.level + (statement.module or "")) == module.name
                   for statement in self._import_statements(referrer))

    def _renamed(self, module: _Module, name: str, referrers: list[_Module]) -> set[str]:
        """The other names `referrers` re-export `module.name` under (`from .ops import fused_mm as
        mm`): other modules may use it by those (`mylib.mm`), never saying `name`."""
        renamed = set()
        for referrer in referrers:
            for bound, qualified in self._top_level(referrer).items():
                if bound != name and qualified != "def" and qualified.rpartition(".")[2] == name:
                    absolute = referrer.absolute(qualified)
                    if absolute and self._function(absolute, _MAX_REEXPORTS) == (module, name):
                        renamed.add(bound)
        return renamed

    def _holders(self, module: _Module) -> dict[str, list[tuple[str, frozenset[str]]]]:
        """For each name, the top-level values and classes of the module that hold it (`k = body`,
        `BODIES = [body]`, `class Holder: kernel = staticmethod(body)`): another module launching
        those launches it. With each, the attributes the holder's statement reads, which a member
        of the name's instances it launches may be (`staticmethod(Model().kernel)`: `kernel`)."""
        self._depend(module.name, CONTENT)
        if module.holders is None:
            module.holders = {}
            tree = self._tree(module)
            for statement in tree.body if tree is not None else ():
                holder = _holder(statement)
                if holder is None:
                    continue
                nodes = list(ast.walk(statement))
                # What it may read of an instance it makes: `Model().kernel`, `[m.kernel for m in ...]`.
                read = frozenset(node.attr for node in nodes if isinstance(node, ast.Attribute))
                for named in {node.id for node in nodes if isinstance(node, ast.Name)} - {holder}:
                    module.holders.setdefault(named, []).append((holder, read))
        return module.holders

    def _usage_at(self, referrer: _Module, index: ModuleIndex, scope: KernelScope, function: Optional[FunctionNode],
                  mention: ast.AST, bodies: dict, depth: int = MAX_ALIAS_DEPTH) -> Usage:
        if id(mention) in bodies:  # its value reaches a launch (the module's value flow followed it there)
            why, launched, role = bodies[id(mention)]
            return Usage(launched, role, why=f"{why} in {referrer.name}")
        holder = index.parent.get(mention)
        if isinstance(holder, ast.Call) and holder.func is mention:  # `Model().kernel`: a member of an instance
            holder = index.parent.get(holder) if isinstance(index.parent.get(holder), ast.Attribute) else holder
        if isinstance(holder, ast.Attribute) and id(holder) in bodies:  # `Holder.kernel`
            why, launched, role = bodies[id(holder)]
            return Usage(launched, role, why=f"{why} in {referrer.name}", members=frozenset({holder.attr}))
        holder = index.parent.get(mention)
        holder = holder if _is_partial_of(holder, mention) else mention
        binding = index.binding_of_value(holder)
        if binding is not None:  # `chosen = kernels.body` or `partial(kernels.body, ...)`: runs where the name is used
            if depth <= 0:
                return Usage(plain=True)  # followed too far: taken for plain code
            usage = Usage()
            for reference in binding.references:
                usage |= self._usage_at(referrer, index, scope, index.enclosing.get(reference), reference, bodies,
                                        depth - 1)
            if binding.scope is index.module_scope:  # `k = kernels.body` at the top: other modules may launch `k`
                usage |= self._usage(referrer, binding.name)
            return usage
        kernel = scope.kernel_of(mention)
        if kernel is not None:
            return Usage(scope.backends.get(kernel, frozenset()), why=f"called from a kernel body in {referrer.name}")
        if mention in scope.handed:
            return Usage(scope.handed[mention], why=f"passed to a kernel body in {referrer.name}")
        top = function
        while top is not None and index.function_parent.get(top) is not None:
            top = index.function_parent[top]
        value, made = _holding_expression(index, holder)
        read = index.parent.get(value)
        attribute = read.attr if made and isinstance(read, ast.Attribute) and read.value is value else None
        if attribute is not None:  # `ops.Model().kernel`: what is held is a member of the instance it makes
            value, made = _holding_expression(index, read)
        member = self._instance_member(index, top, value)
        if member is not None:  # `self.kernel = ops.body` in a method: runs where the class's member is launched
            held = self._usage(referrer, member[0])
            if member[1] in held.members:
                return Usage(held.backends, FACTORY if made else held.role, held.plain, held.why,
                             frozenset({attribute}) if attribute is not None else frozenset())
        if top is None:  # at the top: held by a value or class (`BODIES = [ops.body]`), used as that is
            statement = mention
            while not isinstance(index.parent.get(statement), (ast.Module, type(None))):
                statement = index.parent[statement]
            holder = _holder(statement)  # type: ignore[arg-type]
            if holder is None:
                return Usage(plain=True)
            held = self._usage(referrer, holder)
            return Usage(held.backends, held.role, held.plain or not held.backends, held.why)
        if isinstance(top, ast.Lambda) or index.module_scope.bindings.get(top.name) is None:
            return Usage(plain=True)
        outer = self._usage(referrer, top.name)  # a function of the referrer: it runs where that runs
        called_plainly = any(scope.kernel_of(reference) is None
                             for binding in index.module_scope.bindings[top.name] for reference in binding.references)
        return Usage(outer.backends, plain=outer.plain or called_plainly or not outer.backends,
                     why=f"called from {referrer.name}.{top.name}, which kernels run")

    @staticmethod
    def _instance_member(index: ModuleIndex, method: Optional[FunctionNode], value: ast.AST) -> Optional[tuple[str, str]]:
        """(class, attribute) where `value` is what a method of a top-level class assigns to
        `self.<attribute>` (`Model().kernel` launched in another module runs it)."""
        statement = index.parent.get(value)
        owner = index.parent.get(method) if method is not None else None
        if not (isinstance(statement, ast.Assign) and statement.value is value and isinstance(owner, ast.ClassDef)
                and isinstance(index.parent.get(owner), ast.Module) and method.args.args):
            return None
        this = method.args.args[0].arg
        for target in statement.targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == this:
                return owner.name, target.attr
        return None

    def _aliases(self, referrer: _Module, name: str, renamed: "set[str] | frozenset[str]" = frozenset()) -> set[str]:
        """What `name` (or a name it is re-exported under: `renamed`) may be called in `referrer`:
        itself, or a name its imports bind it to (`as`). (A def's entry in `_top_level` is "def", a
        keyword: never a name's last part.)"""
        names = {name, *renamed}
        return names | {bound for bound, qualified in self._top_level(referrer).items()
                        if qualified.rsplit(".", 1)[-1] in names}

    def _mentions(self, referrer: _Module, module: _Module, name: str, renamed: "set[str] | frozenset[str]" = frozenset()) -> bool:
        """Whether `referrer` names `module.name` through its top-level imports (read from its bare
        syntax tree, without the scopes: a shadowing local counts, which can only keep a fix back)."""
        imports = {bound: qualified for bound, qualified in self._top_level(referrer).items() if qualified != "def"}
        if not imports:
            return False
        dotted = self._dotted_names(referrer)
        for alias in self._aliases(referrer, name, renamed):  # only what can be the name: resolving is the cost
            for spelled in dotted.get(alias, ()):
                root, _, rest = spelled.partition(".")
                if root in imports:
                    absolute = referrer.absolute(f"{imports[root]}.{rest}" if rest else imports[root])
                    if absolute and self._function(absolute, _MAX_REEXPORTS) == (module, name):
                        return True
        return False

    def _dotted_names(self, module: _Module) -> dict[str, set[str]]:
        """Every name and loaded attribute chain of the module (`ops.act`, `ops`, `act`), by its last
        part: one walk per module, however many of its names are asked about."""
        self._depend(module.name, CONTENT)
        if module.dotted is None:
            module.dotted = {}
            tree = self._tree(module)
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) or isinstance(node, ast.Name):
                    parts, last = [], node
                    while isinstance(node, ast.Attribute):
                        parts.append(node.attr)
                        node = node.value
                    if isinstance(node, ast.Name):
                        module.dotted.setdefault(_last_name(last), set()).add(".".join([node.id, *reversed(parts)]))
        return module.dotted

    def _referrers(self, module: _Module, name: str) -> list[_Module]:
        """The modules that may use `module.name`: they import the project, use the word, and import
        it, its module or a package of it (`from .ops import act`, `from pkg.ops import math`,
        `import pkg` for `pkg.ops.act`, ...)."""
        parts = {part.encode() for part in module.name.split(".")} | {name.encode()}
        # More than _MAX_REFERRERS: a name that many modules may use is a library's API (jax's own
        # `lax.dot_general` in a site-packages tree), not a kernel helper: following it would parse the library.
        found = self._importers_saying(parts, (name,), exclude=module, limit=_MAX_REFERRERS)
        return [] if len(found) > _MAX_REFERRERS else found

    # -- per-module analysis, on demand --

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

    # -- bytes, words and parses --

    def _importers_saying(self, words: set[bytes], names: tuple[str, ...], exclude: Optional[_Module] = None,
                          unmarked: bool = False, limit: Optional[int] = None) -> list[_Module]:
        """The modules, in the project's order, whose imports say one of `words` and whose code says
        one of `names` (and not pallas, if `unmarked`), but `exclude`; more than `limit` stops the
        search. Its answer is one dependency (SEARCH), not one per module asked: an edit can only
        change it in the edited module (`_answer_changed`), and asking thousands of modules (jax's
        own, who say `jax`) must not leave thousands of dependencies behind."""
        found: list[_Module] = []
        for candidate in self._candidates(words, names):
            if candidate is not exclude and self._meets(candidate, names, unmarked):
                found.append(candidate)
                if limit is not None and len(found) > limit:
                    break
        self._depend(PROJECT, (SEARCH, tuple(sorted(words)), names, unmarked, tuple(m.name for m in found),
                               exclude.name if exclude else PROJECT, limit))
        return found

    def _candidates(self, words: set[bytes], names: tuple[str, ...]) -> list[_Module]:
        """The modules whose imports say one of `words`, in the project's order; where the summary
        learnt who says each of `names`, only those (and the modules it did not summarise)."""
        wanted = [name.encode() for name in names]
        importers = [self._importers_of(word) for word in words]  # the word table: kept for the next run
        if not self._named.issuperset(wanted):
            return self._in_order({name for listed in importers for name in listed})
        said = {module for word in wanted for module in self._sayers.get(word, ())}.union(self._unsummarised)
        return [module for module in self._in_order(said) if not words.isdisjoint(self._words_imported(module))]

    def _meets(self, module: _Module, names: tuple[str, ...], unmarked: bool) -> bool:
        """What a search asks of an importer, beyond the words of its imports."""
        return not (unmarked and self._marked(module)) and self._says(module, names)

    def _answer_changed(self, search: tuple, changed: set[str]) -> bool:
        """Whether a search (see `_importers_saying`) answers otherwise now: a changed module that
        now meets it was not found, or one found no longer meets it (the others did not change,
        and only a changed module's imports can change the word table). A search cut at its limit
        answered only that (its callers read nothing else): another module meeting it changes nothing."""
        _, words, names, unmarked, found, excluded, limit = search
        cut = limit is not None and len(found) > limit
        for name in changed - {excluded}:
            module = self._modules[name]
            meets = bool(self._words_imported(module) & set(words)) and self._meets(module, names, unmarked)
            if meets != (name in found) and not (cut and meets):
                return True
        return False

    def _importers_of(self, word: bytes) -> list[str]:
        """The modules that import another module of the project (only they can use one) and whose
        import statements say `word`, in the project's order: who may import a module is looked
        up, not searched for."""
        if self._importing is None:
            self._importing = {}
            for module in self._modules.values():  # in order: each list comes out sorted
                for imported in self._words_imported(module):
                    self._importing.setdefault(imported, []).append(module.name)
        return self._importing.get(word, [])

    def _words_imported(self, module: _Module) -> frozenset[bytes]:
        """What the word table holds of a module: its import words if it imports the project."""
        with self._quiet():
            return self._import_words(module) if self._imports_project(module) else frozenset()

    def _index_import_words(self, module: _Module) -> None:
        """Put a changed module in a restored word table under the words its imports say now."""
        assert self._importing is not None
        words = self._words_imported(module)
        for word, names in list(self._importing.items()):
            if module.name in names and word not in words:
                names.remove(module.name)
                if not names:
                    del self._importing[word]
        position = self._order[module.name]
        for word in words:
            names = self._importing.setdefault(word, [])
            if module.name not in names:
                names.insert(bisect.bisect([self._order[name] for name in names], position), module.name)

    def _in_order(self, names: Iterable[str]) -> list[_Module]:
        return [self._modules[name] for name in sorted(names, key=self._order.__getitem__)]

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

    def _import_texts(self, module: _Module) -> list[bytes]:
        """Its import statements' source: what its IMPORTS part is (with whether it says pallas)."""
        self._depend(module.name, IMPORTS)
        if module.import_texts is None:
            module.import_texts = _import_lines(self._bytes(module))
        return module.import_texts

    def _marker(self, module: _Module) -> bool:
        """Whether it says pallas (where kernel land starts): a part of its own (MARKER)."""
        self._depend(module.name, MARKER)
        return self._marked(module)

    def _marked(self, module: _Module) -> bool:
        dependency = (module.name, MARKER)
        if dependency not in self._part_values:
            self._part_values[dependency] = KERNEL_MARKER in self._bytes(module)
        return self._part_values[dependency]  # type: ignore[return-value]

    def _import_statements(self, module: _Module) -> list[ast.stmt]:
        sources = self._import_texts(module)
        if module.import_statements is None:
            texts = [text.strip().decode("utf-8", "replace") for text in sources]
            try:  # all at once; one by one only if some line is not an import after all
                module.import_statements = ast.parse("\n".join(texts)).body
            except (SyntaxError, ValueError):
                module.import_statements = []
                for text in texts:
                    try:
                        module.import_statements += ast.parse(text).body
                    except (SyntaxError, ValueError):
                        continue
        return module.import_statements

    def _imports_project(self, module: _Module) -> bool:
        """Whether an import statement of it names a module of the project, or is relative."""
        for text in self._import_texts(module):
            first = _FIRST_IMPORTED.match(text)
            name = first and (first.group(1) or first.group(2))
            if first is not None and (name is None or name.decode() in self._tops):  # None: relative
                return True
        return False

    def _import_words(self, module: _Module) -> frozenset[bytes]:
        """The words of its import statements (parenthesized continuations included)."""
        texts = self._import_texts(module)
        if module.import_words is None:
            module.import_words = _words(b" ".join(texts))
        return module.import_words

    def _says(self, module: _Module, names: tuple[str, ...]) -> bool:
        """Whether the module says one of `names` as a word (a search's question: see SEARCH)."""
        wanted = [name.encode() for name in names]
        if module.said is not None and self._named.issuperset(wanted):
            return not module.said.isdisjoint(wanted)
        raw = self._bytes(module)
        if not any(word in raw for word in wanted):
            return False
        if module.words is None:
            module.words = _words(raw)
        return any(word in module.words for word in wanted)

    def _is_relevant(self, module: _Module) -> bool:
        """Whether a rule may have something to do in its code (see `__init__`)."""
        if module.relevant is None:
            module.relevant = self._relevant(self._bytes(module))
        return module.relevant

    def _content_hash(self, module: _Module) -> bytes:
        """The hash of the module's bytes: the caller's (known without reading an unchanged file),
        else of the bytes this index read (never a second read, which could see a later edit)."""
        if module.content is None:
            module.content = hashlib.sha256(self._bytes(module)).digest() if self._hash_of_path is None \
                else self._hash_of_path(module.path)
        return module.content

    def _bytes(self, module: _Module) -> bytes:
        if module.raw is None:
            try:
                module.raw = self._read(module.path)
            except OSError:
                module.raw = b""
        return module.raw

    def _tree(self, module: _Module) -> Optional[ast.Module]:
        self._depend(module.name, CONTENT)
        if module.tree is None and module.index is None and not module.parse_failed:
            module.tree = _parsed(self._bytes(module))
            module.parse_failed = module.tree is None  # reported when the file itself is processed; adds no facts here
        return module.index.tree if module.index is not None else module.tree

    def _index(self, module: _Module) -> Optional[ModuleIndex]:
        self._depend(module.name, CONTENT)
        # A module that says pallas may launch with the pallas a project module re-exports (`from
        # pkg.compat import pl`): its jax names read as jax's, as the rules read them, so that its
        # launches are found here as they are there. Only such a module: reading re-exports parses
        # the modules they pass through (a module of jax itself imports hundreds of names).
        through = dict(self._imported_from_outside(module)) if self._marker(module) else {}
        if module.index is None:
            tree = self._tree(module)
            if tree is not None:
                module.index = ModuleIndex(self._bytes(module).decode("utf-8"), tree, through)
                module.tree = None
        return module.index


# The index whose modules worker processes summarise (see `ProjectIndex.summarise`): forked, they inherit it.
_SUMMARISING: Optional[ProjectIndex] = None
_T = TypeVar("_T")


def _in_worker(name: str, compute: Callable[[ProjectIndex, _Module], _T]) -> _T:
    """`compute(index, module)` for the module `name` of the index being summarised, in a worker;
    the module's bytes and trees are forgotten after (a worker goes through thousands of modules,
    and only the answers are sent back), but for a module a rule's prefilter passes: the rules
    analyse it, in this worker as a rule (see `summarised_here`)."""
    assert _SUMMARISING is not None
    module = _SUMMARISING._modules[name]
    try:
        return compute(_SUMMARISING, module)
    finally:
        if not module.relevant:
            module.raw = module.tree = module.index = None


_LINKING: Optional[tuple] = None  # (index, follows, targets) while `link_flow_elsewhere` forks


def _link_here() -> tuple:
    """In the process `link_flow_elsewhere` forked: its index's link."""
    assert _LINKING is not None
    index, follows, targets = _LINKING
    return index._linked_here(follows, targets)


def summarised_here() -> Optional[ProjectIndex]:
    """In a worker the summary forked: its copy of the index, with the parses of the modules it
    summarised that the rules will analyse (`ProjectIndex.parsed`); None elsewhere."""
    return _SUMMARISING


def _summary(name: str) -> tuple:
    return _in_worker(name, ProjectIndex._summary_of)


def _prefilter_summary(name: str) -> object:
    """The `prefilter` answer alone, for a notebook (its code is decoded, if at all, in the main process)."""
    assert _SUMMARISING is not None and _SUMMARISING._prefilter is not None
    return _SUMMARISING._prefilter(_SUMMARISING._modules[name].path)


def _needy_summary(name: str) -> tuple:
    return _in_worker(name, ProjectIndex._needy_parts)


def _flow_summary(name: str) -> Optional[ModuleSummary]:
    return _in_worker(name, ProjectIndex._flow_summary)


def _parsed(code: bytes) -> Optional[ast.Module]:
    """A module's parse, from its bytes as the index reads them (UTF-8); None where it does not parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(code.decode("utf-8"))
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError):
        return None


def flow_summary_of(code: bytes, name: str, is_package: bool) -> Optional[ModuleSummary]:
    """What `ProjectIndex._flow_summary` makes of the module `name` whose bytes, as the index reads
    them, are `code` (a function of those alone: see `ProjectIndex.summarise_flow`)."""
    tree = _parsed(code) if code.strip() else None
    return summarise_tree(tree, name, is_package) if tree is not None else None


def _top(module: str) -> str:
    """A module's top-level name (a notebook, which no import names, is its own)."""
    return module if module.startswith("<") else module.split(".", 1)[0]


def _is_jax(module: str) -> bool:
    """jax's own modules (see `ProjectIndex.linked`)."""
    return module.split(".", 1)[0] in ("jax", "jaxlib")


def _names_said(chunk: tuple[list[str], frozenset[bytes]]) -> list[frozenset[bytes]]:
    """Of `named`, the words each module of the chunk says (see `ProjectIndex._learn_sayers`)."""
    names, named = chunk
    return [_in_worker(name, lambda index, module: named.intersection(_words(index._bytes(module))))
            for name in names]


_SAYERS_CHUNK = 64  # modules per task: the needy names are sent with each


# What can make code fail in a kernel: a precision or accuracy argument, arguments unpacked into a
# call, a precision where an op takes it positionally, or an LSTM (its precision may come from the
# default). Code without any of these needs no kernel context from other modules, whatever launches it.
_HINT_KEYWORDS = {"precision", "accuracy"}
_POSITIONAL_PRECISION = {"dot_general": 4, "batch_matmul": 3, "conv_general_dilated": 10, "conv": 5,
                         "conv_with_general_padding": 7, "dot": 6}  # args needed to reach it
# The ops whose unpacked arguments (`*args`, `**kwargs`) may carry a precision or an accuracy hint.
_OP_NAMES = {*_POSITIONAL_PRECISION, "matmul", "einsum", "inner", "tensordot", "vdot", "lstm", "rsqrt", "sqrt",
             "cbrt", "tanh", "logistic", "exp", "exp2", "expm1", "log", "log2", "log1p", "sin", "cos", "tan"}
# The same on bytes, before a module is parsed: a hint keyword, an LSTM, unpacked arguments, or a
# call of an op that takes a precision positionally (its argument may be a parameter a helper passes
# on: `lax.dot_general(x, w, dims, p)` says no word of precision). Unpacked arguments count first or
# later in the call, and in a partial of the op (`partial(jnp.dot, **options)`).
_OPS = b"|".join(sorted(name.encode() for name in _OP_NAMES))
_HINT = re.compile(rb"(?:precision|accuracy)\s*=\s*(?!None\b)")
_UNPACKED = re.compile(rb"(?:\b(?:" + _OPS + rb")\s*\(|\bpartial\s*\(\s*[\w.]*\b(?:" + _OPS
                       + rb")\s*,)(?:(?:[^()]|\([^()]*\))*[(,])?\s*\*")
_UNPACKING = re.compile(rb"[(,]\s*\*")  # how every match of _UNPACKED ends: a cheap test first
# `name(?<!\wname)` is `\bname`, found twice as fast: a pattern whose every alternative starts with
# a literal lets the regex engine skip to the positions where one of their first bytes is.
_POSITIONAL_OP = re.compile(rb"(?:dot_general|conv\w*|batch_matmul|dot(?<!\wdot))\s*\(")
# A pair of Precision members (`(P.DEFAULT, P.HIGHEST)`), which a call may hand on under any name.
_LEVELS = frozenset(Level.__members__)
_MEMBER_PAIR = re.compile(rb"(?:DEFAULT(?<!\wDEFAULT)|HIGHEST(?<!\wHIGHEST)|HIGH(?<!\wHIGH))\s*,\s*[\w.]*"
                          rb"\b(?:DEFAULT|HIGHEST|HIGH)\b")


# Each pattern is searched only where a substring every match of it holds is present (`in` runs
# at memchr speed; the patterns' alternations at a fraction of it): on a tree of 6,000 modules the
# test cost 4.5 s unguarded.
_GUARDS = {
    _HINT: lambda code: b"precision" in code or b"accuracy" in code,
    _UNPACKED: lambda code: _UNPACKING.search(code) is not None,
    _POSITIONAL_OP: lambda code: b"dot" in code or b"conv" in code or b"batch_matmul" in code,
    _MEMBER_PAIR: lambda code: b"HIGH" in code or b"DEFAULT" in code,
}


def _import_lines(raw: bytes) -> list[bytes]:
    """The source of each import statement: each line that starts with one, the parenthesized names
    of `from a import (...)` included."""
    first = _IMPORT_AT_START.match(raw)
    return [first.group(), *_IMPORT_AFTER_NEWLINE.findall(raw, first.end())] if first is not None \
        else _IMPORT_AFTER_NEWLINE.findall(raw)


def _search(pattern: re.Pattern, code: bytes) -> bool:
    return _GUARDS[pattern](code) and pattern.search(code) is not None


def _may_fail_bytes(code: bytes) -> bool:
    return b"lstm" in code or _search(_HINT, code) or _search(_UNPACKED, code) \
        or _search(_POSITIONAL_OP, code) or _search(_MEMBER_PAIR, code)


def _hint_offsets(raw: bytes) -> list[int]:
    """Sorted offsets where a match of one of `_may_fail_bytes`'s patterns starts in a whole module:
    a statement none of them starts in cannot pass that test alone (its matches lie within one
    call), so one pass over the module replaces a search per statement."""
    starts = [match.start() for match in re.finditer(rb"lstm", raw)]
    for pattern, guard in _GUARDS.items():
        starts += [match.start() for match in pattern.finditer(raw)] if guard(raw) else []
    return sorted(starts)


def _reaching(tree: Optional[ast.Module], raw: bytes, starts: list[int], needy: set[str]) -> list[str]:
    """Top-level defs and values that name a needy one (`def body(...): mm(...)`, `k = body`,
    `BODIES = [body]`), transitively: launched or called from a kernel elsewhere, they bring it there.
    Only those another module may launch are asked about (values, classes, defs that take refs as
    kernel bodies do, factories); the helpers between them only carry the question. A statement's
    words (its bytes, decorators included) are read first: only one that spells a needy name is
    walked for the names it loads."""
    statements: dict[str, tuple[ast.stmt, frozenset[bytes]]] = {}
    for statement in tree.body if tree is not None else ():
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = statement.name
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            name = statement.targets[0].id
        else:
            continue
        if name not in needy:
            first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])
            end = starts[statement.end_lineno] if statement.end_lineno < len(starts) else len(raw)
            statements[name] = (statement, _words(raw[starts[first - 1]:end]))
    found: list[tuple[str, ast.stmt]] = []
    wanted = {name.encode() for name in needy}
    changed = True
    while changed:
        changed = False
        for name, (statement, words) in list(statements.items()):
            if words & wanted and needy & {node.id for part in _launchable_parts(statement) for node in ast.walk(part)
                                           if isinstance(node, ast.Name)}:
                needy.add(name)
                wanted.add(name.encode())
                found.append((name, statement))
                del statements[name]
                changed = True
    return [name for name, statement in found if _askable(statement)]


def _launchable_parts(statement: ast.stmt) -> list[ast.AST]:
    """What another module launches when it launches this statement's name. A class holds it in its
    attributes (`kernel = staticmethod(...)`, or set by `__init__`) and in its methods that take
    refs as kernel bodies do (`pl.pallas_call(Kernels.mm)`, `Fused(2.0).body`); its other methods
    are asked for where they are called."""
    if isinstance(statement, ast.ClassDef):
        return [s for s in statement.body if not isinstance(s, FUNCTION_DEFS) or s.name == "__init__" or takes_refs(s)]
    return [statement]


def _askable(statement: ast.stmt) -> bool:
    """Another module may launch it: a value, a class, a def that takes refs as kernel bodies do, or
    a factory (a def that returns a function it defines, a lambda or a partial). A def that only
    uses nested helpers (`gmres`) runs where it is called, as plain code or inside this module's
    kernels, and is not asked about."""
    if not isinstance(statement, FUNCTION_DEFS):
        return True
    if takes_refs(statement):
        return True
    inner = {node.name for node in ast.walk(statement) if isinstance(node, FUNCTION_DEFS) and node is not statement}
    def a_function(value: ast.expr) -> bool:
        if isinstance(value, (ast.Tuple, ast.List)):
            return any(a_function(element) for element in value.elts)
        return isinstance(value, ast.Lambda) or isinstance(value, ast.Name) and value.id in inner \
            or isinstance(value, ast.Call) and _terminal_name(value.func) == "partial"
    return any(a_function(value) for value in returned_values(statement))


def _may_fail_in_a_kernel(call: ast.Call) -> bool:
    """A call with a precision or hint that is not None, written here or passed on from the
    function's parameters (`precision=precision`, `**kwargs`): a helper that passes on its caller's
    value is as needy as code that writes one. Its callers may be in another module and hand it a
    pair without a word of precision in their own code (`ops.matmul(x, w, PAIR)`, or a body's
    `prec` that a partial binds): only this code names the op, so only here can a finding say so."""
    named = _terminal_name(call.func)
    if named == "lstm" or any(k.arg in _HINT_KEYWORDS and not _is_none(k.value) for k in call.keywords):
        return True
    if any(_is_member_pair(value) for value in (*call.args, *(k.value for k in call.keywords))):
        return True  # a pair handed on under another name (`Runner(partial(body, p=PAIR))`)
    arguments = len(call.args) - (1 if named == "partial" else 0)
    if named == "partial" and call.args:
        named = _terminal_name(call.args[0])
    if named not in _OP_NAMES:
        return False
    # `**kwargs` may carry either argument; `*args` only a precision where an op takes it positionally.
    unpacked = any(k.arg is None and not _is_none(k.value) for k in call.keywords) \
        or named in _POSITIONAL_PRECISION and any(isinstance(a, ast.Starred) and not _is_none(a.value) for a in call.args)
    positional = arguments >= _POSITIONAL_PRECISION.get(named, arguments + 1) \
        and not _is_none(call.args[_POSITIONAL_PRECISION[named] - 1 + (len(call.args) - arguments)])
    return unpacked or positional


def _imports_within(statement: ast.stmt, package: str) -> bool:
    """A relative import, or an absolute one of the package itself or of its own modules."""
    def within(name: str) -> bool:
        return name == package or name.startswith(package + ".")
    if isinstance(statement, ast.ImportFrom):
        return bool(statement.level) or within(statement.module or "")
    return isinstance(statement, ast.Import) and any(within(alias.name) for alias in statement.names)


def _terminal_name(node: ast.AST) -> str:
    """`dot` for `jnp.dot` or `dot`."""
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


# The names a launcher is called by (a pattern's alternatives).
_LAUNCHER_NAMES = rb"pallas_call|kernel|core_map|emit_pipeline\w*"
# The name a launcher is fed: `pallas_call(body,`, `pallas_call(kernel=body,`, `pallas_call(partial(body, n=1)`,
# `pallas_call(self.body,` (a runner class keeps what its `__init__` takes).
_LAUNCHED_NAME = re.compile(rb"(?:" + _LAUNCHER_NAMES + rb")\(\s*(?:(?:kernel|body|f)\s*=\s*)?"
                            rb"(?:(?:functools\s*\.\s*)?partial\s*\(\s*)?(?:self\s*\.\s*)?([A-Za-z_]\w*)\s*[,)]")
_PARTIAL_OF_A_LAUNCHER = re.compile(rb"\bpartial\s*\(\s*[\w.]*\b(?:pallas_call|kernel|emit_pipeline\w*)\s*[,)]")


def _another_name_for(names: bytes) -> bytes:
    """A pattern (MULTILINE) for a plain assignment of one of `names` (`call = tpu_call`, `call = pl.pallas_call`)."""
    return rb"=[ \t]*[\w.]*\b(?:" + names + rb")[ \t]*(?:$|#|;)"


# A launcher's name, called (`plgpu.kernel(`, `pl.core_map(`) or as a decorator (`@plgpu.kernel`).
_LAUNCHER_WORD = re.compile(rb"\b(?:" + _LAUNCHER_NAMES + rb")\b\s*[(\n]")
_LAUNCHER_LITERALS = (b"kernel", b"pallas_call", b"core_map", b"emit_pipeline")  # one is in every match
_ALIAS_OF_A_LAUNCHER = re.compile(_another_name_for(_LAUNCHER_NAMES), re.M)


def _says_a_launcher(raw: bytes) -> bool:
    """Whether `_LAUNCHER_WORD` matches: searched only where one of its literals is (`in` is five
    times faster than the pattern, which has no literal prefix: 3,600 modules ask on site-packages)."""
    return any(literal in raw for literal in _LAUNCHER_LITERALS) and _LAUNCHER_WORD.search(raw) is not None


def _launchers_in(name: str, scope: KernelScope) -> dict[str, tuple[Optional[int], str, Backends]]:
    """The launchers module `name` defines for its importers, by qualified name: its top-level
    defs, classes and decorator factories that launch (`defined_launchers`), its module-level partials."""
    return {f"{name}.{launcher}": spec for launcher, spec in {**defined_launchers(scope), **scope.partial_launchers}.items()}


def _may_hand_on(raw: bytes, launchers: set[str]) -> bool:
    """Whether the code may call one of `launchers` (`tpu_call(body`), bind a partial of one, or
    give one another name (`call = tpu_call`)."""
    names = b"|".join(re.escape(name.encode()) for name in sorted(launchers))
    return re.search(rb"\b(?:" + names + rb")\s*\(|partial\([\w. ]*\b(?:" + names + rb")\b|" + _another_name_for(names),
                     raw, re.M) is not None


def _may_define_launch_helpers(raw: bytes) -> bool:
    """A launcher fed a bare name that some def or lambda takes as a parameter (`def run(body):
    pallas_call(body`), a partial of a launcher (`tpu_call = functools.partial(pl.pallas_call, ...)`)
    or another name for one (`call = pl.pallas_call`)."""
    if KERNEL_MARKER not in raw:
        return False
    if _PARTIAL_OF_A_LAUNCHER.search(raw) or _ALIAS_OF_A_LAUNCHER.search(raw):
        return True
    for name in set(_LAUNCHED_NAME.findall(raw)):
        if re.search(rb"(?:\bdef[ \t]+\w+[ \t]*\([^)]*|\blambda\b[^:]*)\b" + re.escape(name) + rb"\b", raw):
            return True
    return False


def _holder(statement: ast.stmt) -> Optional[str]:
    """The top-level name a statement puts values in: a class, a value (`k = body`, `BODIES =
    [body]`), or a container filled after it is built (`BODIES[1] = body`, `BODIES.insert(0,
    body)`, `TABLE.update(main=body)`)."""
    if isinstance(statement, ast.ClassDef):
        return statement.name
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        while isinstance(target, ast.Subscript):
            target = target.value
        return target.id if isinstance(target, ast.Name) else None
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) \
            and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr in _FILLING \
            and isinstance(statement.value.func.value, ast.Name):
        return statement.value.func.value.id
    return None


# The methods that put values in a list, set or dict after it is built.
_FILLING = frozenset({"append", "insert", "extend", "add", "update", "setdefault"})


def _is_partial_of(call: Optional[ast.AST], node: ast.AST) -> bool:
    """`partial(node, ...)`."""
    return isinstance(call, ast.Call) and bool(call.args) and call.args[0] is node and _terminal_name(call.func) == "partial"


def _holding_expression(index: ModuleIndex, node: ast.AST) -> tuple[ast.AST, bool]:
    """The expression that holds `node`'s value, through calls of it (`ops.make()`: what it
    returns), subscripts (`ops.BODIES["a"]`) and partials of those; and whether a call was one."""
    made = False
    while True:
        above = index.parent.get(node)
        if isinstance(above, ast.Call) and above.func is node:
            node, made = above, True
        elif isinstance(above, ast.Subscript) and above.value is node or _is_partial_of(above, node):
            node = above
        else:
            return node, made


def _is_member_pair(node: ast.AST) -> bool:
    """`(P.DEFAULT, P.HIGHEST)`, `[DEFAULT, HIGH]`: two Precision members however spelled."""
    return isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == 2 \
        and all(_last_name(element) in _LEVELS for element in node.elts)


_PRECISION_NAMED = re.compile(rb"\bprecision\s*=\s*([A-Za-z_]\w*)")
_POSITIONAL_CALL = re.compile(rb"\b(" + b"|".join(sorted(name.encode() for name in _POSITIONAL_PRECISION)) + rb")\s*\(")
_NAME = re.compile(rb"[A-Za-z_]\w*")


def _may_wrap_a_precision(raw: bytes) -> bool:
    """A precision given as a name (`precision=precision`, `precision=p`, `lax.dot_general(x, w, dims,
    p)`) that a def takes as a parameter: where a kernel may take its precision from a wrapper's."""
    names = set(_PRECISION_NAMED.findall(raw)) - {b"None"} if b"precision" in raw else set()
    names |= _positional_precision_names(raw)
    return any(re.search(rb"\bdef[ \t]+\w+[ \t]*\([^)]*\b" + re.escape(name) + rb"\b", raw) for name in names)


def _positional_precision_names(raw: bytes) -> set[bytes]:
    """The names an op that takes its precision by position is given there (`lax.dot_general(x, w,
    dims, p)`: `p`), read from its arguments' bytes (brackets balanced, strings not read)."""
    found = set()
    for match in _POSITIONAL_CALL.finditer(raw) if _POSITIONAL_OP.search(raw) else ():
        depth, start, arguments = 0, match.end(), []
        for position in range(match.end(), min(len(raw), match.end() + 2000)):
            byte = raw[position:position + 1]
            if byte in b"([{":
                depth += 1
            elif byte in b")]}" and depth:
                depth -= 1
            elif byte == b"," and not depth or byte == b")":
                arguments.append(raw[start:position].strip())
                start = position + 1
                if byte == b")":
                    break
        needed = _POSITIONAL_PRECISION[match.group(1).decode()]
        if len(arguments) >= needed and _NAME.fullmatch(arguments[needed - 1]):
            found.add(arguments[needed - 1])
    return found


def _precision_constants(tree: Optional[ast.Module]) -> list[str]:
    """The module's top-level `NAME = value` whose value may be a precision (see `_may_be_a_precision`)."""
    return [statement.targets[0].id for statement in (tree.body if tree is not None else ())
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and _may_be_a_precision(statement.value)]


def _may_be_a_precision(value: ast.expr) -> bool:
    """A value the rules may read as a precision and rewrite where it is written: a pair, a member
    (`P.HIGHEST`), a string (`"bfloat16"`), `Precision("highest")`."""
    if isinstance(value, (ast.Tuple, ast.List)):
        return len(value.elts) == 2 and all(isinstance(e, ast.Name) or _may_be_a_precision(e) for e in value.elts)
    if isinstance(value, ast.Call):
        return len(value.args) == 1 and not value.keywords and _may_be_a_precision(value.args[0])
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str) and value.value.lower() in PRECISION_NAMES
    return isinstance(value, ast.Attribute) and value.attr in _LEVELS


def _kernel_precision(index: ModuleIndex, scope: KernelScope, mention: ast.AST) -> bool:
    """The precision of a call (`precision=<mention>`, or an op's argument at its precision's
    position) in a kernel of its module that Mosaic TPU may lower: a read that wants the same fix
    as the kernel that writes it."""
    parent = index.parent.get(mention)
    call = index.parent.get(parent) if isinstance(parent, ast.keyword) else parent
    kernel = scope.kernel_of(mention)
    return isinstance(call, ast.Call) and precision_taken(call, _POSITIONAL_PRECISION) is mention \
        and kernel is not None and MOSAIC_TPU in scope.backends.get(kernel, frozenset())


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _ref_takers(tree: ast.Module) -> list[str]:
    """The module's top-level defs that take refs as kernel bodies do (see takes_refs), in order."""
    return [statement.name for statement in tree.body
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and takes_refs(statement)]


_TRY_STAR = (ast.TryStar,) if sys.version_info >= (3, 11) else ()


def _conditional_imports(statement: ast.stmt) -> Iterator[tuple[str, str]]:
    """What the imports in a top-level `if` or `try` statement's blocks bind (see import_binding)."""
    for block in (getattr(statement, "body", []), getattr(statement, "orelse", []), getattr(statement, "finalbody", []),
                  *(handler.body for handler in getattr(statement, "handlers", []))):
        for inner in block:
            if isinstance(inner, (ast.Import, ast.ImportFrom)):
                yield from (import_binding(inner, alias) for alias in inner.names if alias.name != "*")
            elif isinstance(inner, (ast.If, ast.Try, *_TRY_STAR)):
                yield from _conditional_imports(inner)


def _dotted(node: ast.AST) -> Optional[str]:
    """`a.b.c` of a name or an attribute chain; None for any other expression."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def _last_name(node: ast.AST) -> Optional[str]:
    """`c` for `a.b.c` or `c`."""
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)


def _launchers_value(launchers: dict[str, tuple[Optional[int], str, Backends]]) -> tuple:
    """Launch helpers as plain, sorted data (a part kept by value: LAUNCHERS)."""
    return tuple(sorted((name, position, keyword, tuple(sorted(backends)))
                        for name, (position, keyword, backends) in launchers.items()))


def _wrappers_value(wrappers: dict[str, tuple[Optional[int], str, Backends, bool]]) -> tuple:
    """Precision wrappers as plain, sorted data (a part kept by value: WRAPPERS)."""
    return tuple(sorted((name, position, keyword, tuple(sorted(backends)), plain)
                        for name, (position, keyword, backends, plain) in wrappers.items()))


def _hash(value: object) -> bytes:
    """A part's value, kept as a hash: `repr` of plain, sorted data (no sets, whose order varies)."""
    return hashlib.blake2b(repr(value).encode(), digest_size=16).digest()


def _absolute(path: "Path | str") -> str:
    return os.path.abspath(path)
