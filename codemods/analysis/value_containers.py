"""Containers in a module's value flow (value_flow.py): tuple, list, set and dict displays,
comprehensions, subscripts, unpacking into targets, the builtins that make or read containers (`zip`,
`enumerate`, `dict`, `map`, `next`, ...) and their methods (`.items()`, `.append(f)`, `.pop(0)`): what
a container holds is a derived key of the graph (its elements, keys, values)."""

from __future__ import annotations

import ast
from typing import Optional, Union

from codemods.analysis.module import Binding
from codemods.analysis.value_calls import CallConstraints
from codemods.analysis.value_graph import (
    NOTHING, Class, Foreign, ForeignResult, Instance, Mapping, Sequence, Unknown, Value, ValueGraph, elements,
)

_BUILTIN_SEQUENCES = {"reversed", "sorted", "list", "tuple", "set", "frozenset", "iter"}
# The methods that move a list's elements to other positions.
_SHIFTING = frozenset({"pop", "remove", "reverse", "sort", "clear", "insert"})
CONTAINER_METHODS = {"values", "keys", "items", "get", "setdefault", "update", "copy", "append", "add", "extend",
                      *_SHIFTING}


class ContainerConstraints:
    """Containers, on `graph`: `target_bindings` holds each name's binding (a key), `calls` applies
    what a builtin like `map` calls, and `library_names` are the module names bound only to a library
    (what is read through them holds no value)."""

    def __init__(self, graph: ValueGraph, target_bindings: dict[ast.AST, Binding], calls: CallConstraints,
                 library_names: set[str]) -> None:
        self.graph = graph
        self._target_bindings = target_bindings
        self.calls = calls
        self._library_names = library_names

    def subscript(self, node: ast.Subscript) -> None:
        if node.ctx.__class__ is ast.Del:  # `del BODIES[0]`
            self.graph.watch(node.value,
                             lambda value: self.graph.shifted(value) if isinstance(value, Sequence) else None)
            return
        if node.ctx.__class__ is not ast.Load or of_a_library(node.value, self._library_names):
            return
        index = node.slice
        position = constant_index(index)

        def rule(value: Value) -> None:
            if isinstance(value, Sequence):
                if isinstance(index, ast.Slice):  # `BODIES[1:]`: the same elements, at positions not known
                    self.graph.add(node, Sequence(value.origin))
                elif position is not None and value.positions is not None and -len(value.positions) <= position \
                        < len(value.positions):
                    self.graph.at_position(value, position, node)
                else:
                    self.graph.flow(elements(value.origin), node)
            elif isinstance(value, Mapping):
                self.graph.flow(("values", value.origin), node)
            elif isinstance(value, (Foreign, ForeignResult, Unknown)):  # `BODIES[1]` of another module: BODIES
                self.graph.add(node, value)
        self.graph.watch(node.value, rule)

    def sequence(self, node: Union[ast.Tuple, ast.List, ast.Set]) -> None:
        if getattr(node, "ctx", ast.Load()).__class__ is not ast.Load:
            return
        starred = any(isinstance(element, ast.Starred) for element in node.elts)
        self.graph.add(node, Sequence(node, None if starred or isinstance(node, ast.Set) else tuple(node.elts)))
        for element in node.elts:
            if isinstance(element, ast.Starred):
                self.graph.flow(self.graph.iterated(element.value), elements(node))
            else:
                self.graph.flow(element, elements(node))

    def dict(self, node: ast.Dict) -> None:
        self.graph.add(node, Mapping(node))
        for key, value in zip(node.keys, node.values):
            if key is None:  # `{**other}`
                self.merge_mapping(value, node)
            else:
                self.graph.flow(key, ("keys", node))
                self.graph.flow(value, ("values", node))

    def merge_mapping(self, source: object, origin: object) -> None:
        def rule(value: Value) -> None:
            if isinstance(value, Mapping):
                self.graph.flow(("keys", value.origin), ("keys", origin))
                self.graph.flow(("values", value.origin), ("values", origin))
        self.graph.watch(source, rule)

    def comprehension(self, node: ast.AST) -> None:
        for generator in node.generators:  # type: ignore[attr-defined]
            self.unpack(generator.target, self.graph.iterated(generator.iter))
        if isinstance(node, ast.DictComp):
            self.graph.add(node, Mapping(node))
            self.graph.flow(node.key, ("keys", node))
            self.graph.flow(node.value, ("values", node))
        else:
            self.graph.add(node, Sequence(node))
            self.graph.flow(node.elt, elements(node))  # type: ignore[attr-defined]

    def unpack(self, target: ast.AST, source: object) -> None:
        """`target = <the values of source>`, for any target: a name, a tuple to unpack, `x[k]`, `obj.attr`."""
        if isinstance(target, ast.Name):
            binding = self._target_bindings.get(target)
            if binding is not None:
                self.graph.flow(source, binding)
        elif isinstance(target, (ast.Tuple, ast.List)):
            # `a, *rest = ...`: `rest` is a list of what the starred part takes.
            parts = [elements(("rest", element)) if isinstance(element, ast.Starred) else ("part", element)
                     for element in target.elts]
            for element, part in zip(target.elts, parts):
                if isinstance(element, ast.Starred):
                    self.graph.add(("part", element), Sequence(("rest", element)))
                    self.unpack(element.value, ("part", element))
                else:
                    self.unpack(element, part)
            starred = any(isinstance(element, ast.Starred) for element in target.elts)

            def rule(value: Value) -> None:
                if isinstance(value, Sequence) and value.positions is not None and not starred \
                        and len(value.positions) == len(parts):
                    for position, part in enumerate(parts):
                        self.graph.at_position(value, position, part)
                elif isinstance(value, Sequence):
                    for part in parts:
                        self.graph.flow(elements(value.origin), part)
                elif isinstance(value, Mapping):
                    for part in parts:
                        self.graph.flow(("keys", value.origin), part)
                elif isinstance(value, (Foreign, ForeignResult, Unknown)):
                    for part in parts:
                        self.graph.add(part, value)
            self.graph.watch(source, rule)
        elif isinstance(target, ast.Subscript):
            def store(value: Value) -> None:
                if isinstance(value, Sequence):
                    self.graph.flow(source, self.graph.stored(value.origin))
                elif isinstance(value, Mapping):
                    self.graph.flow(source, ("values", value.origin))
                    self.graph.flow(target.slice, ("keys", value.origin))
            self.graph.watch(target.value, store)
        elif isinstance(target, ast.Attribute):
            def member(value: Value) -> None:
                if isinstance(value, (Instance, Class)):
                    self.graph.flow(source, ("member", value.node, target.attr))
            self.graph.watch(target.value, member)


    def builtin(self, node: ast.Call, name: str) -> bool:
        args = node.args
        if name == "zip":
            self.graph.add(node, Sequence(node))
            self.graph.add(elements(node), Sequence(("zip", node), tuple(self.graph.iterated(a) for a in args)))
        elif name == "enumerate" and args:
            self.graph.add(node, Sequence(node))
            self.graph.add(elements(node), Sequence(("enumerate", node), (NOTHING, self.graph.iterated(args[0]))))
        elif name in _BUILTIN_SEQUENCES and args:
            self.graph.add(node, Sequence(node))
            self.graph.flow(self.graph.iterated(args[0]), elements(node))
        elif name == "dict":
            self.graph.add(node, Mapping(node))
            for keyword in node.keywords:
                if keyword.arg is None:
                    self.merge_mapping(keyword.value, node)
                else:
                    self.graph.flow(keyword.value, ("values", node))
            if args:
                self.merge_mapping(args[0], node)

                def pairs(value: Value) -> None:
                    if isinstance(value, Sequence) and value.positions and len(value.positions) == 2:
                        self.graph.flow(value.positions[0], ("keys", node))
                        self.graph.flow(value.positions[1], ("values", node))
                self.graph.watch(self.graph.iterated(args[0]), pairs)
        elif name == "map" and len(args) >= 2:
            self.graph.add(node, Sequence(node))
            self.calls.call_site(args[0], [self.graph.iterated(a) for a in args[1:]], {}, elements(node), node)
        elif name in ("staticmethod", "classmethod") and args:  # a function still (through the class)
            self.graph.flow(args[0], node)
        elif name == "next" and args:
            self.graph.flow(self.graph.iterated(args[0]), node)
        elif name in ("getattr", "eval", "vars", "globals", "locals", "__import__"):
            self.graph.add(node, Unknown(f"`{name}(...)`", node))
        else:
            return False
        return True

    def container_method(self, node: ast.Call, func: ast.Attribute) -> None:
        method, args = func.attr, node.args

        def rule(value: Value) -> None:
            if isinstance(value, Mapping):
                origin = value.origin
                if method == "values":
                    self.graph.add(node, Sequence(("values", node)))
                    self.graph.flow(("values", origin), elements(("values", node)))
                elif method == "keys":
                    self.graph.add(node, Sequence(("keys", node)))
                    self.graph.flow(("keys", origin), elements(("keys", node)))
                elif method == "items":
                    self.graph.add(node, Sequence(("items", node)))
                    self.graph.add(elements(("items", node)),
                              Sequence(("item", origin), (("keys", origin), ("values", origin))))
                elif method in ("get", "pop", "setdefault"):
                    self.graph.flow(("values", origin), node)
                    if len(args) > 1:
                        self.graph.flow(args[1], node if method == "get" else ("values", origin))
                elif method == "update":
                    for arg in args:
                        self.merge_mapping(arg, origin)
                    for keyword in node.keywords:
                        self.graph.flow(keyword.value, ("values", origin))
                elif method == "copy":
                    self.graph.add(node, value)
            elif isinstance(value, (Foreign, ForeignResult)):  # `TABLE.values()` of another module: TABLE
                if method in ("get", "pop"):
                    self.graph.add(node, value)
                elif method in ("values", "keys", "items"):
                    self.graph.add(node, Sequence(("foreign", node)))
                    element = value if method != "items" else Sequence(("item", node), (("held", node), ("held", node)))
                    self.graph.add(("held", node), value)
                    self.graph.add(elements(("foreign", node)), element)
            elif isinstance(value, Sequence):
                if method in ("append", "add") and args:
                    self.graph.flow(args[-1], self.graph.stored(value.origin))
                elif method == "insert" and len(args) == 2:
                    self.graph.flow(args[1], self.graph.stored(value.origin))
                elif method == "extend" and args:
                    self.graph.flow(self.graph.iterated(args[0]), self.graph.stored(value.origin))
                elif method == "pop":
                    self.graph.flow(elements(value.origin), node)
                elif method == "copy":
                    self.graph.add(node, value)
                if method in _SHIFTING:
                    self.graph.shifted(value)
        self.graph.watch(func.value, rule)



def constant_index(index: ast.expr) -> Optional[int]:
    """The integer an index is written as: `1`, and `-1` too (a `UnaryOp`, not a constant, in the
    tree: read as unknown, `BODIES[-1]` took every element for the body). None for anything else."""
    sign = 1
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, (ast.USub, ast.UAdd)):
        sign, index = (-1 if isinstance(index.op, ast.USub) else 1), index.operand
    if isinstance(index, ast.Constant) and isinstance(index.value, int) and not isinstance(index.value, bool):
        return sign * index.value
    return None




def of_a_library(node: ast.AST, library_names: set[str]) -> bool:
    """`jnp`, `lax.Precision`, `pl.BlockSpec`: read through a module name bound only to a library
    (a launcher read so is matched by name, apart)."""
    while node.__class__ is ast.Attribute:
        node = node.value  # type: ignore[attr-defined]
    return node.__class__ is ast.Name and node.id in library_names  # type: ignore[attr-defined]
