"""The dtypes the link carries into kernels' parameters (`FlowFacts.dtypes`): a body given its dtype by
another module's partial (`partial(quant.rowmax_as, dtype=cfg.qdtype)`, a config's `jnp.int8` field)
shows none in its own code, and JAX004/JAX005 read a dtype only where the code spells it. And the narrow
dtypes launches in other modules cast their operands to (`FlowFacts.operands`): the link holds no value
for an array, so which ref gets one is not known, only that some launch passes one."""

from __future__ import annotations

from typing import Callable, Iterator, Optional

from codemods.analysis.flow.flow_facts import ParameterDtypes
from codemods.analysis.flow.link_heap import spelt_name
from codemods.analysis.flow.summary import Call, Expr, ModuleSummary
from codemods.analysis.kernel_scope import MOSAIC_TPU
from codemods.analysis.visible_dtypes import DTYPE_CALL, DTYPE_MODULES, DTYPES
from codemods.capabilities import NARROW_DTYPES

_DEPTH = 3  # names followed back to the cast an operand is
# Functions casting their operand, by where they take the dtype: (position, keyword)
_CONVERTS = {"jax.lax.convert_element_type": (1, "new_dtype"), "jax.numpy.astype": (1, "dtype"),
             "jax.numpy.asarray": (1, "dtype"), "jax.numpy.array": (1, "dtype")}


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


def narrow_operands(launched: dict, modules: dict, functions: dict, read: Callable[[tuple, object], set]
                    ) -> dict[str, list[tuple[str, tuple[str, ...], tuple[str, ...]]]]:
    """By module, its top-level bodies a Mosaic TPU launch in another module passes an operand cast to a
    narrow dtype (`launch(quant.rowmax_raw, x.astype(jnp.int8))`, `pl.pallas_call(kmod.body, ...)(a8)`):
    (body, the dtypes, where those launches are: "(module:line)", as `moved_sites` moves them). Of the link's: `launched` (the calls giving launches their
    bodies), `modules` (summaries), `functions` and `read` (what a partial's field holds)."""
    found: dict[str, dict[str, tuple[set, set]]] = {}
    for (module, site), (_, backends, bodies, _) in sorted(launched.items()):
        summary = modules[module]
        number = next((index for index, call in enumerate(summary.calls) if call.site == site), None) \
            if MOSAIC_TPU in backends else None
        if number is None:
            continue
        # The operands: what a launch helper is given after the body, what a launcher's result is called with
        operands = [expr for _, expr in summary.calls[number].args[1:]] + [
            expr for call in summary.calls if call.callee == ("call", number) for _, expr in call.args]
        dtypes = {dtype for operand in operands for dtype in _casts(operand, summary, _DEPTH)}
        run = {function[1] for body in bodies for function in (
            [body] if body[0] == "def" else read(body, "fn") if body[0] == "partial" else [])
            if function[0] == "def" and function[1] in functions}
        for function in sorted(run) if dtypes else ():
            owner = functions[function][0]
            name = function[len(owner) + 1:]
            if owner != module and "." not in name:
                held, where = found.setdefault(owner, {}).setdefault(name, (set(), set()))
                held.update(dtypes)
                where.add(f"({module}:{site[0]})")
    return {module: [(name, tuple(sorted(held)), tuple(sorted(where))) for name, (held, where) in sorted(kernels.items())]
            for module, kernels in found.items()}


def _casts(expr: Expr, summary: ModuleSummary, depth: int) -> Iterator[str]:
    """The narrow dtype an operand is cast to (`x.astype(jnp.int8)`, `jnp.int8(x)`, `_CONVERTS`, the dtype
    by position or keyword), back through the names the module assigns, each assignment (one on some path is
    enough), and an element of a tuple."""
    if expr[0] == "var" and depth:
        for value in [value for target, value in summary.assigns if target == expr]:
            yield from _casts(value, summary, depth - 1)
    elif expr[0] == "item" and expr[1][0] == "seq" and isinstance(expr[2], int) and expr[2] < len(expr[1][2]):
        yield from _casts(expr[1][2][expr[2]], summary, depth)  # `a8, b8 = a.astype(jnp.int8), ...`
    elif expr[0] == "call" and isinstance(expr[1], int):
        call = summary.calls[expr[1]]
        converts = _CONVERTS.get(spelt_name(call.callee) or "")
        if converts is not None:
            dtype = _argument(call, *converts)
        elif call.callee[0] == "attr" and call.callee[2] == "astype":
            dtype = _argument(call, 0, "dtype")
        else:
            dtype = call.callee  # `jnp.int8(x)`
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
