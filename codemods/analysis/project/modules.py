"""The project's modules: the dotted name each is imported by, what one run reads of each (`_Module`),
and the parts of a module that facts about other modules may depend on (a kept fact is checked
against those parts alone)."""

from __future__ import annotations

import ast
import hashlib
import os
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from codemods.analysis.kernel_scope import BODY, Backends, FACTORY, HELPER
from codemods.analysis.module import ModuleIndex


FUNCTION_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


_NOT_SUMMARISED = object()


_KEPT = object()  # a module's summary is the restored state's (`KeptSummaries`), read when asked for


_MAX_REEXPORTS = 8  # `from .a import f` in `__init__.py`, re-exported again ...: deeper chains are not followed


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
X64 = "x64"  # the line where it may turn jax_enable_x64 on, 0 if none (see `_x64_line`), kept by value for every module


# Parts of the project as a whole, under the module name "" (no module's): whether a module is in
# kernel land; the answer of a search of the importers for a word (`_importers_saying`); whether a
# module launches kernels (says pallas, or launches through another module's launcher).
PROJECT, KERNEL_LAND, SEARCH, LAUNCHING = "", "kernel land", "search", "launching"


_Dependency = tuple  # (module name, part)


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
    word_hashes: Optional[array] = None  # their hashes (scan._word_hashes), once a search asks
    said: Optional[frozenset[bytes]] = None  # those of the summary's needy names (ProjectIndex._named) it says
    project_mentions: Optional[dict] = None
    top_level: Optional[dict[str, str]] = None  # see ProjectIndex._top_level
    project_names: Optional[frozenset[str]] = None  # names it binds to project modules (import roots)
    holders: Optional[dict[str, list[tuple[str, frozenset[str]]]]] = None  # see ProjectIndex._holders
    dotted: Optional[dict[str, set[str]]] = None  # see ProjectIndex._dotted_names
    dotted_beside_fields: Optional[dict[str, set[str]]] = None  # see ProjectIndex._dotted_beside_fields
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


def _top(module: str) -> str:
    """A module's top-level name (a notebook, which no import names, is its own)."""
    return module if module.startswith("<") else module.split(".", 1)[0]


def _is_jax(module: str) -> bool:
    """jax's own modules (see `ProjectIndex.linked`)."""
    return module.split(".", 1)[0] in ("jax", "jaxlib")


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
