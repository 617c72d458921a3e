"""The dtypes the link carries into kernels' parameters (`FlowFacts.dtypes`): a body given its dtype by
another module's partial (`partial(quant.rowmax_as, dtype=cfg.qdtype)`, a config's `jnp.int8` field)
shows none in its own code, and JAX004/JAX005 read a dtype only where the code spells it. And the narrow
dtypes launches in other modules cast their operands to (`FlowFacts.operands`), and which ref each gets
where the launches' operands are placed by position (`FlowFacts.refs`, `_Placed`): the link holds no
value for an array."""

from __future__ import annotations

from typing import Callable, Iterator, NamedTuple, Optional

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
# A body's ref parameter and what each launch passes it: (body, parameter, ((dtype or "", where), ...))
RefOperands = tuple[str, str, tuple[tuple[str, tuple[str, ...]], ...]]


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
                    callers: dict[str, set[tuple[str, Site, int]]],
                    evaluate: Callable[[Expr, str], set] = lambda expr, module: set()
                    ) -> dict[str, tuple[list[tuple[str, tuple[str, ...], tuple[str, ...]]], list[RefOperands]]]:
    """By module, its top-level bodies a Mosaic TPU launch in another module passes an operand cast to a
    narrow dtype (`launch(quant.rowmax_raw, x.astype(jnp.int8))`, `pl.pallas_call(kmod.body, ...)(a8)`),
    or one its callers pass through a parameter (`apply(name, *args)` -> `pl.pallas_call(...)(*args)`):
    (body, the dtypes, where the call passing each cast is: "(module:line)", as `moved_sites` moves them);
    and of those bodies, the ref parameters every launch of the body places a narrow cast at (`_Placed`):
    what each launch passes there (`RefOperands`).
    Of the link's: `launched` (the calls giving launches their bodies), `modules` (summaries), `functions`,
    `read` (what a partial's field holds), `callers` (`Binding.callers`) and `evaluate` (what an expression
    may hold: a dtype a name holds, `x.astype(config.QDTYPE)`)."""
    found: dict[str, dict[str, tuple[set, set]]] = {}
    operands_of = _Operands(modules, functions, callers, evaluate)
    launches: dict[str, list[Optional[tuple[str, Site, int]]]] = {}  # a body -> its launches (None: by a partial)
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
        for body in bodies:  # (through a partial, which ref an operand reaches is not followed)
            partials = [function[1] for function in read(body, "fn") if function[0] == "def"] if body[0] == "partial" else []
            for function, launch in [(body[1], (module, site, number))] * (body[0] == "def") + [(f, None) for f in partials]:
                launches.setdefault(function, []).append(launch)
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
    placed = _Placed(operands_of)
    return {module: ([(name, tuple(sorted(held)), tuple(sorted(where))) for name, (held, where) in sorted(kernels.items())],
                     [ref for name in sorted(kernels) for ref in _ref_operands(
                         f"{module}.{name}", launches.get(f"{module}.{name}", []), placed, modules, functions)])
            for module, kernels in found.items()}


def _ref_operands(function: str, launches: list, placed: "_Placed", modules: dict, functions: dict) -> list[RefOperands]:
    """The ref parameters of `function` each of its `launches` places an operand at, one of them a narrow
    cast: (its name, the parameter, what each launch passes it: a dtype or "" for a value that is none
    or not followed, with where)."""
    positions = [placed.launch(modules[launch[0]].calls[launch[2]], launch[2], launch[0]) if launch else None
                 for launch in launches]
    if not positions or None in positions:
        return []
    parameters = [name for name, kind, _ in functions[function][1].params if kind == POSITIONAL]
    found = []
    for index, parameter in enumerate(parameters):
        # (an operand not known to be one array, a tuple's leaves, may move those after it)
        if any(len(operands) <= index or any(None in {dtype for dtype, _ in operand} for operand in operands[:index])
               for operands in positions):
            break
        given: dict[str, set[str]] = {}
        for launch, operands in zip(launches, positions):
            for dtype, (module, line) in operands[index]:
                given.setdefault(dtype or "", set()).add(f"({module}:{line})" if dtype is not None else
                                                         f"({launch[0]}:{launch[1][0]})")
        if set(given) & set(NARROW_DTYPES):
            found.append((function.rpartition(".")[2], parameter, tuple((dtype, tuple(sorted(where)))
                                                                        for dtype, where in sorted(given.items()))))
    return found


def named_dtypes(modules: dict, evaluate: Callable[[Expr, str], set]) -> dict[str, list[tuple[str, str]]]:
    """By module, the names of other modules its dtype arguments read (`lax.convert_element_type(x,
    config.QDTYPE)`, `x.astype(cfg.QDTYPE)`) that hold one narrow dtype, as the link has it (`evaluate`):
    JAX004 reads a dtype where the module's own code spells it."""
    found: dict[str, set[tuple[str, str]]] = {}
    for module, summary in modules.items():
        for call in summary.calls:
            place = _dtype_place(call)
            dtype = _argument(call, *place) if place is not None else None
            name = spelt_name(dtype) if dtype is not None and dtype[0] == "attr" else None
            if name is None or _named(dtype, summary) is not None:
                continue
            held = {dtype_of(value) for value in evaluate(dtype, module)}
            if len(held) == 1 and (only := held.pop()) in NARROW_DTYPES:
                found.setdefault(module, set()).add((name, only))
    return {module: sorted(names) for module, names in found.items()}


class _Operands:
    """The narrow dtypes operands are cast to, followed back through names a module assigns once and
    through parameters to what the calls of their function pass (`*args`, `**kwargs` too)."""

    def __init__(self, modules: dict, functions: dict, callers: dict[str, set[tuple[str, Site, int]]],
                 evaluate: Callable[[Expr, str], set]) -> None:
        self.modules, self.functions, self.callers, self.evaluate = modules, functions, callers, evaluate
        self._calls: dict[str, dict[Site, Call]] = {}  # a module -> its calls by site
        self._found: dict[tuple, tuple] = {}  # what `_passed` found, by its arguments

    def casts(self, expr: Expr, module: str, site: Site, depth: int, hops: int,
              every: bool = False) -> Iterator[tuple[Optional[str], tuple[str, int]]]:
        """(dtype, (module, line) of the call passing the cast: `site` in `module`, or a caller's); with
        `every`, "" too for each value it may be that is an array of another dtype, and None for one the
        tool does not follow (a tuple of operands too: it may be one array or several)."""
        summary = self.modules[module]
        at = (module, site[0])
        if expr[0] == "var" and depth:  # each assignment (one on some path is enough), or a parameter's callers
            values = [value for target, value in summary.assigns if target == expr]
            for value in values:
                yield from self.casts(value, module, site, depth - 1, hops, every)
            if (not values or every and self._parameter(expr)) and hops:
                yield from self._passed(expr[1], expr[2], None, hops, every)
            elif not values and every:
                yield None, at
        elif expr[0] == "item" and expr[1][0] == "var" and not any(target == expr[1] for target, _ in summary.assigns):
            if hops:  # `args[0]`, `kwargs["x"]` of a `*`/`**` parameter
                yield from self._passed(expr[1][1], expr[1][2], expr[2], hops, every)
            elif every:
                yield None, at
        elif expr[0] == "item" and expr[1][0] == "seq" and isinstance(expr[2], int) and expr[2] < len(expr[1][2]):
            yield from self.casts(expr[1][2][expr[2]], module, site, depth, hops, every)  # `a8, b8 = a.astype(jnp.int8), ...`
        elif expr[0] == "seq" and not every:  # `*(a8, b8)` spread into the call, or a tuple of operands (a pytree's leaves)
            for element in expr[2]:
                yield from self.casts(element, module, site, depth, hops)
        elif every:  # ("": an array of another dtype, cast or made with it)
            made = _made_with(expr, summary, self._named_by(module))
            yield (made if made in NARROW_DTYPES else "" if made else None), at
        else:
            made = _made_with(expr, summary, self._named_by(module))
            if made in NARROW_DTYPES:
                yield made, at

    def _named_by(self, module: str) -> Callable[[Expr], Optional[str]]:
        """The dtype a name or attribute of `module` holds, as the link has it (`config.QDTYPE`): one only."""
        def named(expr: Expr) -> Optional[str]:
            held = {dtype_of(value) for value in self.evaluate(expr, module)}
            return held.pop() if len(held) == 1 else None
        return named

    def _parameter(self, expr: Expr) -> bool:
        """Whether a name is a parameter of its function (assigned in it too: its callers' values reach it)."""
        return expr[1] in self.functions and any(name == expr[2] for name, _, _ in self.functions[expr[1]][1].params)

    def _passed(self, function: str, parameter: str, key: object, hops: int,
                every: bool = False) -> tuple[tuple[Optional[str], tuple[str, int]], ...]:
        """What the calls of `function` pass its `parameter` (`key`: one entry of a `**` parameter), cast."""
        asked = (function, parameter, key, hops, every)
        if asked not in self._found:
            self._found[asked] = ()  # (a function forwarding to itself)
            self._found[asked] = tuple(self._passed_by_callers(function, parameter, key, hops, every))
        return self._found[asked]

    def _passed_by_callers(self, function: str, parameter: str, key: object, hops: int,
                           every: bool) -> Iterator[tuple[Optional[str], tuple[str, int]]]:
        params = self.functions[function][1].params if function in self.functions else ()
        kind = next((kind for name, kind, _ in params if name == parameter), None)
        unknown = (None, ("", 0))
        if kind is None or (key is not None and kind not in (STAR, DOUBLE_STAR)):
            yield from [unknown] if every else ()
            return
        positional = [name for name, kind, _ in params if kind == POSITIONAL]
        named = {name for name, kind, _ in params if kind not in (STAR, DOUBLE_STAR)}
        index = positional.index(parameter) if kind == POSITIONAL else None
        callers = sorted(self.callers.get(function, ()))
        for caller, site, offset in callers:
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
                yield from self.casts(expr, caller, site, _DEPTH, hops - 1, every)
            if every and not passed:  # (its default)
                yield None, (caller, site[0])
        if every and not callers:
            yield unknown


Placed = list[frozenset]  # by position, the operand there: what `_Operands.casts` says it may be (`every`)


class _Bound(NamedTuple):
    """A launch helper's parameters as one call binds them: what each is, its `*` parameter's operands, and
    the keywords its `**` parameter may hold."""
    function: str
    values: dict[str, frozenset]
    star: Optional[str]
    spread: Placed
    double: Optional[str]
    keys: frozenset[str]


class _Placed:
    """The operands of a Mosaic TPU launch by position, and so the body's ref parameter each reaches
    (the i-th operand: its i-th parameter), followed through launch helpers and `*args` forwarders;
    None where a position is not known (a `*` of unknown length, a grid spec: scalar prefetch operands
    lead, keywords a `**` may give the launch)."""

    def __init__(self, operands: _Operands) -> None:
        self.operands = operands
        self._callees: Optional[dict[tuple[str, Site], list[tuple[str, int]]]] = None

    def launch(self, given: Call, number: int, module: str, bound: Optional[_Bound] = None,
               hops: int = _CALLERS) -> Optional[Placed]:
        """The operands a launch passes the body `given` passes first: a `pallas_call`'s, or those the
        helper `given` calls passes its launch of the parameter it binds the body to."""
        modules, functions = self.operands.modules, self.operands.functions
        if spelt_name(given.callee) == LAUNCHER:
            spread = [self._keys(expr, module, bound, hops) for name, expr in given.keywords if name is None]
            if any(name == "grid_spec" for name, _ in given.keywords) or any(keys is None or "grid_spec" in keys
                                                                             for keys in spread):
                return None
            called = [call for call in modules[module].calls if call.callee == ("call", number)]
            return self._positions(called[0].args, module, called[0].site, bound, hops) \
                if len(called) == 1 and not called[0].keywords else None
        helpers = self._helpers().get((module, given.site), [])
        if len(helpers) != 1 or helpers[0][1] or not given.args or given.args[0][0] or not hops:
            return None
        function = helpers[0][0]
        params = functions[function][1].params
        positional = [name for name, kind, _ in params if kind == POSITIONAL]
        placed = self._positions(given.args[1:], module, given.site, bound, hops)
        star = next((name for name, kind, _ in params if kind == STAR), None)
        if placed is None or not positional or star is None and len(placed) >= len(positional):
            return None
        named = {name for name, kind, _ in params if kind not in (STAR, DOUBLE_STAR)}
        values = dict(zip(positional[1:], placed))
        keys: set[str] = set()
        for name, expr in given.keywords:
            spread_keys = self._keys(expr, module, bound, hops) if name is None else frozenset([name])
            if spread_keys is None:
                return None
            keys |= spread_keys
            if name in named:
                values[name] = self._value(expr, module, given.site, bound, hops)
        values.update({name: frozenset([(None, (module, given.site[0]))]) for name in keys & named if name not in values})
        inner = _Bound(function, values, star, placed[len(positional) - 1:], next(
            (name for name, kind, _ in params if kind == DOUBLE_STAR), None), frozenset(keys - named))
        owner = functions[function][0]
        passing = [(index, call) for index, call in enumerate(modules[owner].calls) if call.scope == function
                   and call.args and call.args[0] == (False, ("var", function, positional[0]))]
        return self.launch(passing[0][1], passing[0][0], owner, inner, hops - 1) if len(passing) == 1 else None

    def _helpers(self) -> dict[tuple[str, Site], list[tuple[str, int]]]:
        """The functions each call binds (its module and site): `callers` turned round, made once."""
        if self._callees is None:
            self._callees = {}
            for function, calls in sorted(self.operands.callers.items()):
                for caller, site, offset in sorted(calls):
                    self._callees.setdefault((caller, site), []).append((function, offset))
        return self._callees

    def _positions(self, args: tuple, module: str, site: Site, bound: Optional[_Bound], hops: int) -> Optional[Placed]:
        placed: Placed = []
        for starred, expr in args:
            spread = self._spread(expr, module, site, bound, hops) if starred else [self._value(expr, module, site, bound, hops)]
            if spread is None:
                return None
            placed += spread
        return placed

    def _value(self, expr: Expr, module: str, site: Site, bound: Optional[_Bound], hops: int) -> frozenset:
        if bound is not None and expr[0] == "var" and expr[1] == bound.function and expr[2] in bound.values:
            return bound.values[expr[2]]
        if bound is not None and expr[0] == "item" and expr[1] == ("var", bound.function, bound.star) \
                and isinstance(expr[2], int) and 0 <= expr[2] < len(bound.spread):
            return bound.spread[expr[2]]
        return frozenset(self.operands.casts(expr, module, site, _DEPTH, hops, every=True))

    def _spread(self, expr: Expr, module: str, site: Site, bound: Optional[_Bound], hops: int) -> Optional[Placed]:
        """The operands `*expr` passes: a helper's `*args` as the call binds them, a tuple's elements, or
        what every call of a forwarder passes its `*args` (the same number each)."""
        if bound is not None and expr == ("var", bound.function, bound.star):
            return bound.spread
        if expr[0] == "seq":
            return [self._value(element, module, site, bound, hops) for element in expr[2]]
        params = self.operands.functions[expr[1]][1].params if expr[0] == "var" and expr[1] in self.operands.functions else ()
        if (expr[2], STAR) not in [(name, kind) for name, kind, _ in params] or not hops:
            return None
        before = sum(kind == POSITIONAL for _, kind, _ in params)
        found = []
        for caller, at, offset in sorted(self.operands.callers.get(expr[1], ())):
            call = next((call for call in self.operands.modules[caller].calls if call.site == at), None)
            placed = self._positions(call.args, caller, at, None, hops - 1) if call is not None else None
            if placed is None or offset > before or offset and any(starred for starred, _ in call.args):
                return None  # (a spread's elements the link counted in the offset: where they start is not known)
            found.append(placed[before - offset:])
        if not found or len({len(placed) for placed in found}) != 1:
            return None
        return [frozenset().union(*column) for column in zip(*found)]

    def _keys(self, expr: Expr, module: str, bound: Optional[_Bound], hops: int) -> Optional[frozenset[str]]:
        """The keywords `**expr` may pass: a helper's `**kwargs` as the call binds them, or those every
        call of a forwarder puts in its `**kwargs`; None where not known."""
        if bound is not None and expr == ("var", bound.function, bound.double):
            return bound.keys
        params = self.operands.functions[expr[1]][1].params if expr[0] == "var" and expr[1] in self.operands.functions else ()
        if (expr[2], DOUBLE_STAR) not in [(name, kind) for name, kind, _ in params] or not hops:
            return None
        named = {name for name, kind, _ in params if kind not in (STAR, DOUBLE_STAR)}
        keys: set[str] = set()
        callers = sorted(self.operands.callers.get(expr[1], ()))
        for caller, at, _ in callers:
            call = next((call for call in self.operands.modules[caller].calls if call.site == at), None)
            for name, value in call.keywords if call is not None else ():
                spread = self._keys(value, caller, None, hops - 1) if name is None else frozenset([name])
                if spread is None:
                    return None
                keys |= spread - named
        return frozenset(keys) if callers else None


def _made_with(expr: Expr, summary: ModuleSummary,
               held: Callable[[Expr], Optional[str]] = lambda expr: None) -> Optional[str]:
    """The dtype an operand is cast to or made with (`x.astype(jnp.int8)`, `jnp.int8(x)`, the dtype where
    dtype_arguments places it, by position or keyword); a name's, `held` (`x.astype(QD)`)."""
    if expr[0] != "call" or not isinstance(expr[1], int):
        return None
    call = summary.calls[expr[1]]
    place = _dtype_place(call)
    dtype = _argument(call, *place) if place is not None else call.callee  # else `jnp.int8(x)`
    if dtype is None:
        return None
    named = _named(dtype, summary)
    return named if named is not None or place is None or dtype[0] not in ("var", "attr") else held(dtype)


def _dtype_place(call: Call) -> Optional[tuple[int, str]]:
    """Where the called function takes a dtype (dtype_arguments.py), by its name or a method's."""
    return dtype_place({spelt_name(call.callee)} - {None}, call.callee[2] if call.callee[0] == "attr" else None)


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
