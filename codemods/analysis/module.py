"""One parse of a module with the stdlib `ast`, and what every rule asks of it.

The stdlib parser is C-fast and its nodes carry start and end positions, so the whole analysis
(which names refer to which imports, which functions are kernel bodies, which values reach a call)
costs a few hundredths of a second on a 2,000-line kernel file. libcst, which keeps every byte of
formatting, is used only to apply the edits this analysis plans (codemods/engine/fixes.py).

Scopes follow Python's rules closely enough for matching: a function, lambda, class or
comprehension opens a scope; a name bound anywhere in a function is local to all of it (unless
declared `global`/`nonlocal`); class scopes are skipped by the functions nested in them;
decorators, defaults and annotations belong to the enclosing scope.
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
import warnings
from dataclasses import dataclass, field
from typing import AbstractSet, Iterable, Iterator, Mapping, Optional, Union

from codemods.analysis.names import PARTIAL, canonical

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
MAX_ALIAS_DEPTH = 8  # `a = b`, `b = c`, `k = partial(body, ...)`, ...: longer chains (and cycles) are not followed
NEWLINE = re.compile(r"\r\n|\r|\n")  # the line ends Python reads (not str.splitlines' \f, \x1c, ...)


@dataclass(eq=False)
class Binding:
    """One place a name is bound: an import, a def, a parameter, an assignment target, ..."""

    name: str
    node: ast.AST  # ast.alias, FunctionDef/ClassDef, ast.arg, or the target ast.Name
    scope: "Scope"
    imported: Optional[str] = None  # for imports: the qualified name bound (".mod.x" when relative)
    statement: Optional[ast.AST] = None  # for imports: the Import/ImportFrom statement
    value: Optional[ast.expr] = None  # `name = value` (a single-name target, or unpacked from a literal tuple)
    # `for name in (a, b)`, `for key, name in {...}.items()`, `[... for name in ...]`: each value it takes.
    iterated: tuple[ast.expr, ...] = ()
    references: list[ast.Name] = field(default_factory=list)  # loads that may read this binding

    @property
    def is_parameter(self) -> bool:
        return isinstance(self.node, ast.arg)

    @property
    def is_relative_import(self) -> bool:
        return isinstance(self.statement, ast.ImportFrom) and bool(self.statement.level)


def import_binding(statement: Union[ast.Import, ast.ImportFrom], alias: ast.alias) -> tuple[str, str]:
    """What an import binds for one of its names (not `*`): the name, and the dotted name it stands
    for, a relative one with its dots (`import jax.numpy as jnp`: ("jnp", "jax.numpy"); `import
    jax.numpy`: ("jax", "jax"); `from ..ops import act as a`: ("a", "..ops.act"))."""
    if isinstance(statement, ast.Import):
        bound = alias.asname or alias.name.split(".")[0]
        return bound, alias.name if alias.asname else bound
    prefix = "." * statement.level + (statement.module or "")
    return alias.asname or alias.name, f"{prefix}.{alias.name}" if statement.module else f"{prefix}{alias.name}"


@dataclass(eq=False)
class Scope:
    kind: str  # "module", "function", "class" or "comprehension"
    node: ast.AST
    parent: Optional["Scope"]
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)

    def bind(self, binding: Binding) -> None:
        self.bindings.setdefault(binding.name, []).append(binding)

    def lookup(self, name: str) -> list[Binding]:
        """The bindings a load of `name` in this scope may read (none: a builtin or undefined)."""
        if name in self.globals:
            return self.module.bindings.get(name, [])
        scope: Optional[Scope] = self.parent if name in self.nonlocals else self
        first = scope
        while scope is not None:
            if name in scope.bindings and (scope is first or scope.kind != "class"):
                return scope.bindings[name]
            scope = scope.parent
        return []

    @property
    def module(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


class ModuleIndex:
    """A module as the rules see it: its text, its tree, and the answers they share."""

    def __init__(self, text: str, tree: ast.Module, through: Optional[Mapping[str, str]] = None) -> None:
        """`through`: imports to read as other names (ModuleFacts.through: `pkg.ops.lax` is `jax.lax`)."""
        self.text = text
        self.tree = tree
        self.through = through or {}
        self._line_starts = [0] + [match.end() for match in NEWLINE.finditer(text)]
        self.parent: dict[ast.AST, ast.AST] = {}
        self.calls: list[ast.Call] = []  # every call, in source order (outer before inner)
        self.scope_of: dict[ast.AST, Scope] = {}  # for each Name and Attribute: where it is looked up
        # The innermost function around a node, as a kernel body contains it: its decorators,
        # defaults and annotations included (they run when the body is defined).
        self.enclosing: dict[ast.AST, Optional[FunctionNode]] = {}
        self.function_parent: dict[FunctionNode, Optional[FunctionNode]] = {}
        self.nested: dict[Optional[FunctionNode], list[FunctionNode]] = {}
        self.mentions: dict[Optional[FunctionNode], list[ast.AST]] = {}  # Names and Attributes, by innermost function
        self.module_scope = Scope("module", tree, None)
        self.scopes: list[Scope] = [self.module_scope]  # every scope, for those who visit all bindings
        self._definition_scope: dict[ast.AST, Scope] = {}
        self._loop_targets: list[Binding] = []
        self.imports: list[Binding] = []  # every import binding, in any scope
        # Names bound to another name or an attribute (`P = pltpu`): the only bindings besides imports
        # that qualified_names follows.
        self.aliases: set[str] = set()
        # Kernel scopes found in it, by the part of the facts they were found with that they read
        # (kernel_scope.find_kernels): the project index and the rules ask about the same module.
        self.kernel_scopes: dict = {}
        self._qualified: dict[tuple[ast.AST, int], set[str]] = {}  # see qualified_names
        self._index()

    @classmethod
    def parse(cls, text: str, through: Optional[Mapping[str, str]] = None) -> "ModuleIndex":
        """Raises SyntaxError, ValueError (NUL bytes) or RecursionError (absurd nesting). Warnings the
        user's own code draws from the parser (invalid escape sequences) are not the tool's to print."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
        return cls(text, tree, through)

    # -- positions --

    def offset(self, line: int, byte_column: int) -> int:
        """The text offset of an ast position (1-based line, column in UTF-8 bytes)."""
        start = self._line_starts[line - 1]
        end = self._line_starts[line] if line < len(self._line_starts) else len(self.text)
        text = self.text[start:end]
        if text.isascii():
            return start + byte_column
        return start + len(text.encode("utf-8")[:byte_column].decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset))

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def line_column(self, offset: int) -> tuple[int, int]:
        """1-based line and column (in characters, as editors count) of a text offset."""
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    @property
    def line_starts(self) -> list[int]:
        """The offset each line starts at (the line ends Python reads)."""
        return self._line_starts

    def line_start(self, line: int) -> int:
        return self._line_starts[line - 1] if line <= len(self._line_starts) else len(self.text)

    def end_position(self, node: ast.AST) -> tuple[int, int]:
        """Line and column (1-based, exclusive) just after `node`."""
        return self.line_column(self.span(node)[1])

    def position(self, node: ast.AST) -> tuple[int, int]:
        """Where a finding about `node` points: its first character inside any parentheses (the
        stdlib counts a tuple's own parentheses as part of it; editors and libcst do not)."""
        start, _ = self.span(node)
        if isinstance(node, ast.Tuple) and self.text.startswith("(", start):
            start += 1
            while self.text[start] in " \t\f\r\n\\":
                start += 1
        return self.line_column(start)

    # -- names --

    def qualified_names(self, node: ast.AST, depth: int = MAX_ALIAS_DEPTH) -> AbstractSet[str]:
        """What `node` (a name or a dotted attribute chain) may refer to, through the imports in scope
        and the names bound to them (`P = lax.Precision`), with jax's private modules folded onto their
        public names. A name bound several ways may refer to each (`if ...: dot = jnp.dot`).
        Worked out once per node: the rules ask of the same nodes again and again (nine times in
        ten on the kernel packages under --scope all). The set is shared, to be read, not changed;
        not a copy, which may list its names in another order than the set first made."""
        key = (node, depth)
        known = self._qualified.get(key)
        if known is None:
            known = self._qualified[key] = self._find_qualified_names(node, depth)
        return known

    def _find_qualified_names(self, node: ast.AST, depth: int) -> set[str]:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return set()
        scope = self.scope_of.get(node)
        if scope is None:
            return set()
        suffix = "".join("." + part for part in reversed(parts))
        names = set()
        for binding in scope.lookup(node.id):
            if binding.imported is not None:
                names.add(canonical(self._read_through(binding.imported + suffix)))
            elif binding.value is not None and depth > 0 and isinstance(binding.value, (ast.Name, ast.Attribute)):
                # `P = lax.Precision`, `L = jax.lax`, `dot = jnp.dot`: the name stands for what it was bound to.
                names.update(name + suffix for name in self.qualified_names(binding.value, depth - 1))
        return names

    def _read_through(self, dotted: str) -> str:
        """`dotted` as `through` reads it, the name or one of its attributes (`.compat.lax.dot` is
        `jax.lax.dot` where the project's `compat` imports `lax` from jax)."""
        head = dotted
        while self.through:
            if head in self.through:
                return self.through[head] + dotted[len(head):]
            head, dot, _ = head.rpartition(".")
            if not dot:
                break
        return dotted

    def matching_name(self, node: ast.AST, wanted: Iterable[str]) -> Optional[str]:
        wanted = wanted if isinstance(wanted, (set, frozenset, dict)) else set(wanted)
        return next((name for name in self.qualified_names(node) if name in wanted), None)

    def callee(self, call: ast.Call, wanted: Iterable[str]) -> Optional[str]:
        return self.matching_name(call.func, wanted)

    def applied(self, call: ast.Call, wanted: Iterable[str]) -> Optional[tuple[str, ast.expr, int]]:
        """The function among `wanted` that `call` applies, as `f(...)` or `functools.partial(f, ...)`:
        (its name, the expression naming it, how far the call's positional arguments are shifted)."""
        name = self.matching_name(call.func, wanted)
        if name is not None:
            return name, call.func, 0
        if call.args and not isinstance(call.args[0], ast.Starred) and ordered_arguments(call)[0] is call.args[0] \
                and self.matching_name(call.func, PARTIAL):
            name = self.matching_name(call.args[0], wanted)
            if name is not None:
                return name, call.args[0], 1
        return None

    def binding_of_value(self, node: ast.AST) -> Optional[Binding]:
        """The binding `name = node` makes (a single plain target), if `node` is assigned so; also
        as a branch of a conditional (`name = node if new_jax else other`), which `name` may be."""
        statement = self.parent.get(node)
        while isinstance(statement, ast.IfExp) and node is not statement.test:
            node, statement = statement, self.parent.get(statement)
        if not (isinstance(statement, ast.Assign) and statement.value is node and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)):
            return None
        target = statement.targets[0]
        scope = self.scope_of.get(target)
        return next((b for b in scope.lookup(target.id) if b.node is target), None) if scope is not None else None

    def bindings(self, name: ast.Name) -> list[Binding]:
        scope = self.scope_of.get(name)
        return scope.lookup(name.id) if scope is not None else []

    # -- building the index: one walk --

    def _index(self) -> None:
        # Names are bound once the walk is done: it pops a body's statements last first, and a
        # `global`/`nonlocal` declaration must be known before the stores it governs are bound.
        loads: list[tuple[ast.Name, Scope]] = []
        stores: list[tuple[ast.Name, Scope]] = []
        # (node, scope, innermost function): not recursive, deep expressions must not overflow the stack
        stack: list[tuple[ast.AST, Scope, Optional[FunctionNode]]] = [(self.tree, self.module_scope, None)]
        parent, scope_of, enclosing, mentions, calls = self.parent, self.scope_of, self.enclosing, self.mentions, self.calls
        openers = {  # nodes that open a scope push their own children
            **dict.fromkeys(FUNCTIONS, self._push_function), ast.ClassDef: self._push_class,
            **dict.fromkeys(_COMPREHENSIONS, self._push_comprehension),
        }
        binders = {
            ast.Import: self._bind_import, ast.ImportFrom: self._bind_import,
            ast.Global: lambda node, scope: scope.globals.update(node.names),
            ast.Nonlocal: lambda node, scope: scope.nonlocals.update(node.names),
            ast.ExceptHandler: _bind_own_name, ast.MatchAs: _bind_own_name, ast.MatchStar: _bind_own_name,
            ast.MatchMapping: lambda node, scope: node.rest and scope.bind(Binding(node.rest, node, scope)),
        }
        while stack:
            node, scope, function = stack.pop()
            kind = node.__class__
            if kind is ast.Name:
                scope_of[node] = scope
                enclosing[node] = function
                mentions.setdefault(function, []).append(node)
                (loads if node.ctx.__class__ is ast.Load else stores).append((node, scope))
                continue
            if kind is ast.Call:
                calls.append(node)
                enclosing[node] = function
            elif kind is ast.Attribute:
                scope_of[node] = scope
                mentions.setdefault(function, []).append(node)
            elif kind in openers:
                openers[kind](node, scope, function, stack)
                continue
            elif kind in binders:
                binders[kind](node, scope)
            for field_name in _walked_fields(kind):
                value = getattr(node, field_name)
                if value.__class__ is list:
                    for child in value:
                        if isinstance(child, ast.AST) and child.__class__ is not ast.Constant:
                            parent[child] = node
                            stack.append((child, scope, function))
                elif isinstance(value, ast.AST) and value.__class__ is not ast.Constant:
                    parent[value] = node
                    stack.append((value, scope, function))
        for name, scope in stores:
            self._bind_name(name, scope)
        for name, scope in loads:
            for binding in scope.lookup(name.id):
                binding.references.append(name)
        for binding in self._loop_targets:
            binding.iterated = self._iterated_values(binding.node)  # type: ignore[arg-type]
        calls.sort(key=_source_order)

    def _bind_name(self, name: ast.Name, scope: Scope) -> None:
        target = scope
        if name.id in scope.globals:
            target = scope.module
        elif isinstance(self.parent.get(name), ast.NamedExpr):
            while target.kind == "comprehension":  # `:=` binds in the enclosing function
                target = target.parent  # type: ignore[assignment]
        binding = Binding(name.id, name, target, value=self._assigned_value(name))
        target.bind(binding)
        if isinstance(binding.value, (ast.Name, ast.Attribute)):
            self.aliases.add(name.id)
        if isinstance(self.parent.get(name), (ast.For, ast.AsyncFor, ast.comprehension, ast.Tuple)):
            self._loop_targets.append(binding)  # what it iterates is read once every name is bound

    def _assigned_value(self, name: ast.Name) -> Optional[ast.expr]:
        """`name = value`, or its element in `a, name = x, y` (a literal of the same length)."""
        statement, target = self.parent.get(name), name
        if isinstance(statement, ast.AnnAssign) and statement.target is name:
            return statement.value
        while isinstance(statement, (ast.Tuple, ast.List)):
            assign = self.parent.get(statement)
            if not isinstance(assign, ast.Assign) or statement not in assign.targets:
                return None
            value = assign.value
            if not isinstance(value, (ast.Tuple, ast.List)) or len(value.elts) != len(statement.elts) \
                    or any(isinstance(e, ast.Starred) for e in (*value.elts, *statement.elts)):
                return None
            return value.elts[statement.elts.index(target)]
        return statement.value if isinstance(statement, ast.Assign) and name in statement.targets else None

    def _iterated_values(self, name: ast.Name) -> tuple[ast.expr, ...]:
        """The values a loop or comprehension target takes from a literal it iterates: a tuple, list
        or set of them, a dict literal's `.values()`/`.items()` (the value of `k, v`), or its keys."""
        holder, position = self.parent.get(name), None
        if isinstance(holder, ast.Tuple) and len(holder.elts) == 2 and holder.elts[1] is name:
            holder, position = self.parent.get(holder), "value"
        if not (isinstance(holder, (ast.For, ast.AsyncFor, ast.comprehension))
                and (holder.target is name or position == "value" and isinstance(holder.target, ast.Tuple))):
            return ()
        iterable = holder.iter
        method = None
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and not iterable.args:
            method, iterable = iterable.func.attr, iterable.func.value
        if isinstance(iterable, ast.Name):  # `for body in BODIES` with `BODIES = (...)` in view
            bound = [b.value for b in self.bindings(iterable)]
            iterable = bound[0] if len(bound) == 1 and bound[0] is not None else iterable
        if isinstance(iterable, ast.Dict):
            if method == "items" and position == "value" or method == "values" and position is None:
                return tuple(iterable.values)
            return ()
        if isinstance(iterable, (ast.Tuple, ast.List, ast.Set)) and method is None and position is None:
            return tuple(e for e in iterable.elts if not isinstance(e, ast.Starred))
        return ()

    def _bind_import(self, node: Union[ast.Import, ast.ImportFrom], scope: Scope) -> None:
        for alias in node.names:
            if alias.name == "*":
                continue
            bound, imported = import_binding(node, alias)
            binding = Binding(bound, alias, scope, imported=self._read_through(imported), statement=node)
            scope.bind(binding)
            self.imports.append(binding)

    def _push_function(self, node: FunctionNode, scope: Scope, function: Optional[FunctionNode], stack: list) -> None:
        self.function_parent[node] = function
        self.nested.setdefault(function, []).append(node)
        inner = Scope("function", node, scope)
        self.scopes.append(inner)
        self._definition_scope[node] = scope
        if not isinstance(node, ast.Lambda):
            scope.bind(Binding(node.name, node, scope))
        arguments = node.args
        for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                    *filter(None, (arguments.vararg, arguments.kwarg))):
            inner.bind(Binding(arg.arg, arg, inner))
            self.parent[arg] = arguments
            if arg.annotation is not None:
                self.parent[arg.annotation] = arg
                stack.append((arg.annotation, scope, node))
        self.parent[arguments] = node
        outer: list[ast.AST] = [*arguments.defaults, *filter(None, arguments.kw_defaults)]
        if not isinstance(node, ast.Lambda):
            outer += [*node.decorator_list, *filter(None, [node.returns])]
        for child in outer:
            self.parent[child] = arguments if child in arguments.defaults or child in arguments.kw_defaults else node
            stack.append((child, scope, node))
        body = [node.body] if isinstance(node, ast.Lambda) else node.body
        for child in body:
            self.parent[child] = node
            stack.append((child, inner, node))

    def _push_class(self, node: ast.ClassDef, scope: Scope, function: Optional[FunctionNode], stack: list) -> None:
        scope.bind(Binding(node.name, node, scope))
        inner = Scope("class", node, scope)
        self.scopes.append(inner)
        for child in (*node.decorator_list, *node.bases, *node.keywords):
            self.parent[child] = node
            stack.append((child, scope, function))
        for child in node.body:
            self.parent[child] = node
            stack.append((child, inner, function))

    def _push_comprehension(self, node: ast.AST, scope: Scope, function: Optional[FunctionNode], stack: list) -> None:
        inner = Scope("comprehension", node, scope)
        self.scopes.append(inner)
        for index, generator in enumerate(node.generators):  # type: ignore[attr-defined]
            self.parent[generator] = node
            self.parent[generator.iter] = generator
            stack.append((generator.iter, scope if index == 0 else inner, function))
            for child in (generator.target, *generator.ifs):
                self.parent[child] = generator
                stack.append((child, inner, function))
        elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]  # type: ignore[attr-defined]
        for child in elements:
            self.parent[child] = node
            stack.append((child, inner, function))

    # -- kernel-scope helpers --

    def functions_within(self, function: FunctionNode) -> Iterator[FunctionNode]:
        """`function` and every function or lambda written inside it."""
        pending = [function]
        while pending:
            current = pending.pop()
            yield current
            pending.extend(self.nested.get(current, ()))

    def scope_of_definition(self, function: FunctionNode) -> Optional[Scope]:
        """The scope a def binds its name in."""
        return self._definition_scope.get(function)

    def references_to(self, function: FunctionNode) -> list[ast.Name]:
        """Where this module names the def `function` (a lambda has no name: none)."""
        scope = None if isinstance(function, ast.Lambda) else self.scope_of_definition(function)
        return [reference for binding in (scope.bindings.get(function.name, ()) if scope is not None else ())  # type: ignore[union-attr]
                if binding.node is function for reference in binding.references]


def _bind_own_name(node: ast.AST, scope: Scope) -> None:
    name = getattr(node, "name", None)
    if name:
        scope.bind(Binding(name, node, scope))


@functools.lru_cache(maxsize=None)
def _walked_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node class that may hold nodes worth visiting: no contexts, operators or
    identifiers (constants are skipped as they are met)."""
    skipped = {"ctx", "op", "ops", "id", "attr", "arg", "name", "names", "module", "level", "kind",
               "type_comment", "is_async", "conversion", "simple", "asname"}
    names = set(kind._fields) - skipped
    if kind in (ast.Import, ast.ImportFrom):
        names.add("names")  # its aliases
    return tuple(field_name for field_name in kind._fields if field_name in names)


def _source_order(node: ast.AST) -> tuple[int, int, int, int]:
    return (node.lineno, node.col_offset, -node.end_lineno, -node.end_col_offset)


def ordered_arguments(call: ast.Call) -> list[ast.AST]:
    """Positional arguments and keywords together, as written (`f(a, k=1, *b)`), like libcst's `args`."""
    return sorted([*call.args, *call.keywords], key=lambda node: (node.lineno, node.col_offset))
