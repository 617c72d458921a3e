"""JAX007: math a Pallas Mosaic TPU or Triton kernel has no lowering for, computed from functions it lowers."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional

from codemods.analysis.flow.flow_facts import Called
from codemods.analysis.kernel_scope import BACKEND_NAMES, MOSAIC_TPU, TRITON
from codemods.analysis.module_helpers import reference_helper
from codemods.analysis.names import Argument, atom, display, find_arg, has_star, is_none, one_line, value_of
from codemods.analysis.presets import jax_numpy_name
from codemods.base import JaxTransform
from codemods.capabilities import UNIMPLEMENTED, division_rejected, math_unlowered
from codemods.engine.diagnostics import Applicability, Kind
from codemods.engine.fixes import FixPlan
from codemods.engine.rule import Rule
from codemods.settings import Scope

REJECTERS = (MOSAIC_TPU, TRITON)
# jax.nn.selu's constants, and 1 / sqrt(2) for the exact gelu, as jax writes them.
SELU_ALPHA, SELU_SCALE = "1.6732632423543772", "1.0507009873554805"
SQRT_HALF = "0.7071067811865476"


@dataclass(frozen=True)
class MathFunction:
    """A jax function that applies a math primitive Mosaic TPU or Triton cannot lower, and how to rewrite a call of it."""

    primitive: str
    positional: tuple[str, ...]  # its parameters that may come by position, in order
    keywords: tuple[str, ...] = ()  # keyword-only parameters the rewrite reads
    # Parameters the rewrite cannot express: a call may pass them only as these literal values (the defaults).
    fixed: dict[str, tuple[object, ...]] = field(default_factory=dict)
    helper: Optional[str] = None  # the codemods/helpers_source.py function the rewrite calls
    rewrite: Optional[str] = None  # the key of REWRITES; None: no rewrite ([manual], `manual` says why)
    manual: str = ""
    # The backends whose kernels lower what the rewrite writes (cumsum_tpu's pltpu.roll is Mosaic TPU's alone).
    lowers_on: frozenset[str] = frozenset(REJECTERS)


def _unary(primitive: str, helper: Optional[str], rewrite: str = "helper",
           fixed: Optional[dict] = None) -> MathFunction:
    return MathFunction(primitive, ("x",), helper=helper, rewrite=rewrite, fixed=fixed or {})


_ACCURACY = {"accuracy": (None,)}  # lax.expm1 and lax.erfc take a hint the helpers cannot honour
_SCAN_DEFAULTS = {"dtype": (None,), "out": (None,)}
_ROLLS = frozenset({MOSAIC_TPU})  # pltpu.roll: Triton says "Unimplemented primitive in Pallas Triton lowering: roll"
_NO_REWRITE = {
    "lgamma": "no rewrite is written for it (a Lanczos series from exp and log would do): compute it outside "
              "the kernel, or write the series there",
    "digamma": "no rewrite is written for it (a recurrence, then an asymptotic series): compute it outside the "
               "kernel, or write the series there",
    "sort": "a sort is no elementwise operation: sort outside the kernel, or write a sorting network from "
            "jnp.minimum/jnp.maximum over rolled copies (pltpu.roll)",
}


def _cannot(primitive: str) -> MathFunction:
    return MathFunction(primitive, (), manual=_NO_REWRITE[primitive])


FUNCTIONS: dict[str, MathFunction] = {
    **{name: _unary("expm1", "expm1_tpu", fixed=_ACCURACY if name.startswith("jax.lax") else None)
       for name in ("jax.numpy.expm1", "jax.lax.expm1")},
    **{name: _unary("erfc", "erfc_tpu", fixed=_ACCURACY if name.startswith("jax.lax") else None)
       for name in ("jax.scipy.special.erfc", "jax.lax.erfc")},
    **{name: _unary("atan", None, rewrite="atan2") for name in ("jax.numpy.arctan", "jax.numpy.atan", "jax.lax.atan")},
    **{name: _unary("asin", "arcsin_tpu") for name in ("jax.numpy.arcsin", "jax.numpy.asin", "jax.lax.asin")},
    **{name: _unary("acos", "arccos_tpu") for name in ("jax.numpy.arccos", "jax.numpy.acos", "jax.lax.acos")},
    **{f"{module}.{name}": _unary(name, f"{name}_tpu")
       for module in ("jax.numpy", "jax.lax") for name in ("sinh", "cosh")},
    "jax.numpy.cumsum": MathFunction("cumsum", ("a", "axis", "dtype", "out"), fixed=_SCAN_DEFAULTS, helper="cumsum_tpu",
                                     rewrite="scan", lowers_on=_ROLLS),
    "jax.numpy.cumprod": MathFunction("cumprod", ("a", "axis", "dtype", "out"), fixed=_SCAN_DEFAULTS,
                                      helper="cumprod_tpu", rewrite="scan", lowers_on=_ROLLS),
    "jax.numpy.cumulative_sum": MathFunction("cumsum", ("x",), ("axis", "dtype", "include_initial"),
                                             {"dtype": (None,), "include_initial": (False,)}, "cumsum_tpu", "scan",
                                             lowers_on=_ROLLS),
    "jax.numpy.cumulative_prod": MathFunction("cumprod", ("x",), ("axis", "dtype", "include_initial"),
                                              {"dtype": (None,), "include_initial": (False,)}, "cumprod_tpu", "scan",
                                              lowers_on=_ROLLS),
    "jax.lax.cumsum": MathFunction("cumsum", ("operand", "axis", "reverse"), fixed={"reverse": (False,)},
                                   helper="cumsum_tpu", rewrite="lax_scan", lowers_on=_ROLLS),
    "jax.lax.cumprod": MathFunction("cumprod", ("operand", "axis", "reverse"), fixed={"reverse": (False,)},
                                    helper="cumprod_tpu", rewrite="lax_scan", lowers_on=_ROLLS),
    "jax.nn.elu": MathFunction("expm1", ("x", "alpha"), helper="expm1_tpu", rewrite="elu"),
    "jax.nn.celu": MathFunction("expm1", ("x", "alpha"), helper="expm1_tpu", rewrite="celu"),
    "jax.nn.selu": MathFunction("expm1", ("x",), helper="expm1_tpu", rewrite="selu"),
    "jax.nn.gelu": MathFunction("erfc", ("x", "approximate"), helper="erfc_tpu", rewrite="gelu"),
    **{name: _cannot("lgamma") for name in ("jax.lax.lgamma", "jax.scipy.special.gammaln")},
    **{name: _cannot("digamma") for name in ("jax.lax.digamma", "jax.scipy.special.digamma")},
    **{name: _cannot("sort") for name in ("jax.numpy.sort", "jax.numpy.argsort", "jax.lax.sort")},
    # Triton's walls (Mosaic TPU lowers these: its rows of the table do not list them).
    **{name: _unary("erf", "erf_triton") for name in ("jax.lax.erf", "jax.scipy.special.erf")},
    **{name: MathFunction("round", ("a", "decimals", "out"), fixed={"out": (None,)}, helper="round_triton",
                          rewrite="round") for name in ("jax.numpy.round", "jax.numpy.around")},
    "jax.lax.round": MathFunction("round", ("x", "rounding_method"), helper="round_triton", rewrite="lax_round"),
    **{f"jax.numpy.{name}": MathFunction(primitive, ("a", "axis", "out", "keepdims"), ("where",),
                                         {"out": (None,), "where": (None,)}, "bool_reduction_triton", "bool_reduction")
       for name, primitive in (("all", "reduce_and"), ("any", "reduce_or"))},
}
# Division: Triton divides float32 and float64 only (capabilities.DIVISION_REJECTED). `x / y` and these calls
# are rewritten where an operand visibly has such a dtype, or where a traceback proves the line fails.
DIVISIONS = frozenset({"jax.numpy.divide", "jax.numpy.true_divide"})
_NARROW_FLOATS = {"jax.numpy.bfloat16": "bfloat16", "jax.numpy.float16": "float16"}
DIVIDE_HELPER = "divide_triton"
# lax.round's rounding methods, by the names and values that spell them: whether ties go to even.
_HALF_TO_EVEN = {"jax.lax.RoundingMethod.TO_NEAREST_EVEN": True, "jax.lax.RoundingMethod.AWAY_FROM_ZERO": False,
                 1: True, 0: False}

# Why each rewrite computes what the function does, and how close it comes (docs/walls.md: measured with
# bench/math_walls.py against XLA's own function, on jax 0.10.2 and 0.12.0.1 on a CPU, kernels in
# interpret mode, and on a TPU v5e, jax 0.10.2, against the exact value).
_EXPM1 = ("a Taylor series near 0 and exp(x) - 1 elsewhere: within 4 ulp of XLA's expm1 on a CPU; on a TPU v5e "
          "7.9e-6 of the exact value, where XLA's own expm1 there is 1.1e-4 off")
HOW = {
    "expm1_tpu": _EXPM1,
    "erfc_tpu": "exp of a Chebyshev fit (Numerical Recipes' erfcc), not 1 - erf(x), which is 0 from x = 4: relative "
                "error at most 1e-5 of XLA's erfc down to erfc(9) = 4e-37 (1.2e-5 of the exact value on a TPU v5e)",
    "atan2": "arctan2(x, 1.0) is how XLA itself computes arctan: bit-identical to XLA's arctan on a CPU (jax 0.10.2 "
             "and 0.12.0.1) and on a TPU v5e",
    "arcsin_tpu": "2 * atan2(x, 1 + sqrt((1 - x) * (1 + x))), XLA's own expansion: within 2 ulp of XLA's arcsin on "
                  "a CPU, bit-identical to it on a TPU v5e",
    "arccos_tpu": "2 * atan2(sqrt((1 - x) * (1 + x)), 1 + x), XLA's own expansion: within 2 ulp of XLA's arccos on "
                  "a CPU, 3 on a TPU v5e",
    "sinh_tpu": "a Taylor series near 0 and exp(|x| - log 2) elsewhere: within 5 ulp of XLA's sinh on a CPU; 6.6e-6 of "
                "the exact value on a TPU v5e, where XLA's own sinh is 1.1e-4 off",
    "cosh_tpu": "exp(|x| - log 2) + 1 / (4 exp(|x| - log 2)): within 1 ulp of XLA's cosh on a CPU, as close as XLA's "
                "on a TPU v5e",
    "cumsum_tpu": "log2(n) rolls (pltpu.roll) and adds along the axis: exact for integers; floats are summed in "
                  "another order (within 24 ulp of XLA's cumsum on a TPU v5e, for 128 sums of values in [-3, 3])",
    "cumprod_tpu": "log2(n) rolls (pltpu.roll) and products along the axis: exact for integers; floats are "
                   "multiplied in another order (within 31 ulp of XLA's cumprod on a TPU v5e)",
    "elu": f"max(x, 0) + alpha * expm1(min(x, 0)), as jax's celu writes it: {_EXPM1}",
    "gelu": "x / 2 * erfc(-x / sqrt(2)), as jax writes it, erfc from exp (a Chebyshev fit): within 2.4e-7 of XLA's "
            "on a CPU, 6.9e-7 on a TPU v5e",
    "erf_triton": "the rational fit on [-4, 4] XLA uses for a float32 erf (Eigen's), bfloat16 and float16 in float32: "
                  "within 5 ulp (3e-7) of XLA's erf on a CPU, 1 ulp for float16, bit-identical for bfloat16",
    "round": "floor(|x|), plus 1 past the half (at it: always, or where floor(|x|) is odd for half to even), the "
             "sign put back: bit-identical "
             "to XLA's round on a CPU for every float32, bfloat16 and float16 value tried, -0.0, infinities and NaN "
             "included, decimals scaled as jnp.round scales",
    "bool_reduction": "a min (max) over 0/1 int32 values, one axis at a time: exact",
    "divide_triton": "divided in float32 and rounded back: exact (float32 holds more than twice their precision plus "
                     "two bits, so the quotient rounds as the narrow division's would), bit-identical to XLA's on a CPU",
}

# The rewrites HOW describes by their own name; the others by the helper they call.
_HOW_OF = {"atan2": "atan2", "elu": "elu", "celu": "elu", "selu": "elu", "gelu": "gelu", "round": "round",
           "lax_round": "round", "bool_reduction": "bool_reduction"}
_EXACT = ("atan2", "round", "lax_round", "bool_reduction")  # the safe rewrites: the result is XLA's, bit for bit
# The rewrites that write an expression, not a call: parenthesised where an operator holds the call.
_EXPRESSIONS = ("elu", "celu", "selu", "gelu")


class KernelMath(JaxTransform):
    def plan(self) -> None:
        for call in self.module.calls:
            applied = self.module.applied(call, FUNCTIONS)
            unlowered = self._unlowered_by(FUNCTIONS[applied[0]]) if applied is not None else frozenset()
            if not unlowered:
                continue
            name, function_node, shift = applied  # type: ignore[misc]
            function = FUNCTIONS[name]
            backends = self.rejecting_backends(call, unlowered)
            if not backends:
                note = self.unresolved_launch(call, unlowered)
                if note is not None:
                    self.report(call, Kind.MANUAL, f"{display(name)} {note}; if it does, {_failure(function, unlowered)}")
                continue
            if self.shared_with_xla(call):
                continue
            why = self._why_not(call, function, shift, backends)
            if why is None:
                self._fix(call, name, function, function_node, backends)
            elif why:
                self.report(call, Kind.MANUAL, f"{display(name)}: {_failure(function, backends)}; {why}")
        self._plan_values()
        self._plan_divisions()

    # -- a jax function reached as a value: a table's entry, a partial, a default (the link's `FlowFacts.called`) --

    def _values_called(self) -> Iterator[tuple[ast.Call, Called, MathFunction, frozenset[str]]]:
        """`values_called` of FUNCTIONS whose kernels cannot lower them, with those backends (gelu only
        where `approximate` may be False: its tanh form lowers)."""
        for call, value in self.values_called(FUNCTIONS):
            function = FUNCTIONS[value.function]
            backends = self.rejecting_backends(call, self._unlowered_by(function))
            if backends and not (function.rewrite == "gelu" and set(dict(value.keywords).get("approximate", ("True",)))
                                 == {"True"}):
                yield call, value, function, backends

    def _plan_values(self) -> None:
        """A [manual] finding at each call of `_values_called`: the tool rewrites a call that names the
        function, not a value that holds it, which other code may read too (XLA's readers of a table)."""
        for call, value, function, backends in self._values_called():
            short = value.function.rsplit(".", 1)[1]
            bound = "".join(f", {keyword}={literals[0]}" for keyword, literals in value.keywords
                            if len(literals) == 1 and literals[0] != "?" and keyword != "**")
            what = function.manual if function.rewrite is None else (
                f"the tool rewrites a call that names it, not a value that holds it: where only kernels read that "
                f"value, make it a function of the project, `def {short}_kernel(x): return "
                f"{display(value.function)}(x{bound})`, which the tool then rewrites in kernels; where XLA code reads "
                f"it too, give the kernel a value of its own")
            self.report(call, Kind.MANUAL, f"`{one_line(self.module.segment(call.func))}` may call "
                        f"{display(value.function)}, reached here as a value{value.held()}: "
                        f"{_failure(function, backends)}; {what}")

    # -- narrow float division (Triton) --

    def _plan_divisions(self) -> None:
        """`x / y` on bfloat16 or float16 in a Triton kernel -> divide_triton(x, y): one fix per outermost
        division (the ones inside it are rewritten in its text); `x // y` gets a [manual] finding."""
        rejecting = {backend: division_rejected(backend, self.settings.jax_version) for backend in REJECTERS}
        rejecting = {backend: dtypes for backend, dtypes in rejecting.items() if dtypes}
        if not rejecting or "float16" not in self.module.text and not self.analysis.proven.get(self.rule.code):
            return  # no dtype visible ("bfloat16" says float16 too), no traceback
        # A proven line that holds a math call this rule rewrites failed on that call: its divisions are
        # not proven (a division that fails too is placed by the next traceback).
        math_lines = {line for call in self.module.calls if self.matches(call)
                      for line in range(call.lineno, call.end_lineno + 1)}  # type: ignore[operator]
        proven_lines = self.analysis.proven.get(self.rule.code, frozenset()) - math_lines
        found: dict[ast.AST, frozenset[str]] = {}
        for node in self.module.parent:  # every node the module's index walked
            if node.__class__ is not ast.BinOp and node.__class__ is not ast.Call:
                continue
            operands = self._division_operands(node)
            if operands is None:
                continue
            visible = {self._narrow_float(operand) for operand in operands} - {None}
            proven = any(node.lineno <= line <= node.end_lineno for line in proven_lines)  # type: ignore[attr-defined]
            backends = frozenset(backend for backend, dtypes in rejecting.items() if proven or visible & dtypes)
            backends = backends if self.settings.scope is Scope.ALL or proven else backends & self._backends_at(node)
            if backends:
                found[node] = backends
        for node, backends in found.items():
            if self._inside(node, found):
                continue
            error = f"bfloat16 and float16 division has no lowering in {_names(backends)} kernels: \"unsupported " \
                    "types\" (of bf16 or f16 operands)"
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
                self.report(node, Kind.MANUAL, f"x // y: {error}; not rewritten: in float32 jnp's floor division "
                            "rounds, which Triton does not lower either: write jnp.floor(x.astype(jnp.float32) / "
                            "y.astype(jnp.float32)).astype(x.dtype) where its result will do")
                continue
            fix = FixPlan()
            helper = self.use_helper(fix, reference_helper(DIVIDE_HELPER))
            self.replace(fix, node, self._divided(node, found, helper))
            if isinstance(node, ast.Call):
                self.forget_imports(fix, node.func)
            self.report(node, Kind.FIXED, f"{'x / y' if isinstance(node, ast.BinOp) else display(self._division_name(node))} "
                        f"-> {helper}() ({error}); {HOW[DIVIDE_HELPER]}", fix, Applicability.SAFE)

    def _division_operands(self, node: ast.AST) -> Optional[list[ast.expr]]:
        """The dividend and divisor of `a / b`, `a // b`, jnp.divide(a, b), jnp.true_divide(a, b)."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv)):
            return [node.left, node.right]
        if isinstance(node, ast.Call) and self._division_name(node) and len(node.args) == 2 and not node.keywords \
                and not has_star(node):
            return list(node.args)
        return None

    def _division_name(self, call: ast.Call) -> Optional[str]:
        return next(iter(sorted(self.module.qualified_names(call.func) & DIVISIONS)), None)

    def _narrow_float(self, value: ast.expr, depth: int = 8) -> Optional[str]:
        """"bfloat16" or "float16" where the source shows the value has it: `.astype(jnp.bfloat16)`,
        `jnp.bfloat16(x)`, `.astype("float16")`, a name bound once to such a value, or arithmetic on such
        values (and Python numbers, which take their dtype)."""
        if depth == 0:
            return None
        if isinstance(value, ast.Name):
            bindings = self.module.bindings(value)
            value = bindings[0].value if len(bindings) == 1 and bindings[0].value is not None else value
        if isinstance(value, ast.UnaryOp):
            return self._narrow_float(value.operand, depth - 1)
        operands = [value.left, value.right] if isinstance(value, ast.BinOp) and isinstance(
            value.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)) else self._division_operands(value)
        if operands is not None:
            dtypes = {self._narrow_float(operand, depth - 1) for operand in operands
                      if not (isinstance(operand, ast.Constant) and isinstance(operand.value, (int, float)))}
            return dtypes.pop() if len(dtypes) == 1 else None
        if not isinstance(value, ast.Call):
            return None
        if isinstance(value.func, ast.Attribute) and value.func.attr == "astype" and len(value.args) == 1:
            named = value.args[0]
        else:
            named = value.func
        if isinstance(named, ast.Constant) and named.value in ("bfloat16", "float16"):
            return named.value
        return next((_NARROW_FLOATS[name] for name in self.module.qualified_names(named) if name in _NARROW_FLOATS),
                    None)

    def _backends_at(self, node: ast.AST) -> frozenset[str]:
        """The backends the kernel holding `node` may be lowered for (an op is where its first name is)."""
        name = next((inner for inner in ast.walk(node) if isinstance(inner, (ast.Name, ast.Call))), None)
        return frozenset() if name is None else self.kernels.backends_of(name)

    def _inside(self, node: ast.AST, found: dict) -> bool:
        holder = self.module.parent.get(node)
        while holder is not None:
            if holder in found:
                return True
            holder = self.module.parent.get(holder)
        return False

    def _divided(self, node: ast.AST, found: dict, helper: str) -> str:
        """divide_triton(a, b) for the division `node`, the divisions found inside a and b rewritten too."""
        operands = self._division_operands(node) or []
        return f"{helper}({', '.join(self._with_divisions(operand, found, helper) for operand in operands)})"

    def _with_divisions(self, expr: ast.expr, found: dict, helper: str) -> str:
        """The source of `expr` with each outermost division found inside it rewritten."""
        if expr in found:
            return self._divided(expr, found, helper)
        start, _ = self.module.span(expr)
        text = self.module.segment(expr)
        inner = [node for node in ast.walk(expr) if node in found
                 and not any(other in found for other in self._between(node, expr))]
        for node in sorted(inner, key=lambda n: self.module.span(n)[0], reverse=True):  # from the end: offsets hold
            begin, end = self.module.span(node)
            text = text[:begin - start] + self._divided(node, found, helper) + text[end - start:]
        return text

    def _between(self, node: ast.AST, top: ast.AST) -> list[ast.AST]:
        """The nodes strictly between `node` and its ancestor `top`."""
        chain, holder = [], self.module.parent.get(node)
        while holder is not None and holder is not top:
            chain.append(holder)
            holder = self.module.parent.get(holder)
        return chain

    def _unlowered_by(self, function: MathFunction) -> frozenset[str]:
        """The backends whose kernels have no lowering for the function's primitive on the target jax."""
        return frozenset(backend for backend in REJECTERS
                         if function.primitive in math_unlowered(backend, self.settings.jax_version))

    def matches(self, call: ast.Call) -> bool:
        applied = self.module.applied(call, FUNCTIONS)
        if applied is None:
            return any(found is call for found, *_ in self._values_called())
        return bool(self._unlowered_by(FUNCTIONS[applied[0]]))

    def _why_not(self, call: ast.Call, function: MathFunction, shift: int, backends: frozenset[str]) -> Optional[str]:
        """Why the call gets no rewrite (None: it gets one; "": it needs none, as gelu's tanh form)."""
        if function.rewrite is None:
            return function.manual
        if not backends & function.lowers_on:
            return (f"{function.helper}'s pltpu.roll has no {_names(backends)} lowering either: compute it outside the "
                    f"kernel, or as a loop over the axis")
        if shift:
            return "a functools.partial of it: write the call out where it runs, and run jax-codemod again"
        if has_star(call):
            return "its arguments come from *args or **kwargs, which the rewrite cannot read"
        known = {*function.positional, *function.keywords, *function.fixed}
        extra = [str(keyword.arg) for keyword in call.keywords if keyword.arg not in known]
        if len(call.args) > len(function.positional) or extra:
            return f"it passes arguments the rewrite does not take ({', '.join(extra) or 'by position'})"
        for parameter, allowed in function.fixed.items():
            argument = self._argument(call, function, parameter)
            if argument is not None and _literal(argument) not in allowed:
                return f"{parameter}={one_line(self.module.segment(argument))} has no rewrite here"
        if function.rewrite == "gelu":
            approximate = self._argument(call, function, "approximate")
            if approximate is None or _literal(approximate) is True:
                return ""  # the tanh form, which lowers
            if _literal(approximate) is not False:
                return (f"approximate={one_line(self.module.segment(approximate))} is not a literal: where it is "
                        f"False, write 0.5 * x * erfc_tpu(-x * {SQRT_HALF}) (erfc_tpu: codemods/helpers_source.py)")
        if function.rewrite == "round":
            decimals = self._argument(call, function, "decimals")
            value = 0 if decimals is None else _literal(decimals)
            if type(value) is not int or value < 0:
                return (f"decimals={one_line(self.module.segment(decimals))} is not a literal int from 0 up: write "
                        f"round_triton(x, decimals) where it is one (codemods/helpers_source.py)")
        if function.rewrite == "lax_round" and self._half_to_even(call, function) is None:
            method = self._argument(call, function, "rounding_method")
            return (f"rounding_method={one_line(self.module.segment(method))} is not a literal RoundingMethod: write "
                    f"round_triton(x, half_to_even=...) (codemods/helpers_source.py)")
        if function.rewrite == "scan":  # jnp's scans default to the flattened array (lax's to axis 0)
            axis = self._argument(call, function, "axis")
            if axis is None or is_none(axis):
                return "without an axis it scans the flattened array, which a kernel cannot reshape: pass the axis"
        return None

    def _half_to_even(self, call: ast.Call, function: MathFunction) -> Optional[bool]:
        """Whether lax.round's rounding_method sends ties to even (None: not a literal the rule reads)."""
        method = self._argument(call, function, "rounding_method")
        if method is None:
            return False  # lax.round's default, AWAY_FROM_ZERO
        spelled = [_HALF_TO_EVEN[name] for name in self.module.qualified_names(method) if name in _HALF_TO_EVEN]
        value = _literal(method)
        if type(value) is int and value in _HALF_TO_EVEN:
            spelled.append(_HALF_TO_EVEN[value])
        return spelled[0] if len(set(spelled)) == 1 else None

    def _argument(self, call: ast.Call, function: MathFunction, parameter: str) -> Optional[ast.expr]:
        position = function.positional.index(parameter) if parameter in function.positional else None
        found: Optional[Argument] = find_arg(call, position, (parameter,))
        return None if found is None else value_of(found)

    def _fix(self, call: ast.Call, name: str, function: MathFunction, function_node: ast.expr,
             backends: frozenset[str]) -> None:
        fix = FixPlan()
        helper = self.use_helper(fix, reference_helper(function.helper)) if function.helper else ""
        arguments = {parameter: self._argument(call, function, parameter)
                     for parameter in (*function.positional, *function.keywords)}
        # Each argument written as a mark, filled in from the call's text as the fixes inside it left it
        # (`jnp.cumsum(jnp.expm1(x))`: the inner rewrite kept, not the argument as first written)
        marked = [(f"\x00{number}\x00", node) for number, node in enumerate(filter(None, arguments.values()))]
        self._marks = {id(node): mark for mark, node in marked}
        try:
            text, what = REWRITES[function.rewrite](self, fix, call, helper, arguments)
        finally:
            self._marks = {}
        compound = function.rewrite in _EXPRESSIONS and not _bare(call, self.module.parent)
        template = f"({text})" if compound else text
        self.rewrite(fix, call, lambda code: _filled(template, marked, call, code, self._code))
        self.forget_imports(fix, function_node)
        exact = function.rewrite in _EXACT
        how = HOW[_HOW_OF.get(function.rewrite, function.helper)]  # type: ignore[arg-type]
        still = backends - function.lowers_on  # a launch of either backend: fixed for Mosaic TPU, not for Triton
        self.report(call, Kind.FIXED, f"{display(name)} -> {what} ({_failure(function, backends)}); {how}"
                    + ("" if exact else "; numerics change")
                    + (f"; {_names(still)} cannot lower {function.helper} either "
                       f"(\"{UNIMPLEMENTED[TRITON].format('roll')}\")" if still else ""), fix,
                    Applicability.SAFE if exact else Applicability.UNSAFE)

    # -- the rewrites: (self, fix, call, helper, arguments) -> (the call's new text, what it is) --

    _marks: dict[int, str] = {}  # see `_fix`

    def _code(self, node: Optional[ast.expr]) -> str:
        assert node is not None
        return self._marks.get(id(node)) or self.module.segment(node)

    def _numpy(self, fix: FixPlan) -> str:
        """The module's name for jax.numpy, imported as jnp where it has none of its own (as the helpers
        import it: a module that reaches it only as `jax.numpy` gets jnp from them too)."""
        name = jax_numpy_name(self.module)
        if name is None or name == "jax.numpy":
            spec = ("jax.numpy", None, "jnp")
            if spec not in fix.imports_to_add:
                fix.imports_to_add.append(spec)
            return "jnp"
        return name

    def _atan2(self, fix, call, helper, arguments):
        x, func = self._code(arguments["x"]), call.func
        if isinstance(func, ast.Attribute):  # through the call's own module: lax.atan2 or jnp.arctan2
            owner = self._code(func.value)
            function = "atan2" if "jax.lax" in self.module.qualified_names(func.value) else "arctan2"
        else:
            owner, function = self._numpy(fix), "arctan2"
        return f"{owner}.{function}({x}, 1.0)", f"{function}(x, 1.0)"

    def _helper(self, fix, call, helper, arguments):
        return f"{helper}({self._code(arguments['x'])})", f"{helper}()"

    def _scan(self, fix, call, helper, arguments, default_axis: Optional[str] = None):
        first, axis = next(iter(arguments.values())), arguments.get("axis")
        return f"{helper}({self._code(first)}, {default_axis if axis is None else self._code(axis)})", f"{helper}()"

    def _lax_scan(self, fix, call, helper, arguments):
        return self._scan(fix, call, helper, arguments, default_axis="0")

    def _elu(self, fix, call, helper, arguments, alpha_inside: bool = False):
        x, alpha, numpy = self._code(arguments["x"]), arguments.get("alpha"), self._numpy(fix)
        low = f"{numpy}.minimum({x}, 0.0)"
        what = f"max(x, 0) + alpha * {helper}(min(x, 0){' / alpha' if alpha_inside else ''})"
        if alpha is None:
            return f"{numpy}.maximum({x}, 0.0) + {helper}({low})", what
        factor = self._code(alpha) if isinstance(alpha, ast.Constant) else atom(alpha, self._code(alpha))
        inner = f"{low} / {factor}" if alpha_inside else low
        return f"{numpy}.maximum({x}, 0.0) + {factor} * {helper}({inner})", what

    def _celu(self, fix, call, helper, arguments):
        return self._elu(fix, call, helper, arguments, alpha_inside=True)

    def _selu(self, fix, call, helper, arguments):
        x, numpy = self._code(arguments["x"]), self._numpy(fix)
        return (f"{SELU_SCALE} * ({numpy}.maximum({x}, 0.0) + {SELU_ALPHA} * {helper}({numpy}.minimum({x}, 0.0)))",
                f"scale * (max(x, 0) + alpha * {helper}(min(x, 0)))")

    def _round(self, fix, call, helper, arguments):
        decimals = arguments["decimals"]
        extra = "" if decimals is None or _literal(decimals) == 0 else f", {self._code(decimals)}"
        return f"{helper}({self._code(arguments['a'])}{extra})", f"{helper}()"

    def _lax_round(self, fix, call, helper, arguments):
        even = self._half_to_even(call, FUNCTIONS["jax.lax.round"])
        return (f"{helper}({self._code(arguments['x'])}{'' if even else ', half_to_even=False'})",
                f"{helper}({'' if even else 'half_to_even=False'})")

    def _bool_reduction(self, fix, call, helper, arguments):
        every = self.module.applied(call, FUNCTIONS)[0] == "jax.numpy.all"  # type: ignore[index]
        extra = "".join(f", {parameter}={self._code(arguments[parameter])}" for parameter in ("axis", "keepdims")
                        if arguments[parameter] is not None)
        return (f"{helper}({self._code(arguments['a'])}{extra}{'' if every else ', every=False'})",
                f"{helper}({'' if every else 'every=False'})")

    def _gelu(self, fix, call, helper, arguments):
        x = atom(arguments["x"], self._code(arguments["x"]))
        return f"0.5 * {x} * {helper}(-{x} * {SQRT_HALF})", f"x / 2 * {helper}(-x / sqrt(2))"


REWRITES: dict[str, Callable] = {
    "atan2": KernelMath._atan2, "helper": KernelMath._helper, "scan": KernelMath._scan,
    "lax_scan": KernelMath._lax_scan, "elu": KernelMath._elu, "celu": KernelMath._celu, "selu": KernelMath._selu,
    "gelu": KernelMath._gelu, "round": KernelMath._round, "lax_round": KernelMath._lax_round,
    "bool_reduction": KernelMath._bool_reduction,
}


def _filled(template: str, marked: list[tuple[str, ast.expr]], call: ast.Call, code: str,
            original: Callable[[ast.expr], str]) -> str:
    """The rewrite's text with each argument's mark replaced by that argument's text in `code`, the
    call as the edits inside it left it (found again by position or keyword); as first written where
    the edited call cannot be read so."""
    wrapped = f"({code})"
    try:
        edited = ast.parse(wrapped, mode="eval").body
    except SyntaxError:
        edited = None
    for mark, node in marked:
        found = None
        if isinstance(edited, ast.Call):
            position = next((index for index, arg in enumerate(call.args) if value_of(arg) is node), None)
            keyword = next((kw.arg for kw in call.keywords if kw.value is node), None)
            if position is not None and position < len(edited.args):
                found = value_of(edited.args[position])
            elif keyword is not None:
                found = next((kw.value for kw in edited.keywords if kw.arg == keyword), None)
        text = ast.get_source_segment(wrapped, found) if found is not None else None
        template = template.replace(mark, text if text is not None else original(node))
    return template


def _failure(function: MathFunction, backends: frozenset[str]) -> str:
    """`erfc has no lowering in Mosaic TPU kernels: "<its error>"`, each backend with its own error."""
    return ", nor ".join(f"in {BACKEND_NAMES[backend]} kernels: \"{UNIMPLEMENTED[backend].format(function.primitive)}\""
                         for backend in REJECTERS if backend in backends).join(
        (f"{function.primitive} has no lowering ", ""))


def _names(backends: frozenset[str]) -> str:
    return " and ".join(BACKEND_NAMES[backend] for backend in REJECTERS if backend in backends)


_LITERAL_ABSENT = object()


def _literal(node: ast.expr) -> object:
    """The value a constant writes (None, True, False, a number); a marker for anything else."""
    return node.value if isinstance(node, ast.Constant) else _LITERAL_ABSENT


def _bare(call: ast.Call, parent: dict) -> bool:
    """Whether an expression may stand where `call` stands without parentheses: a whole statement's or
    assignment's value, an argument, an element, a lambda's body."""
    holder = parent.get(call)
    if isinstance(holder, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Expr, ast.keyword)):
        return True
    if isinstance(holder, ast.Call):
        return call in holder.args
    return isinstance(holder, (ast.Tuple, ast.List)) or (isinstance(holder, ast.Lambda) and holder.body is call)


def _locate(rule: Rule, file, line: int) -> Optional[tuple[int, int]]:
    """`explain`: the lines of the calls on `line` this rule rewrites or reports, and of its divisions
    (a traceback proves a division fails: the dtype it names need not show in the source)."""
    module = file.module
    transform = KernelMath(rule, file)
    nodes = [node for node in ast.walk(module.tree) if getattr(node, "lineno", 0) <= line <= (getattr(
        node, "end_lineno", 0) or 0) and (transform._division_operands(node) is not None or (
            isinstance(node, ast.Call) and rule.matches(rule, file, node)))]  # type: ignore[misc]
    return (min(n.lineno for n in nodes), max(n.end_lineno for n in nodes)) if nodes else None  # type: ignore[attr-defined]


RULE = Rule(
    code="JAX007",
    name="kernel-math",
    summary="Compute math Pallas Mosaic TPU kernels (expm1, erfc, arctan, cumsum, ...) and Triton kernels (erf, "
            "round, jnp.all/any, ...) cannot lower from what they lower.",
    what="""
        Inside Pallas kernel bodies that can be lowered for Mosaic TPU, rewrites calls of functions whose
        primitive Mosaic TPU has no lowering for on the target jax (the table in codemods/capabilities.py,
        MATH_UNLOWERED): `jnp.arctan(x)` and `lax.atan(x)` become `arctan2(x, 1.0)`, which is how XLA computes
        arctan (bit-identical: a safe fix). The others become helpers inserted once per module (or imported
        from --helpers-module) that compute the function from exp, sqrt, atan2 and pltpu.roll, which Mosaic
        TPU lowers: `expm1_tpu` (jnp.expm1, lax.expm1, and jax.nn.elu, celu and selu written out around
        it), `erfc_tpu` (lax.erfc, jax.scipy.special.erfc, and jax.nn.gelu(approximate=False) written out
        around it), `arcsin_tpu`, `arccos_tpu`, `sinh_tpu`, `cosh_tpu`, and `cumsum_tpu`/`cumprod_tpu`
        for jnp.cumsum, cumprod, cumulative_sum, cumulative_prod, lax.cumsum and lax.cumprod along an axis
        (a scan of log2(n) rolls: exact for integers). Those fixes are unsafe (applied with
        --unsafe-fixes): the numerics change, within the errors each finding names. lgamma, digamma and
        sort (jnp.sort, jnp.argsort, lax.sort) have no such rewrite: a [manual] finding names the wall.
        A call the rewrite cannot read (a partial, *args, a scan without an axis, reverse=True, a dtype=)
        gets a [manual] finding too, and so does a kernel's call of such a function reached as a value, in
        any module (`ACTS[name](x)` of a table `{"elu": jax.nn.elu}`, a partial's keyword, a default): the
        whole-program link names the function and the table's entry or partial that holds it, which the
        tool does not rewrite (XLA code may read it too); written as a function of the project that calls
        it, it is rewritten in kernels.

        In kernel bodies that can be lowered for Triton (its CompilerParams, or a plain pallas_call, which
        a GPU lowers with Triton), the table's Triton row decides: `lax.erf` and `jax.scipy.special.erf`
        become `erf_triton` (XLA's own float32 fit; unsafe), `jnp.round`/`jnp.around` (a literal
        decimals from 0) and `lax.round` (a literal rounding method) become `round_triton` (floor-based,
        bit-identical to XLA's round: safe), `jnp.all`/`jnp.any` become `bool_reduction_triton` (a min or
        max over 0/1 int32 values: safe), erfc and gelu(approximate=False) get erfc_tpu as above (its exp
        lowers there too); cumprod has no Triton rewrite (cumprod_tpu's pltpu.roll does not lower there):
        a [manual] finding, or, for a launch that may reach either backend, the Mosaic TPU fix with a note
        that Triton still cannot lower it. A division (`x / y`, jnp.divide, jnp.true_divide) of bfloat16 or
        float16 values in a Triton kernel becomes `divide_triton(x, y)`, divided in float32 and rounded
        back (exact: safe), where an operand visibly has the dtype (`.astype(jnp.bfloat16)`, a name bound
        to one) or a traceback proves the line fails (`jax-codemod explain`); `x // y` on them gets a
        [manual] finding.
    """,
    why="""
        Mosaic TPU raises "Unimplemented primitive in Pallas TPU lowering for tc: expm1" (erfc, atan, asin,
        acos, sinh, cosh, cumsum, cumprod, lgamma, digamma, sort) on jax 0.10.2 and 0.12.0.1, also when
        the call is jax.nn.elu or gelu(approximate=False); Triton raises "Unimplemented primitive in Pallas
        Triton lowering: erf" (erfc, round, reduce_and, reduce_or, cumprod) on both, and "unsupported types:
        tensor<8x128xbf16> and tensor<8x128xbf16>" on a bfloat16 or float16 division. Outside kernels XLA computes these functions
        itself, more accurately, so that code and kernels launched only for other backends are left alone
        (unless --scope all); a jax release that lowers a primitive gets no finding for it.
    """,
    example="""
        o_ref[...] = jnp.arctan(x_ref[...])
        ->  o_ref[...] = jnp.arctan2(x_ref[...], 1.0)                     (safe)
        o_ref[...] = jax.nn.elu(x_ref[...])
        ->  o_ref[...] = jnp.maximum(x_ref[...], 0.0) + expm1_tpu(jnp.minimum(x_ref[...], 0.0))   (unsafe)
    """,
    # The names of FUNCTIONS, each found by one of these ("arctan" holds no "atan"); the common ones whole,
    # so that `sorted(`, `relu` and `interface` do not make a kernel file parse (Python's own all( and any(
    # do: a kernel file that says them is parsed). A division is rewritten where its operand's dtype
    # shows (`bfloat16` or `float16` says "float16"; a traceback's proven line needs no word).
    words=(b"float16", b"expm1", b"erfc", b"atan", b"arctan", b"asin", b"arcsin", b"acos", b"arccos", b"sinh", b"cosh",
           b"cumsum", b"cumprod", b"cumulative_", b"lgamma", b"gammaln", b"digamma"),
    whole_words=(b"sort", b"argsort", b"elu", b"selu", b"celu", b"gelu", b"erf", b"round", b"around", b"all", b"any"),
    kernel_scoped=True,
    check=KernelMath.check,
    matches=KernelMath.matches_call,
    locate=_locate,
)
