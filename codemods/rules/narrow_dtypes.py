"""JAX004: integer vector ops Mosaic TPU rejects on 8- and 16-bit dtypes, computed in int32 and cast back."""

from __future__ import annotations

import ast
from typing import Optional

from codemods.analysis.dtype_arguments import dtype_argument, dtype_place
from codemods.analysis.flow.kernel_dtypes import LAUNCHER
from codemods.analysis.kernel_scope import MOSAIC_TPU
from codemods.analysis.names import find_arg, value_of
from codemods.analysis.presets import spell_dtype
from codemods.analysis.visible_dtypes import dtype_named, given_dtypes
from codemods.base import JaxTransform
from codemods.capabilities import NARROW_DTYPES, narrow_rejected
from codemods.engine.diagnostics import Applicability, Kind
from codemods.engine.fixes import FixPlan
from codemods.engine.rule import Rule
from codemods.settings import Scope

WIDE = "int32"
_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.LShift: "shift", ast.RShift: "shift"}
_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
# jax.numpy functions by the op they are; `x.max()` and `x.min()` too.
# lax's twins too (a logical right shift is left out: on a sign-extended int8 its int32 twin shifts the
# sign bits in, so the low 8 bits differ for negative values).
_ELEMENTWISE = {"jax.numpy.maximum": "maximum", "jax.numpy.minimum": "minimum", "jax.numpy.abs": "abs",
                "jax.numpy.absolute": "abs", "jax.lax.max": "maximum", "jax.lax.min": "minimum", "jax.lax.abs": "abs",
                "jax.lax.shift_left": "shift", "jax.lax.shift_right_arithmetic": "shift"}
_REDUCTIONS = {"jax.numpy.max": "reduce_max", "jax.numpy.amax": "reduce_max", "jax.numpy.min": "reduce_min",
               "jax.numpy.amin": "reduce_min", "jax.numpy.sum": "reduce_sum"}
_METHODS = {"max": "reduce_max", "min": "reduce_min", "sum": "reduce_sum"}
# Ops whose result keeps its operands' dtype (the fix casts it back); a comparison gives booleans.
_KEEP_DTYPE = frozenset({"add", "sub", "mul", "neg", "shift", "maximum", "minimum", "abs", "reduce_max",
                         "reduce_min"})
# Ops on narrow values whose result is narrow too (what a value's dtype is read through).
_PROPAGATE = (ast.Add, ast.Sub, ast.Mult, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)
_RANGES = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767)}
_DEPTH = 8  # names and ops followed to find a value's dtype
STRUCT, SCRATCH = "jax.ShapeDtypeStruct", "pallas.tpu.VMEM"
_ERRORS = {
    "add": "\"Only vector<i16> and vector<i32> are supported, but got 'i8'\" (arith.addi)",
    "sub": "\"Only vector<i16> and vector<i32> are supported, but got 'i8'\" (arith.subi)",
    "mul": "\"Only vector<i16> and vector<i32> are supported, but got 'i8'\" (arith.muli)",
    "neg": "\"Only vector<i16> and vector<i32> are supported, but got 'i8'\" (arith.subi)",
    "shift": "\"failed to legalize operation 'arith.shli'\" (shrsi, shrui)",
    "compare": "\"Target does not support this comparison\" (arith.cmpi)",
    "maximum": "\"failed to legalize operation 'arith.maxsi'\" (maxui)",
    "minimum": "\"failed to legalize operation 'arith.minsi'\" (minui)",
    "abs": "\"failed to legalize operation 'math.absi'\"",
}
_COMPILER = "Mosaic TPU's compiler rejects it on the chip (TPU v5e, jax 0.10.2)"


class NarrowVectors(JaxTransform):
    def plan(self) -> None:
        launched = launched_ref_dtypes(self.module)
        self._refs = {parameter: next(iter(dtypes)) for parameter, dtypes in launched.items()
                      if len(dtypes) == 1 and None not in dtypes}
        self._mixed = {parameter: dtypes - {None} for parameter, dtypes in launched.items() if len(dtypes) > 1}
        self._given, self._mixed_given = self._given_dtypes()
        # (another module's name holding one narrow dtype, which the link knows: `config.QDTYPE`)
        named = dict(self.analysis.facts.flow.named_dtypes)
        self._held = {node: dtype for node in ast.walk(self.module.tree) if isinstance(node, ast.Attribute)
                      for dtype in {named.get(name) for name in self.module.qualified_names(node)} - {None}} \
            if named else {}
        self._cast_elsewhere = {function: (dtypes, where) for name, dtypes, where in self.analysis.facts.flow.operands
                                for function in self.module.tree.body
                                if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and function.name == name}
        self._placed = self._placed_operands()
        self._launched = {parameter: passed[0][0] for parameter, passed in self._placed.items()
                          if len(passed) == 1 and passed[0][0] in NARROW_DTYPES}
        fixable: dict[ast.AST, tuple[str, list[ast.expr], str, Optional[str]]] = {}
        for node in _post_order(self.module.tree):
            op = _op_of(node, self.module)
            if op is None or not self._in_tpu_kernel(node):
                continue
            name, operands = op
            dtype = self._common_dtype(operands)
            rejected = dtype is not None and name in narrow_rejected(MOSAIC_TPU, dtype, self.settings.jax_version)
            if rejected and name == "reduce_sum":
                # jax sums uint8 as uint32, which no Mosaic TPU release reduces; an int32 sum changes the dtype.
                self.report(node, Kind.MANUAL, f"sum over {dtype} vectors: Mosaic TPU's lowering rejects it (\"Reductions "
                            f"over unsigned integers not implemented.\": jax sums {dtype} as uint32); not rewritten, "
                            f"as the result's dtype would change: {_example(name)} if an int32 sum will do (exact "
                            "below 2**31)")
            elif rejected and dtype == "uint8" and isinstance(node, ast.Call) \
                    and "jax.lax.shift_right_arithmetic" in self.module.qualified_names(node.func):
                self.report(node, Kind.MANUAL, "lax.shift_right_arithmetic on uint8 vectors: "
                            f"{_COMPILER}: {_ERRORS['shift']}; not rewritten: jax shifts a uint8's top bit in as a sign bit, which "
                            "an int32 shift of the zero-extended value does not; write it on an int8 view")
            elif rejected:  # (a dtype a parameter is given by callers the tool follows: they may not be all)
                fixable[node] = (name, operands, dtype, self._unsafe(operands))
            elif dtype is None and (self._mixed_launch(node, name, operands) or
                                    self._mixed_parameter(node, name, operands) or
                                    self._operand_cast_elsewhere(node, name, operands)):
                continue
            elif dtype is None and self.proven_at(node):
                how, exact = ("an int32 sum, if one will do", "exact below 2**31") if name == "reduce_sum" else \
                    (f"compute it in int32{' and cast back' if name in _KEEP_DTYPE else ''}", "exact for every input")
                self.report(node, Kind.MANUAL, f"{_what(name)}: the traceback says Mosaic TPU rejects this op on "
                            f"an 8- or 16-bit integer vector, a dtype this code does not show: {how} "
                            f"({_example(name)}); {exact}")
        # One fix per outermost op: an op whose operand is another op fixed here fixes both, planning
        # the operand's own cast back before its cast to int32 (edits of one span apply in plan order).
        inner = {operand for _, operands, _, _ in fixable.values() for operand in operands if operand in fixable}
        for node, (name, _, dtype, unsafe) in fixable.items():
            if node not in inner:
                fix = FixPlan()
                names = self._plan_cast(fix, node, fixable)
                self._report_fix(node, name, dtype, fix, names, unsafe)

    def _placed_operands(self) -> dict[ast.arg, tuple[tuple[str, tuple[str, ...]], ...]]:
        """The ref parameters of this module's top-level bodies that every launch the link follows passes an
        operand (`FlowFacts.refs`), one of them cast to a narrow dtype: what each passes, and where."""
        bodies = {function.name: function for function in self.module.tree.body
                  if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))}
        return {parameter: passed for name, ref, passed in self.analysis.facts.flow.refs if name in bodies
                for parameter in bodies[name].args.args if parameter.arg == ref}

    def _unsafe(self, operands: list[ast.expr]) -> Optional[str]:
        """Why a fix is unsafe: the dtype is not in this module's code but what every call of the kernel
        the link follows gives a dtype parameter ("given"), or what every launch passes a ref ("launched")."""
        if self._common_dtype(operands, {}, {}) is not None:
            return None
        return "given" if self._common_dtype(operands, None, {}) is not None else "launched"

    def _given_dtypes(self) -> tuple[dict[ast.arg, str], dict[ast.arg, tuple[tuple[str, ...], bool]]]:
        """The parameters of this module's top-level defs that every call the whole-program link follows
        gives one narrow dtype (`partial(rowmax_as, dtype=cfg.qdtype)` in another module), and nothing
        else; and those some call gives a narrow dtype and another something else (what the link says)."""
        given, mixed = {}, {}
        for parameter, found in given_dtypes(self.module, self.analysis.facts.flow).items():
            if len(found[0]) == 1 and not found[1] and found[0][0] in NARROW_DTYPES:
                given[parameter] = found[0][0]
            elif set(found[0]) & set(NARROW_DTYPES):
                mixed[parameter] = found
        return given, mixed

    def _mixed_parameter(self, node: ast.AST, name: str, operands: list[ast.expr]) -> bool:
        """An op whose operands take their dtype from a parameter that one call of the kernel gives a
        narrow dtype Mosaic TPU rejects the op on, and another something else: said in a [manual] finding,
        never rewritten (as `_mixed_launch`)."""
        for parameter, (dtypes, other) in self._mixed_given.items():
            rejecting = sorted(dtype for dtype in dtypes if dtype in NARROW_DTYPES
                               and name in narrow_rejected(MOSAIC_TPU, dtype, self.settings.jax_version)
                               and self._common_dtype(operands, {**self._given, parameter: dtype}) == dtype)
            if rejecting:
                others = [dtype for dtype in dtypes if dtype not in rejecting] + \
                    (["values the tool does not follow"] if other else [])
                self.report(node, Kind.MANUAL, f"{_what(name)}: a call of this kernel gives its parameter "
                            f"`{parameter.arg}` {' or '.join(rejecting)}, on which Mosaic TPU rejects this op, and "
                            f"another {' or '.join(others)}: not rewritten; compute it in int32 and cast back "
                            f"({_example(name)}) where the dtype is an 8- or 16-bit integer")
                return True
        return False

    def _mixed_launch(self, node: ast.AST, name: str, operands: list[ast.expr]) -> bool:
        """An operand loaded from a ref that one launch gives a dtype on which Mosaic TPU rejects the op
        and another launch does not: said in a [manual] finding, never rewritten (the cast back would
        give the other launch's result the wrong dtype)."""
        for operand in operands:
            bindings = self.module.bindings(operand.value) if isinstance(operand, ast.Subscript) \
                and isinstance(operand.value, ast.Name) else []
            mixed = self._mixed.get(bindings[0].node, frozenset()) if len(bindings) == 1 else frozenset()
            rejecting = sorted(dtype for dtype in mixed
                               if name in narrow_rejected(MOSAIC_TPU, dtype, self.settings.jax_version))
            if rejecting:
                self.report(node, Kind.MANUAL, f"{_what(name)}: a launch of this kernel gives "
                            f"`{self.module.segment(operand.value)}` {' or '.join(rejecting)} elements, on which Mosaic "
                            f"TPU rejects this op, and another launch another dtype: not rewritten; compute it in "
                            f"int32 and cast back ({_example(name)}), or give each launch its own kernel")
                return True
        return False

    def _operand_cast_elsewhere(self, node: ast.AST, name: str, operands: list[ast.expr]) -> bool:
        """An op on loads of refs whose dtype this code does not show, in a kernel a launch of another
        module passes an operand cast to a narrow dtype Mosaic TPU rejects the op on (`FlowFacts.operands`):
        which ref gets it is not known, or launches pass the ref different dtypes (`FlowFacts.refs`: said
        too), so a [manual] finding says so, never a rewrite."""
        placed = next((inner for inner in ast.walk(node) if isinstance(inner, (ast.Name, ast.Call))), node)
        dtypes, where = self._cast_elsewhere.get(self.module.enclosing.get(placed), ((), ()))
        rejecting = sorted(dtype for dtype in dtypes if name in narrow_rejected(MOSAIC_TPU, dtype, self.settings.jax_version))
        arrays = [operand for operand in operands if _literal(operand) is None]
        loaded = [self._loaded_ref(operand) for operand in arrays]
        if not rejecting or not arrays or not all(loaded):
            return False
        # (a ref the launches pass different operands: which launch passes what)
        mixed = [f"`{parameter.arg}` gets " + ", ".join(f"{dtype or 'an operand of another dtype or one not followed'} "
                                                         f"{' '.join(at)}" for dtype, at in self._placed[parameter])
                 for parameter in dict.fromkeys(sum(loaded, [])) if len(self._placed.get(parameter, ())) > 1]
        self.report(node, Kind.MANUAL, f"{_what(name)} on refs whose dtype this code does not show: a Mosaic TPU "
                    f"launch {', '.join(where)} passes this kernel an operand cast to {' or '.join(rejecting)}, on which Mosaic TPU "
                    f"rejects this op; if that operand reaches it here, compute it in int32 and cast back "
                    f"({_example(name)}){''.join(f'; {said}' for said in mixed)}")
        return True

    def _loaded_ref(self, operand: ast.expr, depth: int = _DEPTH) -> list[ast.arg]:
        """The parameters `x_ref[...]` loads, or a name bound once to one (`v = x_ref[...]`), or an op that
        keeps its dtype on such loads (`jnp.abs(v)` in `jnp.max(jnp.abs(v))`: the max fails on int8 too);
        [] where the operand is something else."""
        op = _op_of(operand, self.module)
        if op is not None and op[0] in _KEEP_DTYPE and depth:
            loaded = [self._loaded_ref(inner, depth - 1) for inner in op[1] if _literal(inner) is None]
            return sum(loaded, []) if loaded and all(loaded) else []
        if isinstance(operand, ast.Name):
            bindings = self.module.bindings(operand)
            operand = bindings[0].value if len(bindings) == 1 and bindings[0].value is not None else operand
        bindings = self.module.bindings(operand.value) if isinstance(operand, ast.Subscript) \
            and isinstance(operand.value, ast.Name) else []
        return [bindings[0].node] if len(bindings) == 1 and bindings[0].is_parameter else []

    def _in_tpu_kernel(self, node: ast.AST) -> bool:
        if self.settings.scope is Scope.ALL or self.proven_at(node):
            return True
        # The analysis places names and calls in their functions: an op is where its first name is.
        name = next((inner for inner in ast.walk(node) if isinstance(inner, (ast.Name, ast.Call))), None)
        return name is not None and MOSAIC_TPU in self.kernels.backends_of(name)

    def proven_at(self, node: ast.AST) -> bool:
        """A traceback proved that an op on this node's lines fails (`jax-codemod explain`)."""
        lines = self.analysis.proven.get(self.rule.code, frozenset())
        return any(node.lineno <= line <= node.end_lineno for line in lines)  # type: ignore[attr-defined]

    def _common_dtype(self, operands: list[ast.expr], given: Optional[dict] = None,
                      launched: Optional[dict] = None) -> Optional[str]:
        """The narrow dtype every array operand visibly has (Python int literals take it, as jax
        gives a weakly typed scalar the array's dtype), or is given by a parameter (`given`, by default
        the link's), or loads from a ref every launch passes it (`launched`, by default the link's);
        None if any differs or is not shown."""
        given = {**self._held, **(self._given if given is None else given)}
        refs = {**(self._launched if launched is None else launched), **self._refs}
        dtypes = {narrow_dtype(operand, self.module, refs=refs, given=given) for operand in operands
                  if _literal(operand) is None}
        if len(dtypes) != 1 or None in dtypes:
            return None
        dtype = dtypes.pop()
        low, high = _RANGES[dtype]  # type: ignore[index]
        literals = [value for operand in operands if (value := _literal(operand)) is not None]
        return dtype if all(low <= value <= high for value in literals) else None

    def _plan_cast(self, fix: FixPlan, node: ast.AST, fixable: dict, cast_back: bool = True) -> list[str]:
        """`node` computed in int32 and, with `cast_back`, cast back (its operands that are fixed ops
        first); the ops fixed. An operand that is itself a fixed op stays in int32 where only its low
        8 or 16 bits reach the result (`_low_bits_only`), else it is cast back and to int32 again."""
        name, operands, dtype, _ = fixable[node]
        wide, narrow = spell_dtype(WIDE, self.module), spell_dtype(dtype, self.module)
        names = [name]
        for index, operand in enumerate(operands):
            if operand in fixable:
                low_bits_only = _low_bits_only(node, index)
                names += self._plan_cast(fix, operand, fixable, cast_back=not low_bits_only)
                if low_bits_only:
                    continue
            if _literal(operand) is None:
                self.rewrite(fix, operand, lambda code: f"{_atom(code)}.astype({wide})")
        if name in _KEEP_DTYPE and cast_back:
            self.rewrite(fix, node, lambda code: f"{_atom(code)}.astype({narrow})")
        return names

    def _report_fix(self, node: ast.AST, name: str, dtype: str, fix: FixPlan, names: list[str],
                    unsafe: Optional[str]) -> None:
        rejected_by = ("Mosaic TPU's lowering rejects it (\"Reductions over "
                       f"{'unsigned integers' if dtype.startswith('u') else dtype} not implemented.\")"
                       if name.startswith("reduce") else f"{_COMPILER}: {_ERRORS[name]}")
        back = f", cast back to {dtype}" if name in _KEEP_DTYPE else ""
        inside = sorted({_what(other) for other in names[1:]})
        also = f" (with the {', '.join(inside)} inside it)" if inside else ""
        why = {"given": f"; unsafe: {dtype} is what a dtype parameter is given by every call of the kernel the tool "
                        "follows, and a call it does not see may give another",
               "launched": f"; unsafe: {dtype} is what every launch of the kernel the tool follows passes this ref, "
                           "and a launch it does not see may pass another"}.get(unsafe or "", "")
        self.report(node, Kind.FIXED, f"{_what(name)} on {dtype} vectors: {rejected_by}; now computed in int32{back}"
                    f"{also}, bit-identical for every {dtype} input{why}", fix,
                    Applicability.UNSAFE if unsafe else Applicability.SAFE)


def _post_order(tree: ast.AST) -> list[ast.AST]:
    """Every node, each after the nodes inside it (without recursion: a hostile file nests deeply)."""
    order, pending = [], [tree]
    while pending:
        node = pending.pop()
        order.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return order[::-1]


def _low_bits_only(node: ast.AST, index: int) -> bool:
    """Whether the low n bits of `node`'s result depend only on the low n bits of its operand `index`:
    so for +, -, * and negation (arithmetic modulo 2**n) and the shifted value of `<<` (not its
    amount). There an operand computed in int32 needs no cast back: the bits it would drop never
    reach the n bits the result's own cast back keeps. Not so for >>, comparisons, max, min, abs."""
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.USub)
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)) or (isinstance(node.op, ast.LShift) and index == 0)
    return False


def _op_of(node: ast.AST, module) -> Optional[tuple[str, list[ast.expr]]]:
    """The op a node applies (as the capability table names it) and its operands."""
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)], [node.left, node.right]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _literal(node) is None:
        return "neg", [node.operand]
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], _ORDER):
        return "compare", [node.left, node.comparators[0]]
    if not isinstance(node, ast.Call) or any(isinstance(arg, ast.Starred) for arg in node.args):
        return None
    names = module.qualified_names(node.func)
    elementwise = next((_ELEMENTWISE[name] for name in names if name in _ELEMENTWISE), None)
    if elementwise is not None:
        arity = 1 if elementwise == "abs" else 2
        return (elementwise, list(node.args)) if len(node.args) == arity and not node.keywords else None
    reduction = next((_REDUCTIONS[name] for name in names if name in _REDUCTIONS), None)
    if reduction is not None and node.args and not any(k.arg in ("initial", "where", "out") for k in node.keywords):
        return reduction, [node.args[0]]
    if isinstance(node.func, ast.Attribute) and node.func.attr in _METHODS and not names \
            and not any(k.arg in ("initial", "where", "out") for k in node.keywords):
        return _METHODS[node.func.attr], [node.func.value]
    return None


def narrow_dtype(value: ast.expr, module, depth: int = _DEPTH, refs: Optional[dict] = None,
                 given: Optional[dict] = None) -> Optional[str]:
    """"int8", "uint8" or "int16" where the source shows the value has it: cast to it
    (`x.astype(jnp.int8)`, `jnp.int8(x)`, `lax.convert_element_type(x, jnp.int8)`), made with it (`jnp.zeros(shape,
    jnp.int8)`, `dtype="int8"`), a name bound once to such a value, an op on such values that keeps
    their dtype, or a load of a kernel's ref whose launch shows its dtype (`refs`: parameter -> dtype);
    a cast to a dtype parameter its callers give one dtype (`given`: parameter -> dtype); None where
    it does not."""
    if depth == 0:
        return None
    refs, given = refs or {}, given or {}
    if isinstance(value, ast.Subscript) and isinstance(value.ctx, ast.Load) and isinstance(value.value, ast.Name):
        bindings = module.bindings(value.value)
        return refs.get(bindings[0].node) if len(bindings) == 1 else None
    if isinstance(value, ast.Name):
        bindings = _reaching(value, module)
        bound = bindings[0].value if len(bindings) == 1 else None
        return None if bound is None else narrow_dtype(bound, module, depth - 1, refs, given)
    if isinstance(value, ast.BinOp) and isinstance(value.op, _PROPAGATE):
        sides = {narrow_dtype(side, module, depth - 1, refs, given) for side in (value.left, value.right)
                 if _literal(side) is None}
        return sides.pop() if len(sides) == 1 else None
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.Invert)):
        return narrow_dtype(value.operand, module, depth - 1, refs, given)
    if not isinstance(value, ast.Call):
        return None
    func = value.func  # `q.dtype.type(2)`: a scalar of `q`'s dtype
    if isinstance(func, ast.Attribute) and func.attr == "type" and isinstance(func.value, ast.Attribute) \
            and func.value.attr == "dtype" and len(value.args) == 1 and not value.keywords:
        return narrow_dtype(func.value.value, module, depth - 1, refs, given)
    names = module.qualified_names(value.func)
    if dtype_place(names, value.func.attr if isinstance(value.func, ast.Attribute) else None) is not None:
        dtype = dtype_argument(value, names)  # `x.astype(dtype=jnp.int8)`, `jnp.zeros(s, jnp.int8)`
        return None if dtype is None else _dtype_named(dtype, module, given)
    called = _dtype_named(value.func, module)  # `jnp.int8(x)`: the dtype called as a cast
    if called is not None:
        return called
    # jnp.maximum(a, b), reductions and jnp.where(c, a, b) keep their operands' dtype.
    op = _op_of(value, module)
    if "jax.numpy.where" in names and len(value.args) == 3 and not value.keywords:
        operands = value.args[1:]
    elif op is not None and op[0] in _KEEP_DTYPE:
        operands = op[1]
    else:
        return None
    dtypes = {narrow_dtype(operand, module, depth - 1, refs, given) for operand in operands
              if _literal(operand) is None}
    return dtypes.pop() if len(dtypes) == 1 else None


def _reaching(name: ast.Name, module) -> list:
    """The bindings a load of `name` may read: all of them, or the last before it where each is a plain
    assignment among the statements of one function body that holds the load, in the same scope
    (`q = lax.convert_element_type(x, jnp.int8)`, then `q = jnp.minimum(q, 7)`: straight-line code,
    no loop or branch between, so the second reads the first)."""
    bindings = module.bindings(name)
    statement = _statement(name, module)
    body = getattr(module.enclosing.get(name), "body", None)
    if len(bindings) < 2 or not isinstance(body, list) or any(binding.scope is not module.scope_of.get(name) for binding in bindings):
        return bindings
    while statement is not None and statement not in body:
        statement = _statement(module.parent.get(statement), module)
    assigned = [binding for binding in bindings if isinstance(module.parent.get(binding.node), ast.Assign)
                and module.parent.get(binding.node) in body]
    if statement is None or len(assigned) != len(bindings):
        return bindings
    before = [binding for binding in assigned if body.index(module.parent.get(binding.node)) < body.index(statement)]
    return before[-1:]


def _statement(node: Optional[ast.AST], module) -> Optional[ast.stmt]:
    """The statement that holds `node` (itself, if it is one)."""
    while node is not None and not isinstance(node, ast.stmt):
        node = module.parent.get(node)
    return node


def launched_ref_dtypes(module) -> dict[ast.arg, frozenset[Optional[str]]]:
    """The narrow dtypes the launches of a kernel in this module show for its ref parameters (None:
    a launch that shows none there); one dtype alone is the ref's dtype. Shown are `pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(shape, jnp.int8))` for the output refs
    (the last parameters), and the operands the launch is called with (`...(x.astype(jnp.int8))`) for
    the inputs (the first ones), `scratch_shapes=[pltpu.VMEM(shape, dtype)]` for the scratch refs after
    the outputs. A launch with a grid spec (scalar prefetch refs lead), or scratch shapes not written
    out, shows none."""
    seen: dict[ast.arg, set] = {}
    for launch in module.calls:
        if not (launch.args and LAUNCHER in module.qualified_names(launch.func)) or any(
                keyword.arg in ("grid_spec", None) for keyword in launch.keywords):
            continue
        body = launch.args[0]
        bindings = module.bindings(body) if isinstance(body, ast.Name) else []
        if len(bindings) != 1 or not isinstance(bindings[0].node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        parameters = bindings[0].node.args.args
        out_shape = next((keyword.value for keyword in launch.keywords if keyword.arg == "out_shape"), None)
        scratch = next((keyword.value for keyword in launch.keywords if keyword.arg == "scratch_shapes"), None)
        if scratch is not None and not isinstance(scratch, (ast.Tuple, ast.List)):
            continue  # scratch refs come last, and how many is not seen
        # The refs after the inputs: the outputs, then the scratch refs (`pltpu.VMEM(shape, dtype)`).
        outputs = (out_shape.elts if isinstance(out_shape, (ast.Tuple, ast.List)) else [out_shape]) + \
            (scratch.elts if scratch is not None else [])
        called = module.parent.get(launch)
        inputs = called.args if isinstance(called, ast.Call) and called.func is launch else None
        if out_shape is None or len(parameters) < len(outputs):
            continue
        if inputs is None or any(isinstance(arg, ast.Starred) for arg in inputs) or \
                len(inputs) + len(outputs) != len(parameters):
            inputs = []  # the inputs are not seen (or not laid out as the parameters): outputs only
        shown = [narrow_dtype(arg, module) for arg in inputs] + [_struct_dtype(struct, module) for struct in outputs]
        offsets = list(range(len(inputs))) + list(range(len(parameters) - len(outputs), len(parameters)))
        for offset, dtype in zip(offsets, shown):
            seen.setdefault(parameters[offset], set()).add(dtype)
    return {parameter: frozenset(dtypes) for parameter, dtypes in seen.items()}


def _struct_dtype(struct: Optional[ast.expr], module) -> Optional[str]:
    """The dtype a `jax.ShapeDtypeStruct(shape, dtype)` or a scratch ref's `pltpu.VMEM(shape, dtype)`
    names, when narrow."""
    names = module.qualified_names(struct.func) if isinstance(struct, ast.Call) else set()
    if not any(name == STRUCT or name.endswith(SCRATCH) for name in names):
        return None
    named = next((keyword.value for keyword in struct.keywords if keyword.arg == "dtype"),
                 struct.args[1] if len(struct.args) > 1 else None)
    return None if named is None else _dtype_named(named, module)


def _dtype_named(node: ast.expr, module, given: Optional[dict] = None) -> Optional[str]:
    if given and node in given:  # (another module's name the link says holds it)
        return given[node]
    if given and isinstance(node, ast.Name):
        bindings = module.bindings(node)
        if len(bindings) == 1 and bindings[0].node in given:
            return given[bindings[0].node]
    named = dtype_named(node, module)  # (`jnp.int8`, `"int8"`, `jnp.dtype("int8")`)
    return named if named in NARROW_DTYPES else None


def _literal(node: ast.expr) -> Optional[int]:
    """The value of a Python int literal (`3`, `-3`), which jax casts to the other operand's dtype."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _literal(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _atom(code: str) -> str:
    """`code`, parenthesised unless an attribute can follow it as it is (`x`, `f(x)`, `(a + b).astype(t)`)."""
    try:
        tree = ast.parse(f"{code}.__x", mode="eval").body
    except SyntaxError:
        return f"({code})"
    return code if isinstance(tree, ast.Attribute) and tree.attr == "__x" else f"({code})"


def _what(name: str) -> str:
    return {"neg": "negation", "compare": "ordering comparison", "reduce_max": "max reduction",
            "reduce_min": "min reduction", "reduce_sum": "sum", "shift": "shift", "abs": "abs", "maximum": "jnp.maximum",
            "minimum": "jnp.minimum", "add": "addition", "sub": "subtraction", "mul": "multiplication"}[name]


def _example(name: str) -> str:
    return {
        # The chip's words for a refused comparison name no dtype: a chip without bfloat16 compares
        # (jax issue 53's survey) says the same of bfloat16 operands, compared in float32 instead.
        "compare": "`a.astype(jnp.int32) > b.astype(jnp.int32)`; bfloat16 operands: `.astype(jnp.float32)`",
        "neg": "`(-a.astype(jnp.int32)).astype(a.dtype)`",
        "abs": "`jnp.abs(a.astype(jnp.int32)).astype(a.dtype)`",
        "maximum": "`jnp.maximum(a.astype(jnp.int32), b.astype(jnp.int32)).astype(a.dtype)`",
        "minimum": "`jnp.minimum(a.astype(jnp.int32), b.astype(jnp.int32)).astype(a.dtype)`",
        "reduce_max": "`jnp.max(a.astype(jnp.int32), axis=...).astype(a.dtype)`",
        "reduce_min": "`jnp.min(a.astype(jnp.int32), axis=...).astype(a.dtype)`",
        "reduce_sum": "`jnp.sum(a.astype(jnp.int32), axis=...)`",
    }.get(name, "`(a.astype(jnp.int32) OP b.astype(jnp.int32)).astype(a.dtype)`".replace(
        "OP", {"add": "+", "sub": "-", "mul": "*", "shift": "<<"}.get(name, "OP")))


def _locate(rule: Rule, file, line: int) -> Optional[tuple[int, int]]:
    """`explain`: the lines of the ops on `line` this rule fixes or reports, whatever their dtype
    (a traceback proves the op fails; the dtype it names need not show in the source)."""
    module = file.module
    spans = [(node.lineno, node.end_lineno) for node in ast.walk(module.tree)
             if getattr(node, "lineno", 0) <= line <= (getattr(node, "end_lineno", 0) or 0)
             and _op_of(node, module) is not None]
    return (min(start for start, _ in spans), max(end for _, end in spans)) if spans else None


RULE = Rule(
    code="JAX004",
    name="narrow-int-vectors",
    summary="Compute int8, uint8 and int16 vector ops Mosaic TPU rejects in int32, cast back: bit-identical.",
    what="""
        Inside Pallas kernel bodies that can be lowered for Mosaic TPU, where the source shows that
        the operands are int8, uint8 or int16 (cast with `.astype(jnp.int8)` or `jnp.int8(x)`, made with
        `jnp.zeros(shape, jnp.int8)` or `dtype="uint8"`, spelt `jnp.dtype("int8")` too, a name bound
        once to such a value or reassigned in straight-line code (each use reads the assignment above
        it), an op on such values, a ref whose launch in the module shows it: the operands it is called
        with, its `out_shape`, its `scratch_shapes`), rewrites the ops Mosaic TPU cannot do on such
        vectors (the table in
        codemods/capabilities.py): `+`, `-`, `*`, negation, `<<`, `>>`, `<`/`<=`/`>`/`>=`,
        `jnp.maximum`/`jnp.minimum` and `jnp.abs` on 8-bit vectors; shifts and `jnp.maximum`/
        `jnp.minimum` on int16; `jnp.max`/`jnp.min` (and `x.max()`/`x.min()`) reductions over all
        three; lax's twins too (`lax.max`, `lax.min`, `lax.abs`, `lax.shift_left`,
        `lax.shift_right_arithmetic`, the last not on uint8, whose top bit jax shifts in as a sign:
        a [manual] finding). (A `jnp.sum` over uint8, which jax sums as uint32 and Mosaic TPU does not reduce, gets
        a [manual] finding: an int32 sum would change the result's dtype.) Each operand is cast to int32 and the result back to the operands' dtype (a
        comparison's booleans stay as they are); in a chain of such ops, between +, -, * and
        negation the int32 value goes on uncast. The fix is safe: int32 arithmetic wraps modulo 2**32,
        so the low 8 or 16 bits the cast back keeps are those the narrow op gives, and sign or zero
        extension keeps every order; checked on a TPU v5e against plain XLA for every pair of 8-bit
        values. Python int operands stay as written (jax gives them the array's dtype), when in its
        range. Where the dtype does not show (a ref of a launch that does not show it), nothing is
        changed; `jax-codemod explain` places the chip's error on its line and says what to write.
        A kernel whose launches give a ref different dtypes, one of them such a dtype, gets a
        [manual] finding: the cast back would give the other launch the wrong dtype. A cast to a
        dtype parameter (`x_ref[...].astype(dtype)`) takes the dtype every call of the kernel the
        whole-program link follows gives it, in any module (`partial(body, dtype=cfg.qdtype)`, a
        config's `jnp.int8`): that fix is unsafe (a call the tool does not see may give another
        dtype); a parameter given such a dtype and another gets a [manual] finding. An op on loads
        of refs whose dtype does not show, in a kernel a launch of another module passes an operand
        cast to such a dtype (`launch(body, x.astype(jnp.int8))`), gets a [manual] finding naming it.
    """,
    why="""
        Mosaic TPU's vector units compute on 16- and 32-bit lanes: its compiler (in libtpu) refuses
        8-bit arithmetic, shifts and ordering compares ("Not implemented: Only vector<i16> and
        vector<i32> are supported, but got 'i8'. Please cast your input.", "failed to legalize
        operation 'arith.shli'", "Target does not support this comparison"), after a lowering that
        succeeds on any machine, so the error shows only on the chip; the Pallas lowering itself
        rejects max/min reductions over any integer but int32 ("Reductions over int8 not
        implemented."). The maintainers' workaround (jax issues 22204, 38986, 28305) is this cast.
        Outside kernels XLA computes these ops, so that code is left alone (unless --scope all).
    """,
    example="""
        q = x_ref[...].astype(jnp.int8)
        o_ref[...] = q + q
        ->  o_ref[...] = (q.astype(jnp.int32) + q.astype(jnp.int32)).astype(jnp.int8)   (safe)
        o_ref[...] = jnp.max(q, axis=1)
        ->  o_ref[...] = jnp.max(q.astype(jnp.int32), axis=1).astype(jnp.int8)          (safe)
    """,
    words=(b"int8", b"int16"),
    kernel_scoped=True,
    check=NarrowVectors.check,
    locate=_locate,
)
