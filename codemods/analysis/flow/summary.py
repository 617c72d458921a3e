"""One module's summary: what its names, parameters, attributes and calls may hold, as plain data.

The whole-program value flow has two stages, as Pyre/Pysa and Infer compose theirs: this one (map)
is a pure function of one module's code and name, computed where the module is parsed and kept by
content hash; `link.py` (reduce) joins the summaries of a project without parsing anything.

A summary holds symbolic expressions (`Expr`, nested tuples), never resolved across modules:

    ("lit", value)              a str/int/bool/None constant
    ("var", scope, name)        a variable: of a function (scope: its qualified name) or of the module
    ("dotted", name)            an imported name, absolute (`jax.lax.Precision`, `pkg.cfg.PAIR`)
    ("attr", expr, name)        ("item", expr, key)   key: a literal, or None where it is computed
    ("attr", expr, name, site)  a member of an `AccuracyMode` (`lax.AccuracyMode.HIGHEST`): an `accuracy=`
                                hint, with where it is written (a run over that file alone names the
                                kernel that rejects it: `OriginAnswer.dropped`)
    ("call", number)            what the module's call `number` returns
    ("seq", site, (expr, ...))  a tuple or list literal        ("map", site, ((key, expr), ...))
    ("def", qualified)          a function defined here          ("class", qualified)
    ("either", (expr, ...))     any of them (`a if c else b`, `a or b`)
    ("comp", site, expr)        a comprehension: what its element may be, at any index or key (its
                                variables take what their iterables hold, as a for loop's do)
    ("unknown", why)            a value the flow does not follow (`getattr(m, name)`, `globals()[k]`)

`site` is (line, column) of the literal's first character, as `ast` gives them.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional

Expr = tuple
Site = tuple[int, int]

_BUILTINS = frozenset(dir(builtins))
_HINT_MEMBERS = "AccuracyMode"  # the class whose members are `accuracy=` hints: their sites are kept
# Parameter kinds, as the linker binds arguments to them.
POSITIONAL, KEYWORD_ONLY, STAR, DOUBLE_STAR = "positional", "keyword", "*", "**"
_DYNAMIC_LOOKUPS = {"getattr": "getattr with a computed name", "globals": "globals()", "vars": "vars()",
                    "__import__": "__import__", "eval": "eval"}


@dataclass(frozen=True)
class Call:
    site: Site
    scope: str  # the function the call is in (the module's name at top level)
    callee: Expr
    args: tuple[tuple[bool, Expr], ...]  # (starred, value)
    keywords: tuple[tuple[Optional[str], Expr], ...]  # (name, value); None: `**value`


@dataclass(frozen=True)
class Function:
    params: tuple[tuple[str, str, Optional[Expr]], ...]  # (name, kind, default)
    owner: Optional[str] = None  # the class whose method it is


@dataclass(frozen=True)
class Class:
    bases: tuple[Expr, ...]
    attributes: tuple[tuple[str, Expr], ...]  # class-level assignments, dataclass field defaults included
    fields: Optional[tuple[tuple[str, Optional[Expr]], ...]]  # a dataclass's fields in order; None: not one


@dataclass(frozen=True)
class ModuleSummary:
    name: str
    functions: dict[str, Function] = field(default_factory=dict)
    classes: dict[str, Class] = field(default_factory=dict)
    # (target, value): target ("var", scope, name) | ("attr", expr, name) | ("item", expr, key)
    assigns: tuple[tuple[Expr, Expr], ...] = ()
    returns: tuple[tuple[str, Expr], ...] = ()  # (function, value)
    calls: tuple[Call, ...] = ()
    star_imports: tuple[str, ...] = ()  # `from pkg.m import *`: absolute names, in order


def as_data(summary: ModuleSummary) -> tuple:
    """The summary as nested tuples, dicts and constants (marshal keeps it in the project state)."""
    return (summary.name, {q: (f.params, f.owner) for q, f in summary.functions.items()},
            {q: (c.bases, c.attributes, c.fields) for q, c in summary.classes.items()}, summary.assigns,
            summary.returns, tuple((c.site, c.scope, c.callee, c.args, c.keywords) for c in summary.calls),
            summary.star_imports)


def from_data(data: tuple) -> ModuleSummary:
    """`as_data` read back (ValueError for data of another shape)."""
    try:
        name, functions, classes, assigns, returns, calls, stars = data
        return ModuleSummary(name, {q: Function(*f) for q, f in functions.items()},
                             {q: Class(*c) for q, c in classes.items()}, assigns, returns,
                             tuple(Call(*c) for c in calls), stars)
    except (TypeError, ValueError, AttributeError) as error:
        raise ValueError(f"not a module summary: {error}") from error


def summarise(code: str, name: str, is_package: bool = False) -> Optional[ModuleSummary]:
    """The summary of module `name` from its code; None if it does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    return summarise_tree(tree, name, is_package)


def summarise_tree(tree: ast.Module, name: str, is_package: bool = False) -> ModuleSummary:
    """The same from a parse already made (the project index's)."""
    builder = _Builder(name, is_package)
    try:
        builder.module(tree)
    except RecursionError:  # nested past Python's stack (generated code): the module says nothing
        return ModuleSummary(name)
    return ModuleSummary(name, builder.functions, builder.classes, tuple(builder.assigns), tuple(builder.returns),
                         tuple(builder.calls), tuple(builder.stars))


def _absolute(module: str, is_package: bool, level: int, target: Optional[str]) -> Optional[str]:
    """`from ..x import y` in `module`: the absolute name of `..x` (None above the root)."""
    if level == 0:
        return target
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if level - 1 > len(parts) or (level - 1 == len(parts) and not target):
        return None
    base = parts[:len(parts) - (level - 1)]
    return ".".join(base + ([target] if target else [])) or None


class _Scope:
    """Names a function (or the module) binds, and where a name read there lives."""

    def __init__(self, qualified: str, parent: Optional["_Scope"], local: set[str], is_class: bool = False) -> None:
        self.qualified, self.parent, self.local, self.is_class = qualified, parent, local, is_class

    def lookup(self, name: str, imports: dict[str, str], module: str) -> Expr:
        scope: Optional[_Scope] = self
        while scope is not None:
            if name in scope.local and not (scope.is_class and scope is not self):
                if scope.parent is None and name in imports:
                    return ("dotted", imports[name])
                return ("var", scope.qualified, name)
            scope = scope.parent
        if name in imports:
            return ("dotted", imports[name])
        if name in _BUILTINS:
            return ("dotted", f"builtins.{name}")
        return ("var", module, name)  # a star import, or a name set where the flow does not look


def _bound_names(body: list[ast.stmt], params: tuple[str, ...] = ()) -> set[str]:
    """Names a function body (or module) binds, not looking into nested scopes. Only statements
    and their targets are read (a walk of every expression took most of the summary's time); a
    name bound by `:=` becomes local where the summary meets it (`_Builder._expr`)."""
    names = set(params)
    declared_elsewhere: set[str] = set()
    for node in _statements(body, nested=False):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared_elsewhere.update(node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler):
            if node.name:
                names.add(node.name)
        elif isinstance(node, ast.match_case):
            names.update(_pattern_names(node.pattern))
        else:
            for target in _targets(node):
                names.update(_stored_names(target))
    return names - declared_elsewhere


def _statements(body: list, nested: bool) -> Iterator[ast.AST]:
    """Every statement of `body`, its except handlers and match cases, depth first; `nested`: the
    bodies of nested functions and classes too."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not nested:
            continue
        for part in ("cases", "finalbody", "handlers", "orelse", "body"):  # pushed reversed: popped in order
            inner = getattr(node, part, None)
            if isinstance(inner, list):
                stack.extend(reversed(inner))


def _targets(node: ast.AST) -> list:
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
        return [node.target]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    if isinstance(node, ast.Delete):
        return node.targets
    return []


def _stored_names(target: ast.expr) -> Iterator[str]:
    """`a`, `(a, *b)`, `[a, (b, c)]`: the names an assignment target binds (not `x.a`, `x[i]`)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _stored_names(element)
    elif isinstance(target, ast.Starred):
        yield from _stored_names(target.value)


def _pattern_names(pattern: ast.AST) -> Iterator[str]:
    for node in ast.walk(pattern):
        name = getattr(node, "name", None) if isinstance(node, (ast.MatchAs, ast.MatchStar)) else \
            getattr(node, "rest", None) if isinstance(node, ast.MatchMapping) else None
        if name:
            yield name


class _Builder:
    def __init__(self, module: str, is_package: bool) -> None:
        self.name, self.is_package = module, is_package
        # The module's imported names as its functions read them (its last imports; one a function
        # imports names its own variable), and as the module's own code reads them at the statement
        # being summarised (`imports`: a name imported twice there is the import above the read)
        self._final: dict[str, str] = {}
        self.imports: dict[str, str] = {}
        self._twice: frozenset[str] = frozenset()
        self.functions: dict[str, Function] = {}
        self.classes: dict[str, Class] = {}
        self.assigns: list[tuple[Expr, Expr]] = []
        self.returns: list[tuple[str, Expr]] = []
        self.calls: list[Call] = []
        self._lambdas = 0
        self.stars: list[str] = []

    def module(self, tree: ast.Module) -> None:
        # Imports anywhere, functions' too (`global pl; from jax.experimental import pallas as pl`), but
        # the module's own import of a name outranks a function's (`import numpy as jnp` in a reference).
        own = {id(node) for node in _statements(tree.body, nested=False) if isinstance(node, (ast.Import, ast.ImportFrom))}
        nested: dict[str, str] = {}
        first: dict[str, str] = {}
        twice: set[str] = set()
        for node in _statements(tree.body, nested=True):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for local, dotted in self._imported(node):
                    if local == "*":
                        self.stars.append(dotted)
                    elif id(node) not in own:
                        nested[local] = dotted
                    else:
                        twice.update([local] if local in self._final else [])
                        first.setdefault(local, dotted)
                        self._final[local] = dotted
        self._final = {**nested, **self._final}
        self._twice = frozenset(twice)
        self.imports = {**self._final, **{name: first[name] for name in twice}}
        scope = _Scope(self.name, None, _bound_names(tree.body))
        self._body(tree.body, scope)

    # -- statements --

    def _body(self, body: list[ast.stmt], scope: _Scope) -> None:
        for statement in body:
            self._statement(statement, scope)

    def _statement(self, node: ast.stmt, scope: _Scope) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._define(node, scope)
        elif isinstance(node, ast.ClassDef):
            self._class(node, scope)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            value = node.value
            if value is None:
                return
            expr = self._expr(value, scope)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                self._assign(target, expr, scope)
            if isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.BitOr)) and expr[0] != "lit":
                # `KERNELS += [body]`, `TABLE |= {...}`: the container itself grows (another module's
                # name for it sees that too), as if each element were stored at a key not known
                self.assigns.append((("item", self._expr(node.target, scope), None), ("item", expr, None)))
        elif isinstance(node, ast.Return) and node.value is not None:
            self.returns.append((scope.qualified, self._expr(node.value, scope)))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._assign(node.target, ("item", self._expr(node.iter, scope), None), scope)
            self._body(node.body, scope)
            self._body(node.orelse, scope)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self._expr(item.context_expr, scope)
                if item.optional_vars is not None:
                    self._assign(item.optional_vars, ("unknown", "a with statement's value"), scope)
            self._body(node.body, scope)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):  # what other modules read as this one's names
            # (each statement binds what it imports: `__init__` importing a name from two submodules, one
            # of which imports it back from the package, holds the first's, not nothing)
            for local, dotted in self._imported(node):
                if local != "*":
                    self.assigns.append((("var", scope.qualified, local), ("dotted", dotted)))
                if local in self._twice and scope.parent is None:
                    self.imports[local] = dotted
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    self._statement(child, scope)
                elif isinstance(child, ast.expr):
                    self._expr(child, scope)
                elif isinstance(child, ast.ExceptHandler):
                    self._body(child.body, scope)
                elif isinstance(child, ast.match_case):
                    self._body(child.body, scope)

    def _imported(self, node: "ast.Import | ast.ImportFrom") -> list[tuple[str, str]]:
        """(the local name, what it names) for each name an import binds; `*` for a star import's module."""
        if isinstance(node, ast.Import):
            return [(alias.asname, alias.name) if alias.asname else (alias.name.split(".")[0],) * 2 for alias in node.names]
        base = _absolute(self.name, self.is_package, node.level, node.module)
        if base is None:
            return []
        return [("*", base) if alias.name == "*" else (alias.asname or alias.name, f"{base}.{alias.name}")
                for alias in node.names]

    def _assign(self, target: ast.expr, value: Expr, scope: _Scope) -> None:
        if isinstance(target, ast.Name):
            self.assigns.append((scope.lookup(target.id, {}, self.name), value))
        elif isinstance(target, ast.Attribute):
            self.assigns.append((("attr", self._expr(target.value, scope), target.attr), value))
        elif isinstance(target, ast.Subscript):
            self.assigns.append((("item", self._expr(target.value, scope), _key(target.slice)), value))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for position, element in enumerate(target.elts):
                if isinstance(element, ast.Starred):
                    self._assign(element.value, ("unknown", "a starred assignment"), scope)
                else:
                    self._assign(element, ("item", value, position), scope)

    def _define(self, node: "ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda", scope: _Scope,
                owner: Optional[str] = None) -> str:
        if isinstance(node, ast.Lambda):
            self._lambdas += 1
            qualified = f"{scope.qualified}.<lambda{self._lambdas}>"
        else:
            qualified = f"{scope.qualified}.{node.name}" if scope.parent is None or scope.is_class \
                else f"{scope.qualified}.<locals>.{node.name}"
        arguments = node.args
        params: list[tuple[str, str, Optional[Expr]]] = []
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
        enclosing = scope if not scope.is_class else scope.parent
        assert enclosing is not None
        for arg, default in zip(positional, defaults):
            params.append((arg.arg, POSITIONAL, self._expr(default, enclosing) if default is not None else None))
        if arguments.vararg:
            params.append((arguments.vararg.arg, STAR, None))
        for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
            params.append((arg.arg, KEYWORD_ONLY, self._expr(default, enclosing) if default is not None else None))
        if arguments.kwarg:
            params.append((arguments.kwarg.arg, DOUBLE_STAR, None))
        self.functions[qualified] = Function(tuple(params), owner)
        names = tuple(name for name, _, _ in params)
        if isinstance(node, ast.Lambda):
            lambda_scope = _Scope(qualified, enclosing, set(names))
            self._later(lambda: self.returns.append((qualified, self._expr(node.body, lambda_scope))))
            return qualified
        inner = _Scope(qualified, enclosing, _bound_names(node.body, names))
        value: Expr = ("def", qualified)
        for decorator in reversed(node.decorator_list):
            value = self._call(decorator, (value,), scope, site=(decorator.lineno, decorator.col_offset), applied=True)
        if not scope.is_class:
            self.assigns.append((scope.lookup(node.name, {}, self.name), value))
        self._later(lambda: self._body(node.body, inner))
        return qualified

    def _later(self, summarise: Callable[[], object]) -> None:
        """A function's body: it runs once the module's code has, so its names are the module's last imports."""
        early, self.imports = self.imports, self._final
        try:
            summarise()
        finally:
            self.imports = early

    def _class(self, node: ast.ClassDef, scope: _Scope) -> None:
        qualified = f"{scope.qualified}.{node.name}" if scope.parent is None else f"{scope.qualified}.<locals>.{node.name}"
        bases = tuple(self._expr(base, scope) for base in node.bases)
        inner = _Scope(qualified, scope, _bound_names(node.body), is_class=True)
        attributes: list[tuple[str, Expr]] = []
        fields: list[tuple[str, Optional[Expr]]] = []
        for statement in node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                method = self._define(statement, inner, owner=qualified)
                value: Expr = ("def", method)
                for decorator in reversed(statement.decorator_list):
                    value = self._call(decorator, (value,), scope, (decorator.lineno, decorator.col_offset), applied=True)
                attributes.append((statement.name, value))
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                default = self._expr(statement.value, scope) if statement.value is not None else None
                fields.append((statement.target.id, default))
                if default is not None:
                    attributes.append((statement.target.id, default))
            elif isinstance(statement, ast.Assign):
                value = self._expr(statement.value, scope)
                for target in statement.targets:
                    if isinstance(target, ast.Name):
                        attributes.append((target.id, value))
            else:
                self._statement(statement, scope)
        for decorator in node.decorator_list:
            self._expr(decorator, scope)
        is_dataclass = any(_last_name(decorator) == "dataclass" for decorator in node.decorator_list) or \
            any(_last_name(base) == "NamedTuple" for base in node.bases)  # its fields bound as a dataclass's are
        self.classes[qualified] = Class(bases, tuple(attributes), tuple(fields) if is_dataclass else None)
        self.assigns.append((scope.lookup(node.name, {}, self.name), ("class", qualified)))

    # -- expressions --

    def _expr(self, node: ast.expr, scope: _Scope) -> Expr:
        if isinstance(node, ast.Constant):
            return ("lit", node.value) if isinstance(node.value, (str, int, bool, type(None))) else ("lit", None)
        if isinstance(node, ast.UnaryOp) and _key(node) is not None:  # `-1`, a position passed as an argument
            return ("lit", _key(node))
        if isinstance(node, ast.Name):
            return scope.lookup(node.id, self.imports, self.name)
        if isinstance(node, ast.Attribute):
            owner = self._expr(node.value, scope)
            named = owner[2] if owner[0] == "attr" else owner[1] if owner[0] == "dotted" else ""
            return ("attr", owner, node.attr) if named.rpartition(".")[2] != _HINT_MEMBERS else \
                ("attr", owner, node.attr, (node.lineno, node.col_offset))
        if isinstance(node, ast.Subscript):
            return ("item", self._expr(node.value, scope), _key(node.slice))
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):  # (a set's elements at positions no read asks for)
            return ("seq", (node.lineno, node.col_offset), tuple(
                ("unknown", "a starred element") if isinstance(element, ast.Starred) else self._expr(element, scope)
                for element in node.elts))
        if isinstance(node, ast.Dict):
            return ("map", (node.lineno, node.col_offset), tuple(
                (_literal_key(key) if key is not None else None, self._expr(value, scope))
                for key, value in zip(node.keys, node.values)))
        if isinstance(node, ast.Call):
            return self._call(node.func, node, scope, (node.lineno, node.col_offset))
        if isinstance(node, ast.IfExp):
            self._expr(node.test, scope)
            return ("either", (self._expr(node.body, scope), self._expr(node.orelse, scope)))
        if isinstance(node, ast.BoolOp):
            return ("either", tuple(self._expr(value, scope) for value in node.values))
        if isinstance(node, ast.NamedExpr):
            value = self._expr(node.value, scope)
            if not scope.is_class:  # `(m := f(x))` binds `m` where it is written
                scope.local.add(node.target.id)
            self._assign(node.target, value, scope)
            return value
        if isinstance(node, ast.Lambda):
            return ("def", self._define(node, scope))
        if isinstance(node, ast.Starred):
            return self._expr(node.value, scope)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self._comprehension(node, scope)
        for child in ast.iter_child_nodes(node):  # what it computes is not followed; the calls in it are
            if isinstance(child, ast.expr):
                self._expr(child, scope)
        return ("lit", None)

    def _comprehension(self, node: "ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp",
                       scope: _Scope) -> Expr:
        """`[partial(k, s=2) for k in KERNELS]`, `{n: k for n, k in zip(NAMES, KERNELS)}`: each variable
        takes what its iterable holds (read as the function's own, never the module's; in a class body,
        not followed); the result holds what the element may be."""
        for generator in node.generators:
            iterable = self._expr(generator.iter, scope)
            if not scope.is_class:
                scope.local.update(_stored_names(generator.target))
                self._assign(generator.target, ("item", iterable, None), scope)
            for condition in generator.ifs:
                self._expr(condition, scope)
        if isinstance(node, ast.DictComp):
            self._expr(node.key, scope)
        return ("comp", (node.lineno, node.col_offset), self._expr(node.value if isinstance(node, ast.DictComp)
                                                                   else node.elt, scope))

    def _call(self, func: ast.expr, node: "ast.Call | tuple", scope: _Scope, site: Site, applied: bool = False) -> Expr:
        """A call; `applied`: a decorator, `node` its one argument (already an Expr)."""
        callee = self._expr(func, scope)
        if applied:
            args: tuple[tuple[bool, Expr], ...] = ((False, node[0]),)  # type: ignore[index]
            keywords: tuple[tuple[Optional[str], Expr], ...] = ()
        else:
            assert isinstance(node, ast.Call)
            if isinstance(func, ast.Name) and func.id in _DYNAMIC_LOOKUPS and callee[0] == "dotted" and not (
                    func.id == "getattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)):
                for argument in node.args:
                    self._expr(argument, scope)
                return ("unknown", _DYNAMIC_LOOKUPS[func.id])
            args = tuple((isinstance(argument, ast.Starred), self._expr(argument, scope)) for argument in node.args)
            keywords = tuple((keyword.arg, self._expr(keyword.value, scope)) for keyword in node.keywords)
        self.calls.append(Call(site, scope.qualified if not scope.is_class else scope.parent.qualified,  # type: ignore[union-attr]
                               callee, args, keywords))
        return ("call", len(self.calls) - 1)


def _key(node: ast.expr) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, int):
        return -node.operand.value
    return None


def _literal_key(node: ast.expr) -> object:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)) else None


def _last_name(decorator: ast.expr) -> Optional[str]:
    """`dataclass` for `@dataclass`, `@dataclasses.dataclass(frozen=True)`, `@flax.struct.dataclass`."""
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
