"""The state every part of the project index shares: the modules, each one's bytes, import lines and
parses read once, and the record of what each computation read (the dependencies by which a kept
fact is checked in the next run)."""

from __future__ import annotations

import ast
import hashlib
import os
from collections import OrderedDict
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional, Protocol, TYPE_CHECKING

from codemods.analysis.flow.flow_facts import FlowFacts
from codemods.analysis.kept_summaries import KeptSummaries
from codemods.analysis.kernel_scope import Backends, KERNEL_MARKER, KernelScope, ModuleFacts
from codemods.analysis.module import ModuleIndex
from codemods.analysis.project.modules import (
    CONTENT, IMPORTS, MARKER, Usage, _Dependency, _Module, _absolute, module_name,
)
from codemods.analysis.project.scan import _FIRST_IMPORTED, _import_lines, _may_say, _parsed, _word_hashes, _words

if TYPE_CHECKING:
    from concurrent.futures import Future

    from codemods.analysis.flow.summary import ModuleSummary


class SummaryStore(Protocol):
    """Whole-program summaries kept by what they are a function of (see `share_summaries`)."""

    def made(self, content: bytes, name: str, is_package: bool,
             make: Callable[[], Optional[ModuleSummary]]) -> Optional[ModuleSummary]:
        """The summary kept for the module, else `make()`'s, kept."""


# How many bare syntax trees (parsed, not indexed) the index keeps, the most recently read: a tree
# is some 35 times its source in memory, and on a large tree the facts and the link's summaries
# parse thousands of modules, most of them read once (kept, they were most of the main process's
# peak memory: docs/speed.md). A tree read again after it was dropped is parsed again.
TREES_KEPT = 64


class ProjectBase:
    """The modules of one project and what was read of them; the parts of the index (see index.py) build on it."""

    def __init__(self, files: "Iterable[Path | str]", read: Callable[[str], bytes],
                 relevant: Callable[[bytes], bool] = lambda code: True,
                 content_hash: Optional[Callable[[str], bytes]] = None,
                 prefilter: Optional[Callable[[str], object]] = None, root: Optional[str] = None,
                 place: Optional[Callable[[str, int], Optional[str]]] = None,
                 kernel_rules: bool = True, plain_follows: bool = True) -> None:
        """`read(path)`: a file's bytes (`path`: a str, as given; a notebook's: the Python of its code cells); `relevant(code)`:
        whether a rule may have something to do in `code` (its prefilter, for code inside a kernel);
        `content_hash(path)`: a hash of the file's bytes (`path`: absolute, a str), known without
        reading an unchanged file (by default the bytes `read` gives are hashed); `prefilter(path)`:
        the caller's own answer about a file (`path`: absolute), worked out by the summary's
        workers with the rest of a module's summary, where its bytes are read (see `prefiltered`).
        A notebook (`.ipynb`) is a module no other imports: its kernels may call the project's
        helpers and launchers, so it is indexed under a name no import can spell. `root`: the folder
        relative paths in `files` start from (this process's working directory by default; in a
        cluster's worker, the driver's). `place(path, line)`: a notebook's module line as its own
        findings name it (`nb.ipynb:cell 3:1`), for other modules' findings to name it so too.
        `kernel_rules`, `plain_follows`: whether the run's rules include a kernel-scoped one, and one
        that follows a call outside kernels (JAX003's LSTM): the link starts only from what they need,
        and without a kernel-scoped rule the facts are the link's answers alone (`facts`)."""
        self._read = read
        self._kernel_rules, self._plain_follows = kernel_rules, plain_follows
        self._place = place
        self._relevant = relevant
        self._prefilter = prefilter
        self._hash_of_path = content_hash
        self._modules: dict[str, _Module] = {}
        self._by_path: dict[str, _Module] = {}  # by absolute path (a str: hashing Paths costs)
        files = [os.fspath(path) for path in files]
        packages = {os.path.dirname(os.path.normpath(path)) for path in files if os.path.basename(path) == "__init__.py"}
        prefixes: dict[str, str] = {}  # see module_name
        for path in files:
            absolute = _absolute(path) if root is None else os.path.normpath(os.path.join(root, path))
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
        self._import_dependencies: dict[str, frozenset] = {}  # what each of those was read from (`_imports_of`)
        # The restored state's (module -> (its imports, what they were read from)), and the parts it
        # says that changed since: an entry none of whose parts changed is taken when asked for.
        self._kept_imports: dict[str, tuple[tuple, tuple]] = {}
        self._stale_parts: set = set()
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
        self._x64_sites: Optional[list[tuple[str, int]]] = None  # see `_x64_elsewhere`
        self._processes: dict[str, set[str]] = {}  # see `_same_process`
        self._memos_of_this_fact: list[set] = []  # see `_remembered`
        self._made_in_this_fact: list[tuple[dict, object]] = []  # the (memo, key) it computed
        self._cycle_in_this_fact = False
        self._seeds: dict[tuple[int, object], object] = {}  # see `_fact_through_cycles`
        self._read_in_progress: dict[tuple[int, object], tuple[dict, object, object]] = {}  # the same
        self._learnt = False  # anything `state()` would say that the restored state did not
        self._flow: dict[str, FlowFacts] = {}  # see `flow`
        self._linking: Optional[Future] = None  # a link running in another process (`link_flow_elsewhere`)
        # What `flow` was linked from (see `link_flow`): its key, or what to make it of (`_kept_flow_key`).
        self._flow_key: "str | tuple[frozenset[str], dict]" = ""
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
        self._shared_summaries: Optional[SummaryStore] = None  # see `share_summaries`
        self._bare_trees: OrderedDict[str, None] = OrderedDict()  # the modules holding one, least recently read first
        self._drops_trees = True  # past TREES_KEPT (a summary's worker keeps them all: workers.py)

    def module_of(self, path: "Path | str") -> Optional[str]:
        """The name of the project's module at `path` (None if it is none of them)."""
        module = self._by_path.get(_absolute(path))
        return module.name if module is not None else None

    def notebook_place(self, module: str, line: int) -> Optional[str]:
        """Where `line` of the project's module `module` is, said as a notebook's own findings say it
        (`nb.ipynb:cell 3:1`); None for a module that is no notebook (or where no `place` was given)."""
        found = self._modules.get(module) if self._place is not None and module.startswith("<notebook ") else None
        return self._place(found.path, line) if found is not None else None

    def path_of(self, module: str) -> Optional[str]:
        """The absolute path of the project's module named `module` (None if it is none of them): the
        mapping the index holds, where asking `module_of` of every project file would build it again."""
        found = self._modules.get(module)
        return found.path if found is not None else None

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

    def parsed(self, path: Path, text: str) -> Optional[ModuleIndex]:
        """The module at `path` if this index parsed it from exactly `text` (no need to parse it
        again), handed over: the index forgets its parse, asked for by the file's analysis once the
        project's facts are known (kept, every analysed module's parse stayed for the run)."""
        module = self._by_path.get(_absolute(path))
        if module is None or (module.index is None and module.tree is None):
            return None
        index = self._index(module)
        module.index = None
        if index is not None and self._drops_trees:  # its tree stays among those read last: a later file's
            self._keep_tree(module, index.tree)  # facts may read it (one process analyses each file in turn)
        return index if index is not None and index.text == text else None

    def _in_order(self, names: Iterable[str]) -> list[_Module]:
        return [self._modules[name] for name in sorted(names, key=self._order.__getitem__)]

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
        return self._says_words(module, *self._asked(names))

    def _asked(self, names: tuple[str, ...]) -> tuple[list[bytes], bool]:
        """`names` as `_says_words` asks them: encoded, and whether the summary learnt who says each
        (`_named`: then a module's `said` answers). Once per search, not once per module asked."""
        wanted = [name.encode() for name in names]
        return wanted, self._named.issuperset(wanted)

    def _says_words(self, module: _Module, wanted: list[bytes], known: bool) -> bool:
        """`_says` of names already asked (`_asked`): a search asks it of thousands of modules."""
        if known and module.said is not None:
            return not module.said.isdisjoint(wanted)
        hashes = module.word_hashes
        if hashes is None:  # one pass over its bytes, for every name asked of it
            hashes = module.word_hashes = _word_hashes(self._bytes(module))
        for word in wanted:
            if _may_say(hashes, word):
                break
        else:
            return False
        if module.words is None:
            module.words = _words(self._bytes(module))
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
            if module.tree is not None and self._drops_trees:
                self._keep_tree(module, module.tree)
        elif module.tree is not None and module.name in self._bare_trees:
            self._bare_trees.move_to_end(module.name)
        return module.index.tree if module.index is not None else module.tree

    def _keep_tree(self, module: _Module, tree: ast.Module) -> None:
        """`tree` kept as the module's bare tree, read last: the oldest past TREES_KEPT dropped."""
        module.tree = tree
        self._bare_trees[module.name] = None
        self._bare_trees.move_to_end(module.name)
        while len(self._bare_trees) > TREES_KEPT:
            self._modules[self._bare_trees.popitem(last=False)[0]].tree = None

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
                self._bare_trees.pop(module.name, None)
        return module.index
