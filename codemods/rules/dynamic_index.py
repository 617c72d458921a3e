"""JAX006: a value loaded from a ref and indexed at a traced position, in a Mosaic TPU kernel.

Mosaic TPU has no lowering for `dynamic_slice` of a value (capabilities.DYNAMIC_SLICE_OF_VALUES):
`v = x_ref[...]` then `v[i]` with a traced `i`, or `lax.dynamic_slice(v, starts, sizes)` (and
`dynamic_slice_in_dim`, `dynamic_index_in_dim`), raise "Unimplemented primitive in Pallas TPU
lowering for tc: dynamic_slice", while indexing the ref itself (`x_ref[i]`,
`x_ref[pl.ds(start, size)]`) lowers. Where the value is a whole load of a ref and nothing can write
the ref between the load and the index, the index moves onto the ref; otherwise a [manual] finding
says why.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator, Optional, Union

from codemods.analysis.kernel_scope import MOSAIC_TPU, passed_for
from codemods.analysis.module import FUNCTIONS, MAX_ALIAS_DEPTH, Binding, FunctionNode
from codemods.analysis.names import display, find_arg, has_double_star, has_star, is_none, one_line
from codemods.base import JaxTransform
from codemods.capabilities import UNIMPLEMENTED, lowers_dynamic_slice_of_values
from codemods.engine.diagnostics import Applicability, Kind
from codemods.engine.fixes import FixPlan
from codemods.engine.rule import ParsedFile, Rule
from codemods.settings import Scope

PALLAS = "jax.experimental.pallas"
PROGRAM_ID = f"{PALLAS}.program_id"
LOAD = f"{PALLAS}.load"  # pl.load(ref, idx), before jax 0.9
TPU_LOAD = f"{PALLAS}.tpu.load"  # pltpu.load(ref, mask=None)
DYNAMIC_SLICE, SLICE_IN_DIM, INDEX_IN_DIM = (
    "jax.lax.dynamic_slice", "jax.lax.dynamic_slice_in_dim", "jax.lax.dynamic_index_in_dim")
DYNAMIC_SLICES = frozenset({DYNAMIC_SLICE, SLICE_IN_DIM, INDEX_IN_DIM})
# Functions that call the functions handed to them with traced arguments (a loop's index, a carry).
TRACING = frozenset({"jax.lax.fori_loop", "jax.lax.while_loop", "jax.lax.scan", "jax.lax.map", "jax.lax.cond",
                     "jax.lax.switch", f"{PALLAS}.loop"})
RUN_WHERE_DEFINED = frozenset({f"{PALLAS}.when", f"{PALLAS}.loop"})  # decorators that run the body at its def
STATIC_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "size"})  # known when the kernel is traced
ERROR = UNIMPLEMENTED[MOSAIC_TPU].format("dynamic_slice")
# How an index on the ref may differ from the value's where it is out of bounds: said in every fix.
BOUNDS = ("unsafe: the same elements wherever the index is in bounds, but out of bounds jnp wraps a negative index and "
          "lax.dynamic_slice clamps the start, while an index on the ref is not checked (a negative one faulted a TPU "
          "v5e)")


@dataclass(frozen=True)
class Load:
    """`x_ref[...]`, `x_ref[:]`, `pltpu.load(x_ref)` or `pl.load(x_ref, ...)`: the whole of a ref, read."""

    ref: ast.Name
    node: ast.expr
    binding: Binding  # the ref's


@dataclass(frozen=True)
class Loaded:
    """An indexed value that is a whole load, directly or through a name bound once to one."""

    load: Load
    statement: ast.stmt  # the statement that loads


@dataclass(frozen=True)
class NotALoad:
    """An indexed value that is an array, but not one whole load this rule can move the index onto."""

    why: str


Indexed = Union[Loaded, NotALoad, None]  # None: not known to be an array (a ref, a Python object)


class DynamicIndex(JaxTransform):
    def plan(self) -> None:
        if lowers_dynamic_slice_of_values(MOSAIC_TPU, self.settings.jax_version):
            return
        self._traced_parameters = self._find_traced_parameters()
        for call in self.module.calls:
            name = self.module.matching_name(call.func, DYNAMIC_SLICES)
            if name is not None and self._in_mosaic_tpu_kernel(call, call):
                self._plan_call(call, name)
            elif name is not None:
                self._maybe_in_kernel(call, call, f"{display(name)}(...)")
        for node in self.module.parent:  # every node the module's index walked (an ast.walk here took most of the rule)
            if node.__class__ is ast.Subscript and isinstance(node.ctx, ast.Load):
                anchor = _anchor(node.value)
                if anchor is not None and self._in_mosaic_tpu_kernel(node, anchor):
                    self._plan_subscript(node)
                elif anchor is not None and _looks_loaded(self.module, node.value) and not _constant_index(node.slice) \
                        and self._traced(node.slice):
                    self._maybe_in_kernel(node, anchor, f"`{one_line(self.module.segment(node))}`")

    def _maybe_in_kernel(self, node: ast.AST, anchor: ast.AST, written: str) -> None:
        """Outside every known kernel, in a function a launch this analysis cannot resolve may run: a note."""
        note = self.unresolved_launch(anchor, frozenset({MOSAIC_TPU}))  # type: ignore[arg-type]
        if note is not None:
            self.report(node, Kind.MANUAL, f"{written} {note}; if it does in a Mosaic TPU kernel, it fails there "
                        f"(\"{ERROR}\"): index the ref itself")

    # -- where --

    def _in_mosaic_tpu_kernel(self, node: ast.AST, anchor: ast.AST) -> bool:
        if self.settings.scope is Scope.ALL or self._proven(node):
            return True
        return MOSAIC_TPU in self.kernels.backends_of(anchor)

    def _proven(self, node: ast.AST) -> bool:
        lines = self.analysis.proven.get(self.rule.code, frozenset())
        return any(node.lineno <= line <= node.end_lineno for line in lines)

    # -- the two spellings --

    def _plan_subscript(self, node: ast.Subscript) -> None:
        index = node.slice
        if isinstance(index, ast.Slice) or _constant_index(index):
            return
        if not (self._traced(index) or self._proven(node)):
            return
        indexed = self._indexed(node.value)
        if indexed is None and not (self._proven(node) and not _names_a_parameter(self.module, node.value)):
            return
        written = f"`{one_line(self.module.segment(node))}`"
        if not isinstance(indexed, Loaded):
            self._manual(node, written, indexed)
            return
        if any(self._lane_start(part) and self._traced(part) for part in _maybe_last(index)):
            self._manual(node, written, NotALoad(f"a traced index after the first dimension may be in the last, and "
                                                 f"{_LANE}"))
            return
        after_value = self.module.text[self.module.span(node.value)[1]:self.module.span(node)[1]]
        brackets = after_value[after_value.index("["):]  # past the parenthesis of `(v)[i]`
        self._move(node, written, indexed, f"{indexed.load.ref.id}{brackets}", needs_pallas=False)

    def _plan_call(self, call: ast.Call, name: str) -> None:
        written = f"{display(name)}(...)"
        operand = find_arg(call, 0, ("operand",))
        if operand is None or has_star(call) or has_double_star(call):
            self.report(call, Kind.MANUAL, f"{written}: {_wall()}; its arguments are not written out, so the index "
                        "cannot be moved onto a ref: index the ref with pl.ds(start, size) instead")
            return
        indexed = self._indexed(operand.value if isinstance(operand, ast.keyword) else operand)
        if not isinstance(indexed, Loaded):
            self._manual(call, written, indexed or NotALoad("its operand is not a whole load of a ref"))
            return
        index = self._ref_index(call, name)
        if isinstance(index, NotALoad):
            self._manual(call, written, index)
            return
        self._move(call, written, indexed, f"{indexed.load.ref.id}[{index}]", needs_pallas=True)

    def _ref_index(self, call: ast.Call, name: str) -> Union[str, NotALoad]:
        """What indexes the ref in place of the call: `pl.ds(start, size)` per sliced dimension."""
        segment = self.module.segment

        def argument(position: int, keyword: str) -> Optional[ast.expr]:
            found = find_arg(call, position, (keyword,))
            return found.value if isinstance(found, ast.keyword) else found

        if name == DYNAMIC_SLICE:
            starts, sizes = argument(1, "start_indices"), argument(2, "slice_sizes")
            rank = next((len(n.elts) for n in (starts, sizes) if isinstance(n, (ast.Tuple, ast.List))), None)
            if rank is None or starts is None or sizes is None or not _sequence_of(starts, rank) \
                    or not _sequence_of(sizes, rank):
                return NotALoad("its starts and sizes are not written out as tuples of one length")
            if self._lane_start(starts.elts[-1] if isinstance(starts, (ast.Tuple, ast.List)) else None):
                return NotALoad(_LANE)
            return ", ".join(f"{{pl}}.ds({_element(starts, j, segment)}, {_element(sizes, j, segment)})"
                             for j in range(rank))
        start = argument(1, "start_index" if name == SLICE_IN_DIM else "index")
        axis_node = argument(3 if name == SLICE_IN_DIM else 2, "axis")
        axis = 0 if axis_node is None else _int_constant(axis_node)
        if start is None or axis is None:
            return NotALoad("its axis is not a number written in the call")
        if (axis == -1 or axis > 0) and self._lane_start(start):
            return NotALoad(_LANE if axis == -1 else f"axis={axis} may be the last dimension, and {_LANE}")
        if name == SLICE_IN_DIM:
            size = argument(2, "slice_size")
            if size is None:
                return NotALoad("its size is not written in the call")
            taken = f"{{pl}}.ds({segment(start)}, {segment(size)})"
        else:
            keepdims = argument(3, "keepdims")
            keep = True if keepdims is None else _bool_constant(keepdims)
            if keep is None:
                return NotALoad("its keepdims is not True or False written in the call")
            taken = f"{{pl}}.ds({segment(start)}, 1)" if keep else segment(start)
        if axis >= 0:
            return ", ".join([":"] * axis + [taken])
        return ", ".join(["...", taken] + [":"] * (-axis - 1))

    def _lane_start(self, start: Optional[ast.expr]) -> bool:
        """A start the compiler cannot prove a multiple of 128: anything but a number or
        `pl.multiple_of(x, 128 * k)` (None: one this analysis cannot see)."""
        if start is None:
            return True
        if _int_constant(start) is not None:
            return False
        if isinstance(start, ast.Call) and self.module.matching_name(start.func, {f"{PALLAS}.multiple_of"}) \
                and len(start.args) == 2:
            multiple = _int_constant(start.args[1])
            return multiple is None or multiple % 128 != 0
        return True

    # -- the fix, or why there is none --

    def _move(self, node: ast.expr, written: str, indexed: Loaded, text: str, needs_pallas: bool) -> None:
        load = indexed.load
        blocked = self._written_between(indexed, node) or self._shadowed(load, node)
        if blocked is not None:
            self._manual(node, written, NotALoad(blocked))
            return
        fix = FixPlan()
        if needs_pallas:
            pallas = self._pallas_name(fix)
            if pallas is None:
                self._manual(node, written, NotALoad("the module binds `pl` to something else than "
                                                     "jax.experimental.pallas, which pl.ds needs"))
                return
            text = text.replace("{pl}", pallas)
            self.forget_imports(fix, node.func)  # type: ignore[attr-defined]
        self.replace(fix, node, text)
        line = self.module.position(indexed.statement)[0]
        loaded = "" if indexed.statement is self._statement(node) else f" (loaded on line {line})"
        self.report(node, Kind.FIXED, f"{written}: {_wall()}; now `{one_line(text)}`, indexing the ref `{load.ref.id}` "
                    f"itself{loaded}, which nothing writes in between; {BOUNDS}", fix, Applicability.UNSAFE)

    def _manual(self, node: ast.AST, written: str, indexed: Indexed) -> None:
        why = "this traceback's index is on a value this analysis cannot follow" if indexed is None else indexed.why
        self.report(node, Kind.MANUAL, f"{written}: {_wall()}; not rewritten: {why}; index the ref itself "
                    "(`x_ref[i]`, `x_ref[pl.ds(start, size)]`) where nothing writes it after the load")

    def _pallas_name(self, fix: FixPlan) -> Optional[str]:
        """The module's name for jax.experimental.pallas; `pl`, imported, where it has none and `pl` is free."""
        for binding in self.module.imports:
            if binding.scope is self.module.module_scope and binding.imported == PALLAS:
                return binding.name
        if self.module.module_scope.lookup("pl"):
            return None
        fix.imports_to_add.append(("jax.experimental", "pallas", "pl"))
        return "pl"

    def _shadowed(self, load: Load, node: ast.expr) -> Optional[str]:
        """Why the ref's name does not mean the ref where the index is (None: it does)."""
        anchor = _anchor(node.func if isinstance(node, ast.Call) else node.value)  # type: ignore[attr-defined]
        scope = self.module.scope_of.get(anchor) if anchor is not None else None
        if scope is None or scope.lookup(load.ref.id) != [load.binding]:
            return f"`{load.ref.id}` names something else where the index is"
        return None

    # -- what is indexed --

    def _indexed(self, value: ast.expr, depth: int = MAX_ALIAS_DEPTH) -> Indexed:
        """Whether `value` is a whole load of a ref (directly, or a name bound once to one), another
        array, or not known to be an array (also past `depth` names and operations: a cycle)."""
        if depth < 0:
            return None
        load = self._whole_load(value)
        if isinstance(load, Load):
            return Loaded(load, self._statement(value))
        if isinstance(load, NotALoad):
            return load
        if isinstance(value, ast.Name):
            bindings = self.module.bindings(value)
            if not bindings or any(binding.is_parameter for binding in bindings):
                return None
            found = [None if binding.value is None else self._indexed(binding.value, depth - 1) for binding in bindings]
            if len(bindings) > 1:
                lines = ", ".join(str(line) for line in sorted(self.module.position(b.node)[0] for b in bindings))
                return NotALoad(f"`{value.id}` is bound on lines {lines}, not once") if any(found) else None
            if isinstance(found[0], Loaded) and self.module.parent.get(found[0].load.node) is not found[0].statement:
                return NotALoad(f"`{value.id}` is bound to the load together with other values")
            return found[0]
        if isinstance(value, ast.Call):
            callee = self.module.qualified_names(value.func)
            if any(name.startswith(("jax.numpy.", "jax.lax.", "jax.nn.")) for name in callee):
                return NotALoad(f"it is computed by {display(sorted(callee)[0])}(...), not loaded whole from a ref")
            if isinstance(value.func, ast.Attribute) and self._indexed(value.func.value, depth - 1) is not None:
                return NotALoad(f"it is `.{value.func.attr}(...)` of a loaded value, not the load itself")
            return None
        if isinstance(value, ast.Subscript) and self._indexed(value.value, depth - 1) is not None:
            return NotALoad("it is a part of a loaded value (index the ref once: `x_ref[i, j]`)")
        if isinstance(value, (ast.BinOp, ast.UnaryOp)):
            operands = [value.left, value.right] if isinstance(value, ast.BinOp) else [value.operand]
            if any(self._indexed(operand, depth - 1) is not None for operand in operands):
                return NotALoad("it is computed from a loaded value, not loaded whole from a ref")
        return None

    def _whole_load(self, value: ast.expr) -> Union[Load, NotALoad, None]:
        """`x_ref[...]`, `x_ref[:]`, `x_ref[:, :]`, `pltpu.load(x_ref)` or `pl.load(x_ref, ...)` of a ref
        parameter; a part of one (`x_ref[0]`) or a masked load is another array."""
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
            ref, index = value.value, value.slice
        elif isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Name) \
                and not has_star(value) and not has_double_star(value) \
                and self.module.matching_name(value.func, {LOAD, TPU_LOAD}) is not None:
            ref = value.args[0]
            if len(value.args) == 2 and not value.keywords:  # pl.load(x_ref, idx)
                index = value.args[1]
            elif len(value.args) == 1 and all(is_none(keyword.value) for keyword in value.keywords):
                index = ast.Constant(Ellipsis)  # pltpu.load(x_ref): the whole ref
            else:
                return NotALoad(f"`{one_line(self.module.segment(value))}` is a masked load") \
                    if self._ref_binding(ref) is not None else None
        else:
            return None
        binding = self._ref_binding(ref)
        if binding is None:
            return NotALoad(f"`{ref.id}` is not a parameter of the kernel bound once, so other names may write "
                            "it") if _whole(index) and self.module.bindings(ref) else None
        if not _whole(index):
            return NotALoad(f"it is a part of `{ref.id}` (`{one_line(self.module.segment(value))}`), not its whole")
        return Load(ref, value, binding)

    def _ref_binding(self, name: ast.Name) -> Optional[Binding]:
        """The binding of a name that holds a ref: a kernel function's positional parameter, bound once."""
        bindings = self.module.bindings(name)
        if len(bindings) != 1 or not bindings[0].is_parameter:
            return None
        parameter = bindings[0].node
        arguments = self.module.parent.get(parameter)
        if not isinstance(arguments, ast.arguments) or parameter not in (*arguments.posonlyargs, *arguments.args):
            return None
        function = self.module.parent.get(arguments)
        anywhere = self.settings.scope is Scope.ALL or bool(self.analysis.proven.get(self.rule.code))
        return bindings[0] if anywhere or function in self.kernels.kernels else None

    # -- what writes the ref --

    def _written_between(self, indexed: Loaded, node: ast.expr) -> Optional[str]:
        """Why something may write the ref between its load and the index (None: nothing can). Any
        mention of the ref but a read (`x_ref[...]`, `x_ref.shape`, `pltpu.load(x_ref)`, `x_ref is None`,
        `jnp.zeros_like(x_ref)`) may write it: a store, a call it is passed to, an async copy, another name."""
        load, loading = indexed.load, indexed.statement
        enclosing = self.module.enclosing
        loader = enclosing.get(load.ref)
        indexer = enclosing.get(_anchor(node.func if isinstance(node, ast.Call) else node.value))  # type: ignore[attr-defined]
        statement = self._statement(node)
        for mention in load.binding.references:
            if self._reads(mention):
                continue
            line = self.module.position(mention)[0]
            call = self._argument_of(mention)
            if call is not None and _asynchronous(self.module, call):
                return f"`{load.ref.id}` is passed to `{one_line(self.module.segment(call.func))}` on line {line}: " \
                       "an async copy may land at any time"
            if call is not None and not isinstance(self.module.parent.get(call), ast.Expr):
                call = None  # its result is kept: it may hand the ref on (a view, a copy descriptor)
            if call is None and not _stored(self.module, mention):
                return f"`{load.ref.id}` is given another name or kept on line {line}, and may be written through it"
            what = f"`{load.ref.id}` is " + ("stored to" if call is None else
                                             f"passed to `{one_line(self.module.segment(call.func))}`") + f" on line {line}"
            where, writing = enclosing.get(mention), self._statement(mention)
            while where is not loader and self._runs_where_defined(where):
                writing, where = where, self.module.function_parent.get(where)  # type: ignore[assignment]
            if where is not loader:
                if where is not None and self._encloses(where, loader):
                    continue  # code around the loading function: it does not run while that function does
                return f"{what}, in {_function_name(where)}, which may run between the load and the index"
            if _ends_before(writing, loading) and writing is not loading:
                continue
            if indexer is not loader:
                return f"{what}, after the load, and the index runs in {_function_name(indexer)}, called later"
            if writing is statement and self._after(mention, node, statement):
                continue
            if _starts_after(writing, statement) and not self._loop_around(writing, statement, loading, loader):
                continue
            loop = self._loop_around(writing, statement, loading, loader)
            return f"{what}, between the load and the index" + (
                f" (the loop on line {loop.lineno} runs it before the index again)" if loop is not None else "")
        return None

    def _runs_where_defined(self, function: Optional[FunctionNode]) -> bool:
        """`@pl.when(c) def init(): ...`, `@pl.loop(0, n) def body(i): ...`: the body runs at its `def`."""
        return isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            isinstance(decorator, ast.Call) and self.module.matching_name(decorator.func, RUN_WHERE_DEFINED)
            for decorator in function.decorator_list)

    def _reads(self, mention: ast.Name) -> bool:
        parent = self.module.parent.get(mention)
        if isinstance(parent, ast.Subscript) and parent.value is mention:
            return isinstance(parent.ctx, ast.Load)
        if isinstance(parent, ast.Attribute):
            return parent.attr in STATIC_ATTRIBUTES
        if isinstance(parent, ast.Compare) or isinstance(parent, (ast.If, ast.IfExp, ast.While)) \
                and parent.test is mention:
            return True  # `x_ref is not None`, `if x_ref:` (not `x_ref or y`: that is the ref again)
        call = self._argument_of(mention)
        if call is None:
            return False
        if _is_len(self.module, call) or call.args and call.args[0] is mention \
                and self.module.matching_name(call.func, {LOAD, TPU_LOAD}) is not None:
            return True
        # jnp and lax functions compute from what they are given (`jnp.zeros_like(x_ref)`); lax's loops and
        # branches run functions, which may write.
        return any(name.startswith(("jax.numpy.", "jax.lax.")) and name not in TRACING
                   for name in self.module.qualified_names(call.func))

    def _argument_of(self, mention: ast.Name) -> Optional[ast.Call]:
        """The call `mention` is passed to (`helper(x_ref)`, `pltpu.sync_copy(src, x_ref)`): where the
        call is a statement of its own, it writes the ref, if at all, while it runs."""
        parent = self.module.parent.get(mention)
        call = self.module.parent.get(parent) if isinstance(parent, ast.keyword) else parent
        return call if isinstance(call, ast.Call) and call.func is not mention else None

    def _after(self, mention: ast.Name, node: ast.expr, statement: ast.stmt) -> bool:
        """Whether `mention`, in the index's own statement, writes after the index is read: the
        statement's store target, or an argument of a call whose arguments hold the index."""
        if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and _within(node, statement.value) \
                and not _within(mention, statement.value):  # type: ignore[arg-type]
            return True
        call = self.module.parent.get(mention)
        return isinstance(call, ast.Call) and any(_within(node, argument) for argument in (*call.args, *call.keywords))

    def _loop_around(self, writing: ast.stmt, index: ast.stmt, loading: ast.stmt,
                     function: Optional[FunctionNode]) -> Optional[ast.stmt]:
        """A loop of `function` that runs `writing` and then `index` again without `loading`."""
        node = self.module.parent.get(index)
        while node is not None and node is not function:
            if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and _within(writing, node) \
                    and not _within(loading, node):
                return node
            node = self.module.parent.get(node)
        return None

    def _encloses(self, outer: FunctionNode, inner: Optional[FunctionNode]) -> bool:
        while inner is not None:
            inner = self.module.function_parent.get(inner)
            if inner is outer:
                return True
        return False

    def _statement(self, node: ast.AST) -> ast.stmt:
        while not isinstance(node, ast.stmt):
            node = self.module.parent[node]
        return node

    # -- what is traced --

    def _find_traced_parameters(self) -> set[ast.arg]:
        """Parameters that hold traced values: a kernel body's refs (reading one gives a traced value,
        `idx_ref[0]`) and the parameters of functions a loop or branch of jax calls (`fori_loop`'s index)."""
        found: set[ast.arg] = set()
        kernels = self.kernels
        for kernel in kernels.direct:
            bound = {keyword.arg for partial in kernels.partial_bindings.get(kernel, ()) for keyword in partial.keywords}
            found.update(arg for arg in (*kernel.args.posonlyargs, *kernel.args.args) if arg.arg not in bound)
        for call in self.module.calls:
            if self.module.matching_name(call.func, TRACING) is None:
                continue
            for function in self._functions_in(call):
                found.update(_parameters(function))
            decorated = self.module.parent.get(call)
            if isinstance(decorated, (ast.FunctionDef, ast.AsyncFunctionDef)) and call in decorated.decorator_list:
                found.update(_parameters(decorated))  # @pl.loop(0, n) def body(i): ...
        return found

    def _functions_in(self, call: ast.Call) -> Iterator[FunctionNode]:
        for argument in (*call.args, *(keyword.value for keyword in call.keywords)):
            if isinstance(argument, ast.Lambda):
                yield argument
            elif isinstance(argument, ast.Name):
                yield from (binding.node for binding in self.module.bindings(argument)
                            if isinstance(binding.node, (ast.FunctionDef, ast.AsyncFunctionDef)))

    def _traced(self, expression: ast.expr) -> bool:
        """Whether `expression` may be a traced value: it reads `pl.program_id`, a loop's index, a ref,
        or a name bound to one of these. Its shape, dtype and `len()` are static; anything the analysis
        cannot follow is taken for static (the traceback `explain` reads proves the rest)."""
        pending: list[ast.AST] = [expression]
        seen: set[int] = set()
        while pending:
            node = pending.pop()
            if isinstance(node, ast.Attribute) and node.attr in STATIC_ATTRIBUTES:
                continue
            if isinstance(node, ast.Call):
                if self.module.matching_name(node.func, {PROGRAM_ID}):
                    return True
                if _is_len(self.module, node):
                    continue
            if isinstance(node, ast.Name):
                for binding in self.module.bindings(node):
                    if id(binding) in seen:
                        continue
                    seen.add(id(binding))
                    if binding.node in self._traced_parameters:
                        return True
                    if binding.is_parameter:
                        pending.extend(self._passed_for(binding.node))  # type: ignore[arg-type]
                        continue
                    value = binding.value if binding.value is not None else self._source(binding)
                    if value is not None:
                        pending.append(value)
                continue
            if not isinstance(node, (*FUNCTIONS, ast.comprehension)):
                pending.extend(ast.iter_child_nodes(node))
        return False

    def _passed_for(self, parameter: ast.arg) -> list[ast.expr]:
        """What this module's calls of the parameter's function pass for it (`helper(x, pl.program_id(0))`)."""
        function = self.module.parent.get(self.module.parent.get(parameter))  # type: ignore[arg-type]
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return []
        return passed_for(self.module, function, parameter)

    def _source(self, binding: Binding) -> Optional[ast.AST]:
        """What a name bound other than by `name = value` takes its value from: the right side of an
        unpacking or augmented assignment, what a loop iterates."""
        node = self.module.parent.get(binding.node)
        while isinstance(node, (ast.Tuple, ast.List, ast.Starred)):
            node = self.module.parent.get(node)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            return node.value
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            return node.iter
        return None


# -- helpers --

def _wall() -> str:
    return f"Mosaic TPU cannot index a loaded value at a traced position (\"{ERROR}\")"


def _anchor(node: ast.expr) -> Optional[ast.AST]:
    """A Name or Call inside `node` that the module index places in its function."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node if isinstance(node, (ast.Name, ast.Call)) else None


def _maybe_last(index: ast.expr) -> list[ast.expr]:
    """The parts of an index that may fall on the array's last dimension, its rank unknown: one after
    the first position that only `...` or an unpacked `*rest` (perhaps empty) follows."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return [part for position, part in enumerate(parts)
            if position > 0 and not isinstance(part, (ast.Slice, ast.Starred)) and not _is_ellipsis(part)
            and all(_is_ellipsis(later) or isinstance(later, ast.Starred) for later in parts[position + 1:])]


def _looks_loaded(module, value: ast.expr) -> bool:
    """`x_ref[...]`, or a name bound once to it: a value loaded whole, whatever `x_ref` is."""
    if isinstance(value, ast.Name):
        bindings = module.bindings(value)
        value = bindings[0].value if len(bindings) == 1 and bindings[0].value is not None else value
    return isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and _whole(value.slice)


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _whole(index: ast.expr) -> bool:
    """`...`, `:` or a tuple of them: the whole of whatever is indexed."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return bool(parts) and all(
        isinstance(part, ast.Constant) and part.value is Ellipsis
        or isinstance(part, ast.Slice) and part.lower is None and part.upper is None and part.step is None
        for part in parts)


_LANE = ("its start in the last dimension is traced: Mosaic's compiler cannot prove it a multiple of 128 and "
         "refuses such an index on the ref (\"cannot statically prove that index in dimension 1 is a multiple of "
         "128\", TPU v5e, jax 0.10.2)")


def _sequence_of(node: ast.expr, rank: int) -> bool:
    """A tuple or list of `rank` plain elements, or a name or attribute chain (`S`, `o_ref.shape`) to index."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return len(node.elts) == rank and not any(isinstance(e, ast.Starred) for e in node.elts)
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _element(node: ast.expr, position: int, segment) -> str:
    """The source of element `position` of a sequence `_sequence_of` accepts."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return segment(node.elts[position])
    return f"{segment(node)}[{position}]"


def _int_constant(node: ast.expr) -> Optional[int]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _int_constant(node.operand)
        return None if value is None else -value
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _bool_constant(node: ast.expr) -> Optional[bool]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, bool) else None


def _constant_index(index: ast.expr) -> bool:
    """An index made of numbers, slices, `...` and `None` only: a static slice, which Mosaic lowers."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return all(isinstance(part, (ast.Slice, ast.Constant)) or _int_constant(part) is not None for part in parts)


def _is_len(module, call: ast.Call) -> bool:
    """`len(x)`, the builtin: static."""
    return isinstance(call.func, ast.Name) and call.func.id == "len" and not module.bindings(call.func)


def _parameters(function: FunctionNode) -> list[ast.arg]:
    arguments = function.args
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
            *filter(None, (arguments.vararg, arguments.kwarg))]


def _names_a_parameter(module, value: ast.expr) -> bool:
    """A name bound as a parameter: a ref, which may be indexed at any position."""
    return isinstance(value, ast.Name) and any(binding.is_parameter for binding in module.bindings(value))


def _function_name(function: Optional[FunctionNode]) -> str:
    return "a lambda" if isinstance(function, ast.Lambda) else f"`{getattr(function, 'name', 'the module')}`"


def _asynchronous(module, call: ast.Call) -> bool:
    """`pltpu.async_copy(src, x_ref, sem)`, `make_async_copy(...).start()`: a DMA into the ref."""
    while isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call):
        call = call.func.value  # `.start()` of the copy
    return any("async" in name.rsplit(".", 1)[-1] for name in module.qualified_names(call.func))


def _stored(module, mention: ast.Name) -> bool:
    """`x_ref[...] = v`, `x_ref[i] += v`, `del x_ref[i]`: a store into the ref."""
    parent = module.parent.get(mention)
    return isinstance(parent, ast.Subscript) and parent.value is mention and not isinstance(parent.ctx, ast.Load)


def _within(node: ast.AST, outer: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (node.lineno, node.col_offset) \
        and (node.end_lineno, node.end_col_offset) <= (outer.end_lineno, outer.end_col_offset)  # type: ignore[operator]


def _ends_before(first: ast.stmt, second: ast.stmt) -> bool:
    return (first.end_lineno, first.end_col_offset) <= (second.lineno, second.col_offset)  # type: ignore[operator]


def _starts_after(later: ast.stmt, earlier: ast.stmt) -> bool:
    return (later.lineno, later.col_offset) >= (earlier.end_lineno, earlier.end_col_offset)  # type: ignore[operator]


def _locate(rule: Rule, file: ParsedFile, line: int) -> Optional[tuple[int, int]]:
    """`Rule.locate`: the lines of the indexes on a traceback's `line` this rule rewrites or reports: a
    lax.dynamic_slice call, or a subscript at a position that is not a number, of anything but a name
    bound as a parameter (a ref)."""
    module = file.module
    found = [call for call in module.calls if call.lineno <= line <= call.end_lineno
             and module.matching_name(call.func, DYNAMIC_SLICES)]
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and node.lineno <= line <= node.end_lineno \
                and not isinstance(node.slice, ast.Slice) and not _constant_index(node.slice) \
                and not _names_a_parameter(module, node.value):
            found.append(node)  # type: ignore[arg-type]
    return (min(n.lineno for n in found), max(n.end_lineno for n in found)) if found else None  # type: ignore[type-var]


RULE = Rule(
    code="JAX006",
    name="dynamic-index",
    summary="Index the ref, not a value loaded from it, at a traced position in a Mosaic TPU kernel.",
    what="""
        Inside Pallas kernel bodies lowered for Mosaic TPU, finds a value loaded whole from a ref
        (`v = x_ref[...]`, `x_ref[:]`, `pltpu.load(x_ref)`, directly or through a name bound once)
        and indexed at a traced position: `v[i]` where `i` comes from `pl.program_id`, a loop's
        index (`lax.fori_loop`, `pl.loop`), or a ref; `lax.dynamic_slice(v, starts, sizes)`,
        `lax.dynamic_slice_in_dim` and `lax.dynamic_index_in_dim`. The index moves onto the ref:
        `x_ref[i]`, `x_ref[pl.ds(start, size), ...]`. Only where the analysis proves that nothing
        writes the ref between the load and the index: every mention of the ref but a read (a store,
        a call it is passed to, an async copy into it, another name for it) must run before the load
        or after the index in the same function, with no loop running it before the index again.
        Otherwise, and where the indexed value is another array (a part of a ref, a computed value)
        or the index is in the last (lane) dimension, which Mosaic's compiler refuses on the ref
        unless it is a multiple of 128, a [manual] finding says why. The fix is unsafe (applied with
        --unsafe-fixes): an index on the ref reads the same elements wherever it is in bounds, but out
        of bounds jnp wraps a negative index and lax.dynamic_slice clamps the start, while the ref's
        index is not checked (a negative one faulted a TPU v5e). A file is read for this rule where it
        says dynamic_slice, dynamic_index_in_dim, program_id, loop or scan (`jax-codemod explain`
        reads the rest from a traceback). Measured and left out: docs/walls.md.
    """,
    why="""
        Mosaic TPU has no lowering for dynamic_slice of a value (jax 0.10.2 and 0.12.0.1: "Unimplemented
        primitive in Pallas TPU lowering for tc: dynamic_slice"), while its ref indexing takes traced
        starts. A static index (`v[3]`) lowers as a static slice and is left alone; on a jax whose
        capability table says Mosaic TPU lowers dynamic_slice, nothing is reported.
    """,
    example="""
        v = x_ref[...]
        o_ref[...] = lax.dynamic_slice(v, (i * 8, 0), (8, 128))
        ->  o_ref[...] = x_ref[pl.ds(i * 8, 8), pl.ds(0, 128)]        (unsafe)
        o_ref[...] = jnp.broadcast_to(v[i], (8, 128))
        ->  o_ref[...] = jnp.broadcast_to(x_ref[i], (8, 128))         (unsafe)
    """,
    words=(b"dynamic_slice", b"dynamic_index_in_dim", b"program_id", b"loop", b"scan"),
    kernel_scoped=True,
    check=DynamicIndex.check,
    locate=_locate,
)
