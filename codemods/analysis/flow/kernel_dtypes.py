"""The dtypes the link carries into kernels' parameters (`FlowFacts.dtypes`): a body given its dtype by
another module's partial (`partial(quant.rowmax_as, dtype=cfg.qdtype)`, a config's `jnp.int8` field)
shows none in its own code, and JAX004/JAX005 read a dtype only where the code spells it. And the narrow
dtypes launches in other modules cast their operands to (`FlowFacts.operands`): the link holds no value
for an array, so which ref gets one is not known, only that some launch passes one."""

from __future__ import annotations

from typing import Callable, Iterator, Optional

from codemods.analysis.dtype_arguments import dtype_place
from codemods.analysis.flow.flow_facts import ParameterDtypes
from codemods.analysis.flow.link_heap import spelt_name
from codemods.analysis.flow.summary import DOUBLE_STAR, POSITIONAL, STAR, Call, Expr, ModuleSummary, Site
from codemods.analysis.kernel_scope import MOSAIC_TPU
from codemods.analysis.visible_dtypes import DTYPE_CALL, DTYPE_MODULES, DTYPES
from codemods.capabilities import NARROW_DTYPES

_DEPTH = 3  # names followed back to the cast an operand is
_CALLERS = 3  # parameters followed back to what their callers pass
LAUNCHER = "jax.experimental.pallas.pallas_call"  # whose launches of a body it names JAX004 reads itself


def dtype_of(value: tuple) -> Optional[str]:
    """The dtype a link value names: an installed module's (`("ext", "jax.numpy.int8")`), or a string."""
    if value[0] == "ext" and len(value) == 2:
        owner, _, member = value[1].rpartition(".")
        return member if owner in DTYPE_MODULES and member in DTYPES else None
    return value[1] if value[0] == "lit" and value[1] in DTYPES else None


def kernel_parameter_dtypes(functions: dict, backends: dict, heap: dict) -> dict[str, list[ParameterDtypes]]:
    """By module, the parameters of its top-level functions Mosaic TPU kernels run that may hold a dtype
    (`functions`: qualified name -> (module, summary); `backends`: what runs each; `heap`: the link's)."""
    found: dict[str, list[ParameterDtypes]] = {}
    for function, held in sorted(backends.items()):
        module, summary = functions.get(function, (None, None))
        name = function[len(module) + 1:] if module is not None else ""
        if MOSAIC_TPU not in held or not name or "." in name:
            continue
        for parameter, _, _ in summary.params:
            values = heap.get(("var", function, parameter), ())
            named = [dtype_of(value) for value in values]
            if any(named):
                found.setdefault(module, []).append((name, parameter, tuple(sorted(set(filter(None, named)))),
                                                     None in named))
    return found


def narrow_operands(launched: dict, modules: dict, functions: dict, read: Callable[[tuple, object], set],
                    callers: dict[str, set[tuple[str, Site, int]]]
                    ) -> dict[str, list[tuple[str, tuple[str, ...], tuple[str, ...]]]]:
    """By module, its top-level bodies a Mosaic TPU launch in another module passes an operand cast to a
    narrow dtype (`launch(quant.rowmax_raw, x.astype(jnp.int8))`, `pl.pallas_call(kmod.body, ...)(a8)`),
    or one its callers pass through a parameter (`apply(name, *args)` -> `pl.pallas_call(...)(*args)`):
    (body, the dtypes, where the call passing each cast is: "(module:line)", as `moved_sites` moves them).
    Of the link's: `launched` (the calls giving launches their bodies), `modules` (summaries), `functions`,
    `read` (what a partial's field holds) and `callers` (`Binding.callers`)."""
    found: dict[str, dict[str, tuple[set, set]]] = {}
    operands_of = _Operands(modules, functions, callers)
    for (module, site), (launcher, backends, bodies, _) in sorted(launched.items()):
        summary = modules[module]
        number = next((index for index, call in enumerate(summary.calls) if call.site == site), None) \
            if MOSAIC_TPU in backends else None
        if number is None:
            continue
        # The operands: what a launch helper is given after the body (by keyword too: not a launcher's
        # settings), what a launcher's result is called with
        given = summary.calls[number]
        helped = spelt_name(given.callee) != launcher
        operands = [expr for _, expr in given.args[1:]] + [expr for _, expr in given.keywords if helped] + [
            expr for call in summary.calls if call.callee == ("call", number) for _, expr in call.args]
        seen_here = spelt_name(given.callee) == LAUNCHER and bool(given.args) and given.args[0][1][0] == "var"
        casts = {cast for operand in operands for cast in operands_of.casts(operand, module, site, _DEPTH, _CALLERS)}
        run = {function[1] for body in bodies for function in (
            [body] if body[0] == "def" else read(body, "fn") if body[0] == "partial" else [])
            if function[0] == "def" and function[1] in functions}
        for function in sorted(run) if casts else ():
            owner = functions[function][0]
            name = function[len(owner) + 1:]
            # (not the operands the module's own rule reads: a `pallas_call` of a body it names, called with them)
            shown = [(dtype, at) for dtype, at in casts if owner != module or not seen_here or at != (module, site[0])]
            if shown and "." not in name:
                held, where = found.setdefault(owner, {}).setdefault(name, (set(), set()))
                held.update(dtype for dtype, _ in shown)
                where.update(f"({at}:{line})" for _, (at, line) in shown)
    return {module: [(name, tuple(sorted(held)), tuple(sorted(where))) for name, (held, where) in sorted(kernels.items())]
            for module, kernels in found.items()}


class _Operands:
    """The narrow dtypes operands are cast to, followed back through names a module assigns once and
    through parameters to what the calls of their function pass (`*args`, `**kwargs` too)."""

    def __init__(self, modules: dict, functions: dict, callers: dict[str, set[tuple[str, Site, int]]]) -> None:
        self.modules, self.functions, self.callers = modules, functions, callers
        self._calls: dict[str, dict[Site, Call]] = {}  # a module -> its calls by site
        self._found: dict[tuple, tuple] = {}  # what `_passed` found, by its arguments

    def casts(self, expr: Expr, module: str, site: Site, depth: int, hops: int) -> Iterator[tuple[str, tuple[str, int]]]:
        """(dtype, (module, line) of the call passing the cast: `site` in `module`, or a caller's)."""
        summary = self.modules[module]
        if expr[0] == "var" and depth:  # each assignment (one on some path is enough), or a parameter's callers
            values = [value for target, value in summary.assigns if target == expr]
            for value in values:
                yield from self.casts(value, module, site, depth - 1, hops)
            if not values and hops:
                yield from self._passed(expr[1], expr[2], None, hops)
        elif expr[0] == "item" and expr[1][0] == "var" and not any(target == expr[1] for target, _ in summary.assigns):
            if hops:  # `args[0]`, `kwargs["x"]` of a `*`/`**` parameter
                yield from self._passed(expr[1][1], expr[1][2], expr[2], hops)
        elif expr[0] == "item" and expr[1][0] == "seq" and isinstance(expr[2], int) and expr[2] < len(expr[1][2]):
            yield from self.casts(expr[1][2][expr[2]], module, site, depth, hops)  # `a8, b8 = a.astype(jnp.int8), ...`
        elif expr[0] == "seq":  # `*(a8, b8)` spread into the call, or a tuple of operands (a pytree's leaves)
            for element in expr[2]:
                yield from self.casts(element, module, site, depth, hops)
        else:
            yield from ((dtype, (module, site[0])) for dtype in _cast(expr, summary))

    def _passed(self, function: str, parameter: str, key: object, hops: int) -> tuple[tuple[str, tuple[str, int]], ...]:
        """What the calls of `function` pass its `parameter` (`key`: one entry of a `**` parameter), cast."""
        asked = (function, parameter, key, hops)
        if asked not in self._found:
            self._found[asked] = ()  # (a function forwarding to itself)
            self._found[asked] = tuple(self._passed_by_callers(function, parameter, key, hops))
        return self._found[asked]

    def _passed_by_callers(self, function: str, parameter: str, key: object, hops: int) -> Iterator[tuple[str, tuple[str, int]]]:
        params = self.functions[function][1].params if function in self.functions else ()
        kind = next((kind for name, kind, _ in params if name == parameter), None)
        if kind is None or (key is not None and kind not in (STAR, DOUBLE_STAR)):
            return
        positional = [name for name, kind, _ in params if kind == POSITIONAL]
        named = {name for name, kind, _ in params if kind not in (STAR, DOUBLE_STAR)}
        index = positional.index(parameter) if kind == POSITIONAL else None
        for caller, site, offset in sorted(self.callers.get(function, ())):
            if caller not in self._calls:
                self._calls[caller] = {made.site: made for made in self.modules[caller].calls}
            call = self._calls[caller].get(site)
            passed = []
            spread = False  # past a `*values`, an argument may sit at any later position
            for position, (starred, expr) in enumerate(call.args if call is not None else (), offset):
                if kind == STAR and (starred or spread or position >= len(positional)) or \
                        index is not None and (position == index or (starred or spread) and position <= index):
                    passed.append(expr)
                spread = spread or starred
            for name, expr in call.keywords if call is not None else ():
                if name is None and kind != STAR or name == parameter or \
                        kind == DOUBLE_STAR and name not in named and key in (None, name):
                    passed.append(expr)
            for expr in passed:
                yield from self.casts(expr, caller, site, _DEPTH, hops - 1)


def _cast(expr: Expr, summary: ModuleSummary) -> Iterator[str]:
    """The narrow dtype an operand is cast to or made with (`x.astype(jnp.int8)`, `jnp.int8(x)`, the
    dtype where dtype_arguments places it, by position or keyword)."""
    if expr[0] == "call" and isinstance(expr[1], int):
        call = summary.calls[expr[1]]
        place = dtype_place({spelt_name(call.callee)} - {None}, call.callee[2] if call.callee[0] == "attr" else None)
        dtype = _argument(call, *place) if place is not None else call.callee  # else `jnp.int8(x)`
        named = _named(dtype, summary) if dtype is not None else None
        if named in NARROW_DTYPES:
            yield named


def _argument(call: Call, position: int, keyword: str) -> Optional[Expr]:
    """What a call passes at `position` (no star before it) or as `keyword`."""
    if len(call.args) > position and not any(starred for starred, _ in call.args[:position + 1]):
        return call.args[position][1]
    return next((expr for name, expr in call.keywords if name == keyword), None)


def _named(expr: Expr, summary: ModuleSummary) -> Optional[str]:
    """The dtype an expression of a summary spells, however its module is reached (`jnp.int8`,
    `jax.numpy.int8`, `"int8"`, `jnp.dtype("int8")`)."""
    if expr[0] == "call" and isinstance(expr[1], int):
        call = summary.calls[expr[1]]
        return _named(call.args[0][1], summary) if spelt_name(call.callee) == DTYPE_CALL and len(call.args) == 1 \
            and not call.keywords else None
    spelt = spelt_name(expr)
    return dtype_of(("ext", spelt)) if spelt is not None else dtype_of(expr) if expr[0] == "lit" else None
