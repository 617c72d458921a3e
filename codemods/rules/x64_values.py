"""JAX005: 64-bit values in Mosaic TPU kernels, written with the 32-bit dtypes jax uses without x64."""

from __future__ import annotations

import ast
import functools
from typing import Iterator, Optional

from codemods.analysis.dtype_arguments import dtype_argument
from codemods.analysis.kernel_scope import MOSAIC_TPU, describe_backends
from codemods.analysis.module import FUNCTIONS, ModuleIndex, ordered_arguments
from codemods.analysis.module_helpers import reference_helper
from codemods.analysis.names import display, find_arg, has_double_star, has_star, one_line, value_of
from codemods.analysis.presets import spell_dtype
from codemods.analysis.value_containers import constant_index
from codemods.analysis.visible_dtypes import (
    FLOATS, NARROWED, SIGNED, UNSIGNED, dtype_named, dtypes_named, parameter_dtypes, value_dtype,
)
from codemods.analysis.x64_switch import x64_switch
from codemods.base import JaxTransform
from codemods.capabilities import x64_rejection
from codemods.engine.diagnostics import Applicability, Kind
from codemods.engine.fixes import FixPlan
from codemods.engine.rule import ParsedFile, Rule
from codemods.settings import Scope

# Made with jax's default float (float64 under x64) when no dtype is given.
_DEFAULT_FLOAT = frozenset({"jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.empty"})
ARANGE = "jax.numpy.arange"
_ARGMAX = {"jax.numpy.argmax": "argmax", "jax.numpy.argmin": "argmin"}
# Reductions whose integer (or bool) operand is summed as jax's default int (int64 under x64).
_INTEGER_REDUCTIONS = frozenset({"jax.numpy.sum", "jax.numpy.prod"})
def enables_x64(module: ModuleIndex) -> bool:
    """Whether the module may turn jax_enable_x64 on (see x64_switch)."""
    return x64_switch(module) is not None


class X64Values(JaxTransform):
    def plan(self) -> None:
        for call in self.module.calls:
            backends = self._backends(call)
            if not backends:
                continue
            proven = self._proven_kernel(call)
            sites = list(self._explicit(call, proven=proven))
            implicit = list(self._implicit(call))
            if implicit and (self._module_enables_x64 or proven):
                where = "" if proven else self._x64_where()
                sites += [(source, case, (f"{message}{where}", fix, applicability))
                          for source, case, (message, fix, applicability) in implicit]
            # A helper plain XLA code calls too keeps its 64-bit values there: reported, not rewritten.
            if sites and not self.shared_with_xla(call):
                for source, case, planned in sites:
                    self._report_fix(source, case, planned, backends)
        if self._module_enables_x64 or self.analysis.proven.get(self.rule.code):
            self._plan_launch_operands()  # a traceback's 64-bit error proves x64 on, in the whole process

    @functools.cached_property
    def _module_enables_x64(self) -> bool:
        """Whether x64 may be on where this module's kernels run: it turns it on, or another module of
        the project does (the flag is process-wide)."""
        return self._turns_x64_on_here or bool(self.analysis.facts.x64_elsewhere)

    @functools.cached_property
    def _turns_x64_on_here(self) -> bool:
        return enables_x64(self.module)

    def _x64_where(self) -> str:
        """Where another module turns x64 on, said in a finding whose fix only x64 calls for."""
        if not self.analysis.facts.x64_elsewhere or self._turns_x64_on_here:
            return ""
        name, line = self.analysis.facts.x64_elsewhere
        return f"; x64 is turned on in `{name}` line {line}"

    def _backends(self, call: ast.Call):
        """The backends of the kernel `call` runs in, if Mosaic TPU is among them (it rejects 64-bit values)."""
        if self._proven_kernel(call):  # the traceback is Mosaic TPU's: the kernel is lowered for it
            return frozenset({MOSAIC_TPU})
        if self.settings.scope is Scope.ALL:
            return frozenset({MOSAIC_TPU}) | self.kernels.backends_of(call)
        backends = self.kernels.backends_of(call)
        return backends if MOSAIC_TPU in backends else frozenset()

    def _proven_kernel(self, call: ast.AST) -> bool:
        """A traceback proved x64 on in the function around `call` (`explain`: its line is in it)."""
        lines = self.analysis.proven.get(self.rule.code, frozenset())
        function = self.module.enclosing.get(call)
        return function is not None and any(function.lineno <= line <= function.end_lineno for line in lines)

    def _report_fix(self, source: ast.AST, case: str, fix: "Planned", backends) -> None:
        message, planned, applicability = fix
        error = x64_rejection(MOSAIC_TPU, case, self.settings.jax_version)
        message += f" (with jax_enable_x64, Mosaic TPU kernels reject it: \"{error}\")"
        others = backends - {MOSAIC_TPU}
        if planned is not None and others:
            message += (f"; forced by Mosaic TPU: under x64 {describe_backends(others)} now computes it in 32 bits "
                        "too")
            applicability = Applicability.UNSAFE
        kind = Kind.MANUAL if planned is None else Kind.FIXED
        self.report(source, kind, message, planned, applicability)

    # -- values XLA code makes and hands to a Mosaic TPU launch (scalar prefetch, operands) --

    def _plan_launch_operands(self) -> None:
        """Under x64, a 64-bit operand of a Mosaic TPU launch fails: the lowering, where the kernel
        computes with it ("64-bit types are not supported"), and Mosaic's compiler on the chip, read or
        not (bench/chip/x64_operands_v5e.txt). The values XLA code in this module makes 64-bit for the
        operands (megablox's group metadata: a `jnp.arange(n)` through `repeat`, `roll` and a returned
        tuple) get the dtype they have without x64; a value the tool cannot
        rewrite is named at the launch."""
        for source, (case, planned, operands) in self._operand_sites().items():
            self._report_operand(source, case, planned, operands)

    def _operand_sites(self) -> dict[ast.AST, tuple[str, "Planned", list[tuple[ast.Call, Optional[int], ast.expr]]]]:
        """Each value 64-bit under x64 that XLA code makes for launch operands: its case, planned fix,
        and the (launch, position, operand) it reaches."""
        reaches: dict[ast.AST, tuple[str, "Planned", list[tuple[ast.Call, Optional[int], ast.expr]]]] = {}
        for launch in self._tpu_launches():
            for index, operand in enumerate(launch.args):
                # From a `*operands` on, an operand's place is not known.
                starred = any(isinstance(argument, ast.Starred) for argument in launch.args[:index + 1])
                position = None if starred else index
                for maker in self._makers(operand):
                    if self.kernels.kernel_of(maker) is not None:
                        continue  # kernel code: the walk over the module's calls has it
                    for source, case, planned in [*self._explicit(maker, "XLA code"), *self._implicit(maker, kernel=False)]:
                        reaches.setdefault(source, (case, planned, []))[2].append((launch, position, operand))
        return reaches

    def _report_operand(self, source: ast.AST, case: str, planned: "Planned",
                        operands: list[tuple[ast.Call, Optional[int], ast.expr]]) -> None:
        message, fix, applicability = planned
        error = x64_rejection(MOSAIC_TPU, "float64 value" if case == "float64 value" else "int64 value",
                              self.settings.jax_version)
        rejected = f"with jax_enable_x64, Mosaic TPU kernels reject a 64-bit operand: \"{error}\"{self._x64_where()}"
        lines: dict[str, list[int]] = {}
        for launch, position, operand in operands:
            lines.setdefault(f"{_operand(position)} (`{one_line(self.module.segment(operand))}`)", []).append(
                launch.lineno)
        named = "; ".join(f"{operand} of the Mosaic TPU launch{'es' if len(at) > 1 else ''} at "
                          f"line{'s' if len(at) > 1 else ''} {', '.join(map(str, sorted(set(at))))}"
                          for operand, at in lines.items())
        if fix is None:  # named at each launch, where the operand is
            line = self.module.position(source)[0]
            for launch, position, operand in operands:
                self.report(operand, Kind.MANUAL, f"{_operand(position)} of this Mosaic TPU launch is 64-bit under x64, "
                            f"made at line {line}: {message} ({rejected})", None, applicability)
            return
        self.report(source, Kind.FIXED, f"{message}; it reaches {named} (the XLA code between now computes it in 32 "
                    f"bits under x64 too, as without x64; {rejected})", fix, applicability)

    def _tpu_launches(self) -> Iterator[ast.Call]:
        """The calls of what a Mosaic TPU launcher returns: `pl.pallas_call(body, ...)(x)`, `run =
        pl.pallas_call(...)` then `run(x)`, and the same of a def that returns such a launcher for the
        body it is given (`def prefetching(kernel, n): return pl.pallas_call(kernel, ...)`)."""
        helpers = [helper for helper, (_, backends) in self.kernels.launch_helpers.items()
                   if MOSAIC_TPU in backends and isinstance(helper, ast.FunctionDef)
                   and any(isinstance(value, ast.Call) and self.module.callee(value, _PALLAS_CALL)
                           for value in _returned(helper))]
        launchers = [call for call in self.module.calls if self.module.callee(call, _PALLAS_CALL) is not None
                     and self._lowered_for_mosaic_tpu(call)]
        launchers += [parent for helper in helpers for reference in self.module.references_to(helper)
                      if isinstance(parent := self.module.parent.get(reference), ast.Call) and parent.func is reference]
        for launcher in launchers:
            parent = self.module.parent.get(launcher)
            if isinstance(parent, ast.Call) and parent.func is launcher:
                yield parent
            binding = self.module.binding_of_value(launcher)
            for reference in binding.references if binding is not None else ():
                parent = self.module.parent.get(reference)
                if isinstance(parent, ast.Call) and parent.func is reference:
                    yield parent

    def _lowered_for_mosaic_tpu(self, launcher: ast.Call) -> bool:
        """Whether the body `pl.pallas_call` is given (by name, or partial of one) is lowered for Mosaic TPU."""
        body = find_arg(launcher, 0, ("kernel",))
        body = value_of(body) if body is not None else None
        if isinstance(body, ast.Call) and self.module.applied(body, _PARTIAL) and body.args:
            body = body.args[0]  # functools.partial(kernel, ...)
        if not isinstance(body, ast.Name):
            return False
        return any(MOSAIC_TPU in self.kernels.backends.get(binding.node, frozenset())
                   for binding in self.module.bindings(body))

    def _makers(self, operand: ast.expr) -> Iterator[ast.Call]:
        """The calls in this module whose result's dtype `operand`'s dtype is made of: back through
        names, tuples (a function's returned tuple unpacked), arithmetic, and the jnp functions whose
        result has their operands' dtype (`concatenate`, `repeat`, `where`, `cumsum`, ...). A value
        from elsewhere (a parameter, an unknown call) ends the walk."""
        seen: set[ast.AST] = set()
        pending: list[ast.AST] = [operand]
        while pending:
            node = pending.pop()
            if node in seen:
                continue
            seen.add(node)
            if isinstance(node, ast.Call):
                yield node
            pending += self._dtype_sources(node)

    def _dtype_sources(self, node: ast.AST) -> list[ast.AST]:
        if isinstance(node, ast.Name):
            return [value for binding in self.module.bindings(node) for value in self._bound_values(binding)]
        if isinstance(node, (ast.Tuple, ast.List)):
            return list(node.elts)
        if isinstance(node, (ast.Starred, ast.Subscript)):
            return [node.value]
        if isinstance(node, ast.BinOp):
            return [node.left, node.right]
        if isinstance(node, ast.UnaryOp):
            return [node.operand]
        if isinstance(node, ast.IfExp):
            return [node.body, node.orelse]
        if isinstance(node, ast.Attribute) and node.attr == "T":
            return [node.value]
        if not isinstance(node, ast.Call) or self._dtype_arguments(node):
            return []  # a dtype given here decides
        if isinstance(node.func, ast.Attribute) and node.func.attr in _SAME_DTYPE_METHODS \
                and not self.module.qualified_names(node.func):
            return [node.func.value]  # `x.reshape(...)`
        local = self._local_function(node.func)
        if local is not None:
            return _returned(local)
        name = self.module.callee(node, _SAME_DTYPE)
        if name is None:
            return []
        return [value_of(argument) for position in _SAME_DTYPE[name]
                if (argument := find_arg(node, position, ())) is not None]

    def _bound_values(self, binding) -> list[ast.AST]:
        """What `name` holds: its assigned value, or its element of a tuple a local function returns
        (`(starts, ids), totals = make_metadata(...)`)."""
        if binding.value is not None:
            return [binding.value]
        path, node = [], binding.node
        while isinstance(parent := self.module.parent.get(node), ast.Tuple):
            if any(isinstance(element, ast.Starred) for element in parent.elts):
                return []
            path.append((parent.elts.index(node), len(parent.elts)))
            node = parent
        assign = self.module.parent.get(node)
        if not path or not (isinstance(assign, ast.Assign) and isinstance(assign.value, ast.Call)):
            return []
        local = self._local_function(assign.value.func)
        values = _returned(local) if local is not None else []
        for index, length in reversed(path):  # outermost first
            values = [value.elts[index] if isinstance(value, ast.Tuple) and len(value.elts) == length else value
                      for value in values]
        return values

    def _local_function(self, func: ast.expr) -> Optional[ast.FunctionDef]:
        """The def of this module a call names, if one (not a parameter, an import, or two defs)."""
        if not isinstance(func, ast.Name):
            return None
        bindings = self.module.bindings(func)
        if len(bindings) == 1 and isinstance(bindings[0].node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return bindings[0].node
        return None

    # -- explicit 64-bit dtypes: fixed always (without x64 jax already makes them 32-bit) --

    def _explicit(self, call: ast.Call, where: str = "kernel code",
                  proven: bool = False) -> Iterator[tuple[ast.AST, str, "Planned"]]:
        """The 64-bit dtypes `call` is given (`proven`: a traceback's 64-bit error is in its function,
        so a dtype this code does not show gets a note)."""
        for dtype in self._dtype_arguments(call):
            possible = dtypes_named(dtype, self.module, builtins=True)
            # A parameter: the dtypes the calls of the kernel the whole-program link follows give it.
            given = None if possible else parameter_dtypes(dtype, self.module, self.analysis.facts.flow)
            possible = frozenset(given[0]) if given is not None else possible
            wide = next(iter(possible)) if len(possible) == 1 and not (given and given[1]) else None
            if wide is None and possible & NARROWED.keys():  # `dt`, bound to int64 in one branch, float64 in another
                case = "float64 value" if "float64" in possible else "int64 value"
                also = ", or values the tool does not follow" if given and given[1] else ""
                yield dtype, case, (f"`{one_line(self.module.segment(dtype))}` may be {' or '.join(sorted(possible))}"
                                    f"{also}: a 64-bit dtype in {where}, and no one dtype to write for it here (give "
                                    f"each {'caller' if given else 'branch'} its 32-bit dtype)", None, Applicability.SAFE)
                continue
            if not possible and isinstance(dtype, ast.Name) and proven:
                # A parameter (`dtype=acc_dtype`, bound by a caller's partial to a config's jnp.int64):
                # the traceback proves a 64-bit value here, the dtype's value is the callers'.
                yield dtype, "int64 value", (f"`{dtype.id}` is a dtype this code does not show, and the traceback "
                                             "says this function makes a 64-bit value: if it is one, give it a "
                                             "32-bit dtype where it is set (jnp.int32, jnp.float32)", None,
                                             Applicability.SAFE)
                continue
            if wide not in NARROWED:
                continue
            narrow = NARROWED[wide]
            fix = FixPlan()
            spelled = self._spell_like(dtype, narrow)
            self.replace(fix, dtype, spelled)
            written = one_line(self.module.segment(dtype))
            case = "float64 value" if wide == "float64" else "int64 value"
            if given is not None:
                yield dtype, case, (f"{written} -> {spelled}: every call of the kernel the tool follows gives `{written}` "
                                    f"{wide}, a 64-bit dtype in {where}; without jax_enable_x64 jax makes it {narrow} "
                                    "already; unsafe: the kernel no longer reads its parameter here, and a call the tool "
                                    "does not see may give another dtype", fix, Applicability.UNSAFE)
                continue
            yield dtype, case, (f"{written} -> {spelled}: a 64-bit dtype in {where}; without jax_enable_x64 jax "
                                f"makes it {narrow} already", fix, Applicability.SAFE)

    def _dtype_arguments(self, call: ast.Call) -> list[ast.expr]:
        """The dtypes `call` is given: where dtype_arguments places it (`.astype(d)`, `new_dtype=`, a
        position), any other call's `dtype=`, or the dtype it calls (`jnp.int64(3)`)."""
        argument = dtype_argument(call, self.module.qualified_names(call.func))
        keyword = find_arg(call, None, ("dtype",)) if argument is None else None
        given = [argument] if argument is not None else [keyword.value] if keyword is not None else []
        return given + ([call.func] if dtype_named(call.func, self.module) is not None else [])

    def _spell_like(self, dtype: ast.expr, narrow: str) -> str:
        """`narrow` as `dtype` spells its dtype: `jnp.int64` -> `jnp.int32`, `"int64"` -> `"int32"`,
        `jnp.dtype("int64")` -> `jnp.dtype("int32")`; Python's `int` -> `jnp.int32`."""
        if isinstance(dtype, ast.Attribute):
            return f"{self.module.segment(dtype.value)}.{narrow}"
        if isinstance(dtype, ast.Constant):
            code = self.module.segment(dtype)
            return code.replace(dtype.value, narrow)
        if isinstance(dtype, ast.Call):
            inner = dtype.args[0]
            return self.module.segment(dtype).replace(self.module.segment(inner), self._spell_like(inner, narrow))
        return spell_dtype(narrow, self.module)

    # -- defaults that are 64-bit under x64: fixed where x64 may be on --

    def _implicit(self, call: ast.Call, kernel: bool = True) -> Iterator[tuple[ast.AST, str, "Planned"]]:
        """The defaults of `call` that are 64-bit under x64; `kernel`: whether it runs in a kernel."""
        names = self.module.qualified_names(call.func)
        name = next(iter(sorted(names & (_DEFAULT_FLOAT | {ARANGE} | set(_ARGMAX) | _INTEGER_REDUCTIONS))), None)
        if name is None or has_double_star(call):
            return
        if name in _ARGMAX:
            yield from self._argmax(call, name, kernel)
            return
        if dtype_argument(call, names) is not None or \
                (name == ARANGE and any(isinstance(arg, ast.Starred) for arg in call.args)):
            return
        if name in _DEFAULT_FLOAT:
            yield call, "float64 value", self._add_dtype(call, "float32", f"{display(name)} without a dtype makes "
                                                         "jax's default float, float64 under x64", True)
        elif name == ARANGE:
            yield from self._arange(call)
        else:
            yield from self._reduction(call, name)

    def _add_dtype(self, call: ast.Call, dtype: str, why: str, safe: bool) -> "Planned":
        fix = FixPlan()
        spelled = spell_dtype(dtype, self.module)
        last = ordered_arguments(call)[-1]
        self.rewrite(fix, last, lambda code: f"{code}, dtype={spelled}")
        return (f"{why}: dtype={spelled} added, the dtype it has without x64", fix,
                Applicability.SAFE if safe else Applicability.UNSAFE)

    def _arange(self, call: ast.Call) -> Iterator[tuple[ast.AST, str, "Planned"]]:
        bounds = [value_of(argument) for argument in ordered_arguments(call)
                  if not isinstance(argument, ast.keyword) or argument.arg in ("start", "stop", "step")]
        if any(isinstance(bound, ast.Constant) and isinstance(bound.value, float) for bound in bounds):
            yield call, "float64 value", self._add_dtype(call, "float32", "jnp.arange over float bounds makes "
                                                         "jax's default float, float64 under x64", True)
            return
        visible = all(self._visibly_int(bound) for bound in bounds)
        message, fix, applicability = self._add_dtype(
            call, "int32", "jnp.arange over integer bounds makes jax's default int, an int64 iota under x64", visible)
        if not visible:
            message += "; unsafe: a bound is not visibly an int here, and a float bound would now give int32 values"
        yield call, "iota", (message, fix, applicability)

    def _visibly_int(self, node: ast.expr, depth: int = 3) -> bool:
        """An int literal, a `.shape[...]` or `len(...)`, arithmetic on those, a name bound once to one."""
        if isinstance(node, ast.Constant):
            return type(node.value) is int
        if isinstance(node, ast.Subscript):
            return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
        if isinstance(node, ast.Call):
            return isinstance(node.func, ast.Name) and node.func.id == "len" and not self.module.bindings(node.func)
        if isinstance(node, ast.BinOp) and not isinstance(node.op, (ast.Div, ast.Pow)):
            return self._visibly_int(node.left, depth) and self._visibly_int(node.right, depth)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return self._visibly_int(node.operand, depth)
        if isinstance(node, ast.Name) and depth:
            bindings = self.module.bindings(node)
            return len(bindings) == 1 and bindings[0].value is not None \
                and self._visibly_int(bindings[0].value, depth - 1)
        return False

    def _argmax(self, call: ast.Call, name: str, kernel: bool) -> Iterator[tuple[ast.AST, str, "Planned"]]:
        """jnp.argmax indexes as jax's default int (int64 under x64) and takes no index dtype. In XLA
        code `lax.argmax(x, axis, jnp.int32)` is the same reduction with int32 indices; in a kernel
        Mosaic TPU's own argmax returns the last of tied elements, not the first (a TPU v5e:
        bench/chip/argmax_ties.py), so there the fix calls argmax_tpu, which keeps jnp's first."""
        function = _ARGMAX[name]
        operand = find_arg(call, 0, ("a",))
        axis = find_arg(call, 1, ("axis",))
        keepdims = find_arg(call, 3, ("keepdims",)) if kernel else None
        keep = value_of(keepdims) if keepdims is not None else None
        out = find_arg(call, 2, ("out",))
        written_none = out is not None and isinstance(value_of(out), ast.Constant) and value_of(out).value is None
        fix = FixPlan()
        lax = None if kernel else self._lax(fix)
        others = [argument for argument in ordered_arguments(call) if argument not in (operand, axis, keepdims)
                  and not (argument is out and written_none)]
        axis_number = constant_index(value_of(axis)) if axis is not None else None
        if operand is None or has_star(call) or others or axis_number is None \
                or (keep is not None and not (isinstance(keep, ast.Constant) and type(keep.value) is bool)) \
                or not (kernel or (lax is not None and axis_number >= 0)):
            what = ("out=, an unwritten axis, a keepdims= not written True or False" if kernel
                    else "keepdims=, out=, a negative or unwritten axis" if lax is not None
                    else "this module imports neither jax nor jax.lax, and its `lax` names something else")
            how = (f"`{function}_tpu(x, axis)` (codemods/helpers_source.py: int32 indices, the first of tied "
                   f"elements; Mosaic TPU's own {function} returns the last)" if kernel
                   else f"`lax.{function}(x, axis, jnp.int32)` (the axis counted from 0)")
            yield call, "argmax", (f"{display(name)} returns jax's default int, int64 under x64, and takes no index "
                                   f"dtype: write {function} as {how}, which the tool does not write here ({what})",
                                   None, Applicability.SAFE)
            return
        operand_code = self.module.segment(value_of(operand))
        if kernel:
            helper = self.use_helper(fix, reference_helper(f"{function}_tpu"))
            kept = ", keepdims=True" if keep is not None and keep.value else ""
            self.replace(fix, call, f"{helper}({operand_code}, {axis_number}{kept})")
            yield call, "argmax", (f"{display(name)} -> {helper}(...): jnp.{function} returns jax's default int, int64 "
                                   f"indices under x64; {helper} returns int32 indices and, where elements tie, the "
                                   f"first, as jnp.{function} does (Mosaic TPU's own {function} returns the last)",
                                   fix, Applicability.SAFE)
            return
        spelled = spell_dtype("int32", self.module)
        self.replace(fix, call, f"{lax}.{function}({operand_code}, {axis_number}, {spelled})")
        yield call, "argmax", (f"{display(name)} -> {lax}.{function}(..., {spelled}): jnp.{function} returns jax's "
                               "default int, int64 indices under x64; lax's takes the index dtype, int32 as without "
                               "x64", fix, Applicability.SAFE)

    def _lax(self, fix: FixPlan) -> Optional[str]:
        """How this module names jax.lax: its own import of it, else `jax.lax` through `import jax`,
        else `lax`, imported by `fix`, where the module binds no `lax` (a kernel module that imports
        only jax.numpy and pallas is common: a note there left a fix undone)."""
        imported = {binding.imported: binding.name for binding in self.module.imports
                    if binding.scope is self.module.module_scope and binding.imported}
        if "jax.lax" in imported:
            return imported["jax.lax"]
        if imported.get("jax") == "jax":
            return "jax.lax"
        if self.module.module_scope.lookup("lax"):
            return None
        fix.imports_to_add.append(("jax", "lax", None))
        return "lax"

    def _reduction(self, call: ast.Call, name: str) -> Iterator[tuple[ast.AST, str, "Planned"]]:
        operand = find_arg(call, 0, ("a",))
        dtype = value_dtype(value_of(operand), self.module) if operand is not None else None
        if dtype in SIGNED | {"bool_"} | UNSIGNED:
            narrow = "uint32" if dtype in UNSIGNED else "int32"
            yield call, "integer sum", self._add_dtype(call, narrow, f"{display(name)} of {dtype.rstrip('_')} values sums in "
                                                       "jax's default int, int64 under x64", True)
        elif dtype not in FLOATS and self._proven_kernel(call):
            yield call, "integer sum", (f"{display(name)}: if its operand is an integer or bool array, it sums in "
                                        "jax's default int, int64 under x64: pass dtype=jnp.int32 (its dtype is not "
                                        "visible here)", None, Applicability.SAFE)


Planned = tuple[str, Optional[FixPlan], Applicability]
_PALLAS_CALL = frozenset({"jax.experimental.pallas.pallas_call"})
_PARTIAL = frozenset({"functools.partial"})
# jnp functions whose result has the dtype of the arguments at these positions (promoted together).
_SAME_DTYPE: dict[str, tuple[int, ...]] = {
    **{f"jax.numpy.{name}": (0,) for name in (
        "concatenate", "stack", "hstack", "vstack", "repeat", "roll", "tile", "reshape", "ravel", "broadcast_to",
        "cumsum", "cumprod", "clip", "flip", "sort", "transpose", "squeeze", "expand_dims", "pad", "take",
        "abs", "negative", "asarray", "array")},
    **{f"jax.numpy.{name}": (0, 1) for name in (
        "add", "subtract", "multiply", "floor_divide", "remainder", "maximum", "minimum")},
    "jax.numpy.where": (1, 2), "jax.lax.select": (1, 2),
}
_SAME_DTYPE_METHODS = frozenset({"reshape", "ravel", "flatten", "squeeze", "transpose", "copy", "clip", "repeat"})


def _operand(position: Optional[int]) -> str:
    return "an operand" if position is None else f"operand {position}"


def _returned(function: ast.FunctionDef) -> list[ast.expr]:
    """The values `function` itself returns (not its nested functions')."""
    found, pending = [], list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            found.append(node.value)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            pending += [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)]
    return found


def _locate(rule: Rule, file: ParsedFile, line: int) -> Optional[tuple[int, int]]:
    """`explain`: a 64-bit error's line proves x64 on where that kernel code was lowered; the value
    may be made on another line of it (`acc = jnp.zeros(s)`, then `acc + x` fails): the function
    holding the line is what the rule fixes, if it holds something to fix."""
    transform = X64Values(rule, file)
    function = transform.module.enclosing.get(next(
        (call for call in transform.module.calls if call.lineno <= line <= call.end_lineno), None))
    if function is None:
        functions = [node for node in ast.walk(transform.module.tree) if isinstance(node, FUNCTIONS)
                     and node.lineno <= line <= node.end_lineno]
        function = max(functions, key=lambda node: node.lineno, default=None)
    if function is None:
        return None
    inside = [call for call in transform.module.calls if function.lineno <= call.lineno <= function.end_lineno]
    if any(list(transform._explicit(call, proven=True)) or list(transform._implicit(call)) for call in inside):
        return function.lineno, function.end_lineno
    # Kernel code reading a 64-bit operand (`rows >= starts_ref[1]`): the fix is where XLA code makes it.
    if MOSAIC_TPU in transform.kernels.backends.get(function, frozenset()) and transform._operand_sites():
        return function.lineno, function.end_lineno
    return None


def _matches(rule: Rule, file: ParsedFile, call: ast.Call) -> bool:
    transform = X64Values(rule, file)
    return bool(list(transform._explicit(call)) or list(transform._implicit(call)))


RULE = Rule(
    code="JAX005",
    name="x64-values",
    summary="Give 64-bit values in Mosaic TPU kernels the 32-bit dtypes jax uses without x64.",
    what="""
        In Pallas kernel bodies that can be lowered for Mosaic TPU: an explicit 64-bit dtype
        (`jnp.int64`, `jnp.uint64`, `jnp.float64`, `"int64"`, Python's `int` or `float` as a dtype)
        becomes its 32-bit twin, always: without jax_enable_x64 jax already makes it 32-bit (with a
        UserWarning), so nothing changes there. Where the module turns x64 on
        (`jax.config.update("jax_enable_x64", True)`, `JAX_ENABLE_X64`, `jax.experimental.enable_x64`),
        or a traceback proves it (`jax-codemod explain`), the values jax makes 64-bit by default get
        the dtype they have without x64 too: `jnp.zeros/ones/empty` without a dtype get
        `dtype=jnp.float32`, `jnp.arange` gets `dtype=jnp.int32` (float32 over float bounds),
        `jnp.sum/prod` of visibly integer or bool values get `dtype=jnp.int32`, and
        `jnp.argmax/argmin(x, axis=k)` become `argmax_tpu(x, k)` in a kernel (int32 indices, and the
        first of tied elements as jnp's: Mosaic TPU's own argmax returns the last) and
        `lax.argmax(x, k, jnp.int32)` in XLA code. Each fix is safe:
        unchanged without x64, and what Mosaic TPU lowers with it; an arange whose bounds are not
        visibly ints is unsafe (a float bound would now give int32), and a kernel Triton or Mosaic GPU
        also lowers changes there too under x64 (unsafe). An argmax the tool cannot rewrite, a
        proven sum whose operand's dtype is not visible, and a dtype a proven function does not show
        (a parameter its callers bind), get a `[manual]` note. A dtype parameter every call of the
        kernel the whole-program link follows gives a 64-bit dtype (`partial(body, acc_dtype=
        cfg.acc_dtype)`, a config's `jnp.int64`, in any module) becomes its 32-bit twin where the
        kernel uses it (unsafe: a call the tool does not see may give another dtype); one given
        several dtypes gets a `[manual]` note. Where the module turns
        x64 on, the values its XLA code makes for a Mosaic TPU launch's operands (scalar prefetch
        included, as megablox's group metadata) get the same fixes where they are made, followed back
        from the launch through names, a returned tuple, arithmetic and the jnp functions whose result
        has their operands' dtype (`concatenate`, `repeat`, `where`, `cumsum`, ...); one the tool cannot
        rewrite gets a `[manual]` note at the launch, naming the operand.
    """,
    why="""
        Mosaic TPU has no 64-bit types: with x64 on, "NotImplementedError: 64-bit types are not
        supported" (an int64 or float64 value, an integer sum), "Only index_dtype=int32 is
        supported" (argmax, jax < 0.11.1; later "Unsupported combination of input dtype (float32)
        and index_dtype (int64) for reduce_index"), and an int64 arange lowers but Mosaic's compiler
        on the chip refuses it ("Only 8-, 16- and 32-bit Iota supported"). A 64-bit operand of a launch
        fails where the kernel computes with it ("64-bit types are not supported"), and on the chip
        even unread. A project often turns x64 on for its XLA code and forgets its kernels; where it
        does so in another module or in the environment, the rule sees the explicit dtypes only, and
        `explain` fixes the rest from the traceback.
    """,
    example="""
        acc = jnp.zeros((8, 128), dtype=jnp.int64)
        ->  acc = jnp.zeros((8, 128), dtype=jnp.int32)
        cols = jnp.arange(128)                     (x64 on in the module)
        ->  cols = jnp.arange(128, dtype=jnp.int32)
        best = jnp.argmax(scores, axis=1)          (in a kernel)
        ->  best = argmax_tpu(scores, 1)
    """,
    words=(),
    # Whole: `sum` is in `einsum`; `int` (Python's type as a dtype) in every file.
    whole_words=(b"int64", b"uint64", b"float64", b"int", b"float", b"arange", b"argmax", b"argmin", b"zeros",
                 b"ones", b"empty", b"sum", b"prod"),
    kernel_scoped=True,
    check=X64Values.check,
    matches=_matches,
    locate=_locate,
)
