"""The project as a set of modules: kernel bodies, helpers and launchers that live in different files.

Real kernel packages define a body in `kernels.py`, its helpers in `ops/math.py` and launch it with
`pl.pallas_call` in `api.py`. Each file is still analysed on its own (in parallel, cached); what one
module learns about another's functions travels as `ModuleFacts`: "your `body` is launched for
Mosaic TPU", "your `act` is called from a kernel, and plain XLA code in `model.py` calls it too",
"`pkg.launch.run` passes its first argument on as a kernel body".

The index is bounded by what can launch a kernel: only files that mention "pallas" and import
another module of the project start it (every launcher lives under jax.experimental.pallas); the
modules they reach (bodies, helpers, re-exports through `__init__.py`) are parsed on demand, and a
module that plain XLA code may call a shared helper from is parsed only when its bytes name the
helper. Everything else is never parsed here. Facts only flow between modules of the project: a
name from a C extension, an installed package, a module that does not parse, a relative import
above the root or an import cycle simply yields nothing more.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional

from codemods.analysis.kernel_scope import KERNEL_MARKER, Backends, KernelScope, ModuleFacts, find_kernels
from codemods.analysis.module import FunctionNode, ModuleIndex

_MAX_ROUNDS = 8  # facts reach a fixpoint in a few rounds; a pathological chain stops here
_MAX_REEXPORTS = 8  # `from .a import f` in `__init__.py`, re-exported again ...: deeper chains are not followed


def module_name(path: Path) -> tuple[str, bool]:
    """`src/pkg/sub/mod.py` -> ("pkg.sub.mod", False), the dotted name Python imports it by when its
    package folders hold `__init__.py`; `pkg/__init__.py` -> ("pkg", True)."""
    path = Path(path)
    parts = [] if path.stem == "__init__" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.name:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts), path.stem == "__init__"


@dataclass
class _Module:
    path: Path
    name: str
    is_package: bool
    index: Optional[ModuleIndex] = None
    # Facts gathered so far: def name -> (backends, why, launched as a body); names shared with XLA.
    kernels: dict[str, tuple[Backends, str, bool]] = field(default_factory=dict)
    shared: set[str] = field(default_factory=set)

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

    def facts(self, launchers: tuple) -> ModuleFacts:
        kernels = tuple(sorted((name, backends, why, body) for name, (backends, why, body) in self.kernels.items()))
        return ModuleFacts(kernels, frozenset(self.shared), launchers)


class ProjectIndex:
    """Cross-module facts for the files of one project, computed once per run (main process)."""

    def __init__(self, files: Iterable[Path], read: Callable[[Path], bytes]) -> None:
        self._read = read
        self._modules: dict[str, _Module] = {}
        self._by_path: dict[Path, _Module] = {}
        for path in files:
            name, is_package = module_name(path)
            if name and all(part.isidentifier() for part in name.split(".")) and name not in self._modules:
                module = _Module(Path(path), name, is_package)
                self._modules[name] = module
                self._by_path[_absolute(path)] = module
        self._launchers: dict[str, tuple[Optional[int], str, Backends]] = {}
        self._analysed: set[str] = set()
        self._build()

    def facts(self, path: Path) -> ModuleFacts:
        """What the rest of the project says about the module at `path` (empty if nothing)."""
        module = self._by_path.get(_absolute(path))
        if module is None or not (module.kernels or self._launchers):
            return ModuleFacts()
        return module.facts(self._launcher_facts())

    def holds_kernels(self, path: Path) -> bool:
        """Other modules launch functions of this one, or call them from kernels."""
        module = self._by_path.get(_absolute(path))
        return module is not None and bool(module.kernels)

    @property
    def parsed(self) -> int:
        return sum(module.index is not None for module in self._modules.values())

    # -- building --

    def _launcher_facts(self) -> tuple:
        return tuple(sorted((name, *spec) for name, spec in self._launchers.items()))

    def _build(self) -> None:
        starters = [m for m in self._modules.values() if self._starts_index(m)]
        dirty = {m.name for m in starters}
        for _ in range(_MAX_ROUNDS):
            if not dirty:
                break
            current, dirty = dirty, set()
            for name in sorted(current):
                dirty |= self._analyse(self._modules[name])
        self._mark_shared()

    def _starts_index(self, module: _Module) -> bool:
        """A file that can launch a kernel and imports another module of the project."""
        raw = self._bytes(module)
        if KERNEL_MARKER not in raw:
            return False
        if re.search(rb"^[ \t]*from[ \t]+\.", raw, re.MULTILINE):
            return True
        tops = {name.split(".")[0] for name in self._modules}
        return any(re.search(rb"^[ \t]*(?:from|import)[ \t]+" + re.escape(top.encode()) + rb"\b", raw, re.MULTILINE)
                   for top in tops if top.encode() in raw)

    def _bytes(self, module: _Module) -> bytes:
        try:
            return self._read(module.path)
        except OSError:
            return b""

    def _index(self, module: _Module) -> Optional[ModuleIndex]:
        if module.index is None:
            try:
                module.index = ModuleIndex.parse(self._bytes(module).decode("utf-8"))
            except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError):
                return None  # reported when the file itself is processed; here it only adds no facts
        return module.index

    def _analyse(self, module: _Module) -> set[str]:
        """Run the kernel analysis of one module with what is known so far; hand what it learns to the
        modules it names. Returns the modules whose facts changed."""
        index = self._index(module)
        if index is None:
            return set()
        changed: set[str] = set()
        self._analysed.add(module.name)
        for dependency in self._imports(module, index):  # launch helpers it may call are known first
            if dependency.name not in self._analysed and KERNEL_MARKER in self._bytes(dependency):
                changed |= self._analyse(dependency)
        scope = find_kernels(index, module.facts(self._launcher_facts()))
        for function, (param, launched) in scope.launch_helpers.items():
            if index.function_parent.get(function) is None and not isinstance(function, ast.Lambda):
                arguments = function.args
                positional = [*arguments.posonlyargs, *arguments.args]
                spec = (positional.index(param) if param in positional else None, param.arg, launched)
                key = f"{module.name}.{function.name}"
                if self._launchers.get(key) != spec:
                    self._launchers[key] = spec
                    changed |= {m.name for m in self._modules.values()
                                if m.index is not None and function.name.encode() in self._bytes(m)} | {module.name}
        for expression, why, launched in scope.foreign_bodies:
            for target in self._targets(module, index, expression):
                changed |= self._learn(target, launched, why, body=True)
        for kernel in scope.kernels:
            launched = scope.backends.get(kernel, frozenset())
            for inner in index.functions_within(kernel):
                for mention in index.mentions.get(inner, ()):
                    for target in self._targets(module, index, mention):
                        changed |= self._learn(target, launched, f"called from a kernel body in {module.name}", body=False)
        changed.discard(module.name)
        return changed

    def _imports(self, module: _Module, index: ModuleIndex) -> list[_Module]:
        """The project modules a module imports at its top level."""
        found = []
        for bindings in index.module_scope.bindings.values():
            for binding in bindings:
                absolute = module.absolute(binding.imported) if binding.imported is not None else None
                parts = absolute.split(".") if absolute else []
                owner = next((self._modules[".".join(parts[:cut])] for cut in range(len(parts), 0, -1)
                              if ".".join(parts[:cut]) in self._modules), None)
                if owner is not None and owner is not module and owner not in found:
                    found.append(owner)
        return found

    def _learn(self, target: tuple[_Module, str], launched: Backends, why: str, body: bool) -> set[str]:
        module, name = target
        before = module.kernels.get(name)
        backends = (before[0] if before else frozenset()) | launched
        body = body or bool(before and before[2])
        if before is not None and before[0] == backends and before[2] == body:
            return set()
        module.kernels[name] = (backends, before[1] if before else why, body)
        return {module.name}

    def _targets(self, module: _Module, index: ModuleIndex, node: ast.AST) -> list[tuple[_Module, str]]:
        """The project functions (module, top-level def name) a name or attribute refers to through imports."""
        if isinstance(node, ast.Call):  # functools.partial(kernels.body, ...)
            node = node.args[0] if node.args else node
        if not isinstance(node, (ast.Name, ast.Attribute)):
            return []
        found = []
        for name in index.qualified_names(node):
            absolute = module.absolute(name)
            target = self._function(absolute, _MAX_REEXPORTS) if absolute else None
            if target is not None and target[0] is not module:
                found.append(target)
        return found

    def _function(self, qualified: str, depth: int) -> Optional[tuple[_Module, str]]:
        """The module and def a qualified name denotes, through re-exports (`from .a import f`)."""
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            owner = self._modules.get(".".join(parts[:cut]))
            if owner is None:
                continue
            if cut != len(parts) - 1:
                return None  # `pkg.mod.Class.method` and the like: not followed
            index = self._index(owner)
            if index is None:
                return None
            for binding in index.module_scope.bindings.get(parts[-1], ()):
                if isinstance(binding.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or isinstance(binding.value, ast.Call):
                    return owner, parts[-1]  # a def, or a value such as `exp_hi = functools.partial(...)`
                if binding.imported is not None and depth > 0:
                    absolute = owner.absolute(binding.imported)
                    if absolute and absolute != qualified:
                        return self._function(absolute, depth - 1)
            return None
        return None

    # -- helpers that plain XLA code elsewhere calls too --

    def _mark_shared(self) -> None:
        helpers = {(m.name, name) for m in self._modules.values() for name, (_, _, body) in m.kernels.items() if not body}
        if not helpers:
            return
        words = re.compile(rb"\b(?:" + b"|".join(sorted({re.escape(n.encode()) for _, n in helpers})) + rb")\b")
        for module in list(self._modules.values()):
            if module.index is None and not words.search(self._bytes(module)):
                continue
            index = self._index(module)
            if index is None:
                continue
            scope = find_kernels(index, module.facts(self._launcher_facts()))
            for function, mentions in index.mentions.items():
                if _in_kernel(scope, index, function):
                    continue
                for mention in mentions:
                    for owner, name in self._targets(module, index, mention):
                        if (owner.name, name) in helpers:
                            owner.shared.add(name)


def _in_kernel(scope: KernelScope, index: ModuleIndex, function: Optional[FunctionNode]) -> bool:
    while function is not None:
        if function in scope.kernels:
            return True
        function = index.function_parent.get(function)
    return False


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(path))
