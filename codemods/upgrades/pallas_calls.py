"""JAX1xx rows whose call changes shape, in Pallas: pl.dot, pltpu.repeat, pl.load/store, compiler_params dicts, BlockSpec order.

Each fix edits the whole call (or statement) and reads its text again when the edit is applied: a
fix nested inside it (`pl.dot` in a `pl.store`) is made first, and its result is what gets
reshaped. Each rewrite does what the old function did in its last release (read in jax's wheels).
Where a rewrite cannot keep that meaning, the fix is unsafe or left to a person.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable, Optional, Union

from codemods.analysis.kernel_scope import TRITON
from codemods.analysis.module import NEWLINE, ModuleIndex
from codemods.analysis.names import PARTIAL, display, has_star, is_none
from codemods.api_changes import ApiChange
from codemods.capabilities import format_version
from codemods.engine.diagnostics import Applicability
from codemods.engine.fixes import FixPlan
from codemods.upgrades.scan import Finder, Reference
from codemods.upgrades.transform import Handler, JaxUpgrade

_PALLAS = "jax.experimental.pallas"

# -- reading a call --

Argument = Union[ast.expr, ast.keyword]


@dataclass(frozen=True)
class _New:
    """What an argument becomes: passed as `keyword=` (None: by position), its value made from the
    old one's code."""

    keyword: Optional[str] = None
    value: Callable[[str], str] = str


def _bind(call: ast.Call, positional: tuple[str, ...], keyword_only: tuple[str, ...] = ()
          ) -> Optional[dict[str, Argument]]:
    """The call's arguments by parameter name, bound as Python would bind them. None when they do
    not bind (an unknown keyword, too many positional arguments) or cannot be read (`*args`)."""
    if has_star(call) or len(call.args) > len(positional):
        return None
    bound: dict[str, Argument] = dict(zip(positional, call.args))
    for keyword in call.keywords:
        if keyword.arg in bound or keyword.arg not in positional + keyword_only:
            return None
        bound[keyword.arg] = keyword  # type: ignore[index]
    return bound


def _value(argument: Argument) -> ast.expr:
    return argument.value if isinstance(argument, ast.keyword) else argument


def _literal(argument: Optional[Argument], default: object) -> object:
    """The argument's literal value (`-1` included). `default` when the argument is not passed,
    `...` when it is not a literal."""
    if argument is None:
        return default
    value = _value(argument)
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub) and isinstance(value.operand, ast.Constant) \
            and type(value.operand.value) is int:
        return -value.operand.value
    return value.value if isinstance(value, ast.Constant) else ...


class _Code:
    """An expression (or an expression statement) parsed alone, as its text is at the time the
    edit is applied: the spans and text of its parts."""

    def __init__(self, code: str, statement: bool = False) -> None:
        self.code = code
        self.node: ast.expr = ast.parse(code).body[0].value if statement \
            else ast.parse(code, mode="eval").body  # type: ignore[attr-defined]
        self.lines = [0] + [match.end() for match in NEWLINE.finditer(code)]

    @property
    def call(self) -> ast.Call:
        assert isinstance(self.node, ast.Call)
        return self.node

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self._offset(node.lineno, node.col_offset), self._offset(node.end_lineno, node.end_col_offset)

    def text(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.code[start:end]

    def _offset(self, line: int, column: int) -> int:
        """An ast position (column in UTF-8 bytes) as an offset in the text."""
        start = self.lines[line - 1]
        end = self.lines[line] if line < len(self.lines) else len(self.code)
        return start + len(self.code[start:end].encode("utf-8")[:column].decode("utf-8", "replace"))


def _stands_alone(value: str) -> bool:
    """Whether `value` parses as the right side of an assignment statement: an argument that spans
    lines outside brackets of its own (`pl.store(ref, idx, a\n + b)`, jax's flash attention) relied
    on the call's parentheses to continue its line, and needs its own once they are gone."""
    try:
        ast.parse(f"_ = {value}\n")
    except SyntaxError:
        return False
    return True


def _primary(code: str) -> str:
    """`code` as the operand of `.T` or `[...]`: in parentheses unless it binds tighter already."""
    node = ast.parse(code.strip(), mode="eval").body
    return code if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) else f"({code})"


# -- reshaping a call --

def _reshape(positional: tuple[str, ...], changes: dict[str, Optional[_New]], callee: str, extra: str = ""
             ) -> Callable[[str], str]:
    """The call with its callee respelled, the named arguments changed (None: removed), and `extra`
    added after the last argument left, separated as the arguments before it are. The rest keeps
    its layout, comments included."""

    def change(code: str) -> str:
        parsed = _Code(code)
        bound = _bind(parsed.call, positional)
        assert bound is not None
        ordered = [*parsed.call.args, *parsed.call.keywords]
        spans = [parsed.span(argument) for argument in ordered]
        edits = [(*parsed.span(parsed.call.func), callee)]
        removed = set()
        for name, new in changes.items():
            index = next(i for i, argument in enumerate(ordered) if argument is bound[name])
            if new is None:
                removed.add(index)
                edits.append((*_cut(code, spans, index), ""))
            else:
                value = new.value(parsed.text(_value(bound[name])))
                edits.append((*spans[index], f"{new.keyword}={value}" if new.keyword else value))
        last = max(set(range(len(ordered))) - removed)
        if extra:
            separator = code[spans[last - 1][1]:spans[last][0]] if last else ", "
            edits.append((spans[last][1], spans[last][1], (", " if "#" in separator else separator) + extra))
        for start, end, new_code in sorted(edits, reverse=True):  # from the end: the offsets before stay right
            code = code[:start] + new_code + code[end:]
        return code

    return change


_REST_OF_LINE = re.compile(r"[ \t]*,?[ \t]*(#[^\r\n]*)?(\r\n|\r|\n)")


def _cut(code: str, spans: list[tuple[int, int]], index: int) -> tuple[int, int]:
    """What removing the argument at `index` cuts: its line, with its comment, where it stands
    alone on it; else from the end of the argument before it (`, trans_a=True`), or for the first
    up to the next."""
    start, end = spans[index]
    if not index:
        return start, spans[1][0]
    line_start = max(code.rfind("\n", 0, start), code.rfind("\r", 0, start)) + 1
    rest = _REST_OF_LINE.match(code, end)
    if rest and line_start > spans[index - 1][1] and not code[line_start:start].strip():
        return line_start, rest.end()
    return spans[index - 1][1], end


def _call_of(transform: JaxUpgrade, reference: Reference, how: str) -> Optional[ast.Call]:
    """The call `reference` is the callee of. An import is left to go once its uses are rewritten;
    any other use (`dot = pl.dot`, `partial(pl.dot, ...)`, `pl.dot(*args)`) is a person's to rewrite."""
    node = reference.node
    if isinstance(node, ast.alias):
        return None
    call = transform.module.parent.get(node)
    if isinstance(call, ast.Call) and call.func is node and not has_star(call):
        return call
    transform.manual(node, display(reference.old), f"not a call this tool can rewrite: {how}")
    return None


# -- spelling the replacements --

# The usual names of the modules the replacements live in, for an import a fix adds.
# -- JAX150: pl.dot --

_DOT = ("a", "b", "trans_a", "trans_b", "allow_tf32", "precision")
_TRITON_DOT = f"{_PALLAS}.triton.dot"
_TRITON_DOT_SINCE = (0, 10, 2)  # jax/experimental/pallas/triton.py, read in the wheels
_DOT_WRITTEN = "jnp.dot(a, b, precision=..., preferred_element_type=jnp.float32), with a.T / b.T for trans_a / trans_b"


def _dot(transform: JaxUpgrade, reference: Reference) -> None:
    """pl.dot (0.4.20-0.11.1) was `lax.dot_general` of 2-D operands contracting a's dim 0 if
    trans_a (else 1) with b's dim 1 if trans_b (else 0), at `precision`, or HIGH where allow_tf32
    is true and HIGHEST where it is false; its result float32 (int32 for integers, float64 for
    float64). In Triton kernels the same function lives on in jax.experimental.pallas.triton;
    elsewhere it becomes jnp.dot with `.T` operands, that precision and preferred_element_type."""
    call = _call_of(transform, reference, _DOT_WRITTEN)
    if call is None:
        return
    bound = _bind(call, _DOT)
    if bound is None or "a" not in bound or "b" not in bound:
        transform.manual(call.func, "pl.dot", f"arguments that do not bind to pl.dot{_DOT}: {_DOT_WRITTEN}")
        return
    if transform.analysis.kernels.backends_of(call) == {TRITON}:
        _triton_dot(transform, call)
        return
    fix = FixPlan()
    changes: dict[str, Optional[_New]] = {}
    for operand, flag in (("a", "trans_a"), ("b", "trans_b")):
        transposed = _literal(bound.get(flag), False)
        if not isinstance(transposed, bool):
            transform.manual(call.func, "pl.dot", f"{flag} is not a literal True or False: {_DOT_WRITTEN}")
            return
        if flag in bound:
            changes[flag] = None
        if transposed:
            keyword = operand if isinstance(bound[operand], ast.keyword) else None
            changes[operand] = _New(keyword, lambda code: _primary(code) + ".T")
    allow_tf32 = _literal(bound.get("allow_tf32"), None)
    if allow_tf32 is not None:
        given = bound.get("precision")
        if not isinstance(allow_tf32, bool) or (given is not None and not is_none(_value(given))):
            transform.manual(call.func, "pl.dot", "allow_tf32 is not a literal True or False, or comes with a "
                                                  "precision (pl.dot raised then): jnp.dot with "
                                                  "precision=lax.Precision.HIGH where allow_tf32 is true, HIGHEST "
                                                  "where it is false")
            return
        precision = transform.spell("jax.lax.Precision", call.func, fix)
        if precision is None:
            transform.manual(call.func, "pl.dot", f"{_DOT_WRITTEN} (the name lax is taken here)")
            return
        changes["allow_tf32"] = _New("precision", lambda _code: f"{precision}.{'HIGH' if allow_tf32 else 'HIGHEST'}")
        if given is not None:
            changes["precision"] = None
    elif "allow_tf32" in bound:
        changes["allow_tf32"] = None
    if isinstance(bound.get("precision"), ast.expr) and "precision" not in changes:
        changes["precision"] = _New("precision")  # keyword-only in jnp.dot
    callee, float32 = (transform.spell(name, call.func, fix) for name in ("jax.numpy.dot", "jax.numpy.float32"))
    if callee is None or float32 is None:
        transform.manual(call.func, "pl.dot", f"{_DOT_WRITTEN} (the name jnp is taken here)")
        return
    transform.rewrite(fix, call, _reshape(_DOT, changes, callee, f"preferred_element_type={float32}"))
    transform.forget_imports(fix, call.func)
    # Unsafe: the operands' dtype is not known here, and only floating ones keep pl.dot's result dtype.
    transform.fixed(call.func, "pl.dot", "jnp.dot", fix, Applicability.UNSAFE,
                    note="unsafe: the result is float32, as pl.dot's was for floating operands; pl.dot gave int32 "
                         "for integer operands (and float64 for float64 ones)")


def _triton_dot(transform: JaxUpgrade, call: ast.Call) -> None:
    new = display(_TRITON_DOT)
    floor = transform.settings.jax_floor
    if floor is not None and floor < _TRITON_DOT_SINCE:
        transform.manual(call.func, "pl.dot", f"in Triton kernels: {new} (since jax "
                                              f"{format_version(_TRITON_DOT_SINCE)}; the project supports jax "
                                              f"{format_version(floor)}), or jnp.dot", by_floor=True)
        return
    fix = FixPlan()
    spelled = transform.spell(_TRITON_DOT, call.func, fix)
    if spelled is None:
        transform.manual(call.func, "pl.dot", f"in Triton kernels: {new} (the name plt is taken here)")
        return
    transform.replace(fix, call.func, spelled)
    transform.forget_imports(fix, call.func)
    transform.fixed(call.func, "pl.dot", new, fix, note="the same function, in a Triton kernel")


# -- JAX170: pltpu.repeat --

_REPEAT = ("x", "repeats", "axis")
_TILE = "jnp.tile(x, [repeats if i == axis else 1 for i in range(x.ndim)])"


def _repeat(transform: JaxUpgrade, reference: Reference) -> None:
    """pltpu.repeat(x, repeats, axis) tiled x along axis: `jnp.tile(x, [repeats if i == axis else 1
    for i in range(x.ndim)])` in its last release (0.10.1). A negative axis needs no ndim (jnp.tile
    pads short reps with leading 1s); for any other axis, `repeats` copies of x are concatenated,
    which needs a literal count."""
    call = _call_of(transform, reference, _TILE)
    if call is None:
        return
    bound = _bind(call, _REPEAT)
    if bound is None or len(bound) != len(_REPEAT):
        transform.manual(call.func, "pltpu.repeat", f"arguments that do not bind to pltpu.repeat{_REPEAT}: {_TILE}")
        return
    axis, repeats = _literal(bound["axis"], None), _literal(bound["repeats"], None)
    changes: dict[str, Optional[_New]] = {"x": _New(), "axis": None}
    if type(axis) is int and axis < 0:  # jnp.tile(x, (repeats, 1, ...))
        new, ones = "jax.numpy.tile", ", 1" * (-axis - 1)
        changes["repeats"] = _New(value=lambda code: f"({code}{ones or ','})")
    elif type(repeats) is int and repeats >= 1:  # jnp.concatenate([x] * repeats, axis=axis)
        new = "jax.numpy.concatenate"
        changes.update(x=_New(value=lambda code: f"[{code}] * {repeats}"), repeats=None, axis=_New("axis"))
    else:
        transform.manual(call.func, "pltpu.repeat", f"repeats is no literal count, and axis no literal negative "
                                                    f"int: {_TILE}")
        return
    order = [name for argument in [*call.args, *call.keywords] for name in bound if bound[name] is argument]
    if order.index("x") > order.index("repeats"):
        transform.manual(call.func, "pltpu.repeat", f"repeats before x: {_TILE}")
        return
    fix = FixPlan()
    callee = transform.spell(new, call.func, fix)
    if callee is None:
        transform.manual(call.func, "pltpu.repeat", f"{_TILE} (the name jnp is taken here)")
        return
    transform.rewrite(fix, call, _reshape(_REPEAT, changes, callee))
    transform.forget_imports(fix, call.func)
    transform.fixed(call.func, "pltpu.repeat", display(new), fix, note="tiles along the axis, as pltpu.repeat did")


# -- JAX171: pl.load / pl.store --

_LOAD = ("x_ref_or_view", "idx")
_LOAD_OPTIONS = {"mask": None, "other": None, "cache_modifier": None, "eviction_policy": None, "volatile": False}
_STORE = ("x_ref_or_view", "idx", "val")
_STORE_OPTIONS = {"mask": None, "eviction_policy": None}
_LOAD_WRITTEN, _STORE_WRITTEN = "ref[idx]", "ref[idx] = val"


def _load_store(transform: JaxUpgrade, reference: Reference) -> None:
    """Without a mask (or another Triton option), `pl.load(ref, idx)` is `ref[idx]`, as its own
    docstring says, and a `pl.store(ref, idx, val)` statement is `ref[idx] = val`."""
    store = reference.old.endswith(".store")
    old, written = ("pl.store", _STORE_WRITTEN) if store else ("pl.load", _LOAD_WRITTEN)
    call = _call_of(transform, reference, written)
    if call is None:
        return
    positional, options = (_STORE, _STORE_OPTIONS) if store else (_LOAD, _LOAD_OPTIONS)
    bound = _bind(call, positional, tuple(options))
    if bound is None or any(name not in bound for name in positional):
        transform.manual(call.func, old, f"arguments that do not bind to {old}{positional}: {written}")
        return
    if any(_literal(bound.get(name), default) is not default for name, default in options.items()):
        transform.manual(call.func, old, transform.row.migration)
        return
    statement = transform.module.parent.get(call)
    if store and not isinstance(statement, ast.Expr):
        transform.manual(call.func, old, f"its value (None) is used: {written} is a statement")
        return

    def change(code: str) -> str:
        parsed = _Code(code, statement=store)
        bound = _bind(parsed.call, positional, tuple(options))
        assert bound is not None
        idx = _value(bound["idx"])
        index = parsed.text(idx)
        if isinstance(idx, ast.Tuple) and idx.elts and not any(isinstance(e, ast.Starred) for e in idx.elts):
            index = ", ".join(parsed.text(e) for e in idx.elts) + ("," if len(idx.elts) == 1 else "")
        target = f"{_primary(parsed.text(_value(bound['x_ref_or_view'])))}[{index}]"
        if not store:
            return target
        value = _value(bound["val"])
        text = parsed.text(value)
        return f"{target} = {text if _stands_alone(text) and not isinstance(value, ast.NamedExpr) else f'({text})'}"

    fix = FixPlan()
    transform.rewrite(fix, statement if store else call, change)  # type: ignore[arg-type]
    transform.forget_imports(fix, call.func)
    transform.fixed(call.func, old, written, fix)


# -- JAX172: compiler_params as a dict --

# What a backend key of the old dict became: the CompilerParams class, and the keys that are
# parameters of that class in every release that has it (0.6.2-0.12.0.1, read in the wheels).
_PARAMS = {
    "mosaic": (f"{_PALLAS}.tpu.CompilerParams", frozenset({
        "dimension_semantics", "allow_input_fusion", "vmem_limit_bytes", "collective_id", "has_side_effects", "flags",
        "internal_scratch_in_bytes", "serialization_format", "disable_bounds_checks"})),
    "triton": (f"{_PALLAS}.triton.CompilerParams", frozenset({"num_warps", "num_stages"})),
    "mosaic_gpu": (f"{_PALLAS}.mosaic_gpu.CompilerParams", frozenset({
        "approx_math", "dimension_semantics", "lowering_semantics", "max_concurrent_steps", "profile_dir",
        "profile_space", "unsafe_no_auto_barriers"})),
}
_BACKEND_KEYS = ("mosaic_tpu", "mosaic_gpu", "triton")  # jax 0.6.1-0.9.0: {backend: CompilerParams(...)}
_ONE_OBJECT = ("pass one CompilerParams object: pltpu.CompilerParams(...), plt.CompilerParams(...) or "
               "plgpu.CompilerParams(...)")


def _find_dict_params(module: ModuleIndex, row: ApiChange) -> list[Reference]:
    """`compiler_params=` a dict display or a call of the builtin dict, in a pallas_call; or in any
    other call (`pallas_kw=dict(compiler_params=dict(mosaic=dict(...)))`, handed on to one through
    `**`) where its one key is a Pallas backend's (`_carried`)."""
    found = []
    for call in module.calls:
        for keyword in call.keywords:  # before resolving the callee, which costs
            value = keyword.value
            pairs = _pairs(value) if keyword.arg == "compiler_params" else None
            if pairs is not None and not (isinstance(value, ast.Call) and module.bindings(value.func)) \
                    and ((len(pairs) == 1 and pairs[0][0] in (*_PARAMS, *_BACKEND_KEYS)) or _carried(module, call) is None):
                found.append(Reference(row, row.old[0], value))
    return found


def _carried(module: ModuleIndex, call: ast.Call) -> Optional[str]:
    """None for a pallas_call; else the call that carries `compiler_params=` on, as the code names it."""
    return None if module.applied(call, {f"{_PALLAS}.pallas_call"}) is not None else module.segment(call.func)


def _pairs(node: ast.AST) -> Optional[list[tuple[Optional[str], ast.expr]]]:
    """The (key, value) pairs of a dict display or a `dict(k=v)` call (key None: not a string, or
    `**`); None for anything else."""
    if isinstance(node, ast.Dict):
        return [(key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None, value)
                for key, value in zip(node.keys, node.values)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args:
        return [(keyword.arg, keyword.value) for keyword in node.keywords]
    return None


def _dict_params(transform: JaxUpgrade, reference: Reference) -> None:
    """`dict(mosaic=dict(k=v))` (jax <= 0.6.0) -> `pltpu.CompilerParams(k=v)`, and so for triton
    and mosaic_gpu; `dict(mosaic_tpu=pltpu.CompilerParams(...))` (0.6.1-0.9.0) -> the object."""
    node = reference.node
    pairs = _pairs(node)
    assert pairs is not None
    old = "compiler_params=dict(...)"
    fix = FixPlan()
    launch = transform.module.parent[transform.module.parent[node]]
    carried = _carried(transform.module, launch)  # type: ignore[arg-type]
    # Handed on (`dict(compiler_params=...)`, `**`): a pallas_call is where it goes, not where it is seen.
    applicability = Applicability.SAFE if carried is None else Applicability.UNSAFE
    handed = [] if carried is None else [f"handed to `{carried}(compiler_params=...)`, not to pallas_call: the tool "
                                         "takes it to reach one (its key names a Pallas backend)"]
    if not pairs:
        transform.replace(fix, node, "None")
        transform.fixed(node, old, "None", fix, note="the empty dict asked for nothing")
        return
    if len(pairs) != 1:
        transform.manual(node, old, f"{_ONE_OBJECT}; a dict for several backends must be split by backend")
        return
    key, value = pairs[0]
    inner = _pairs(value)
    if key in _PARAMS and inner is not None:
        new, known = _PARAMS[key]
        unknown = sorted(str(k) for k, _ in inner if k not in known)
        if unknown:
            transform.manual(node, old, f"{', '.join(unknown)}: not a parameter of {display(new)} in every release "
                                        "that has it")
            return
        spelled = transform.spell(new, launch.func, fix)  # type: ignore[attr-defined]
        if spelled is None:
            transform.manual(node, old, f"{display(new)}(...) (its module's usual name is taken here)")
            return

        def construct(code: str) -> str:
            parsed = _Code(code)
            entries = _pairs(_pairs(parsed.node)[0][1])  # type: ignore[index]
            return f"{spelled}({', '.join(f'{k}={parsed.text(v)}' for k, v in entries)})"  # type: ignore[union-attr]

        transform.rewrite(fix, node, construct)
        transform.fixed(node, old, f"{display(new)}(...)", fix, applicability, "; ".join(handed))
    elif key in _BACKEND_KEYS and isinstance(value, ast.Call) and any(
            name.endswith("CompilerParams") for name in transform.module.qualified_names(value.func)):

        def unwrap(code: str) -> str:
            parsed = _Code(code)
            return parsed.text(_pairs(parsed.node)[0][1])  # type: ignore[index]

        transform.rewrite(fix, node, unwrap)
        transform.fixed(node, old, "the CompilerParams object", fix, applicability,
                        "; ".join(["jax takes it alone since 0.6.1", *handed]))
    else:
        transform.manual(node, old, _ONE_OBJECT)


# -- JAX173: BlockSpec(index_map, block_shape) --

def _block_spec(transform: JaxUpgrade, reference: Reference) -> None:
    """A BlockSpec whose first positional argument is a function was written in the old order,
    index_map first: jax 0.4.31-0.4.34 swapped it back with a warning, later ones fail. Any other
    BlockSpec is left alone."""
    node = reference.node
    call = transform.module.parent.get(node)
    if not (isinstance(call, ast.Call) and call.func is node and call.args and not has_star(call)
            and _is_function(transform, call.args[0])):
        return
    named = {keyword.arg for keyword in call.keywords}
    if "index_map" in named or (len(call.args) > 1 and "block_shape" in named):
        return  # binds in neither order: not this rule's to say

    def change(code: str) -> str:
        parsed = _Code(code)
        first = parsed.span(parsed.call.args[0])
        if len(parsed.call.args) == 1:
            return f"{code[:first[0]]}index_map={code[first[0]:]}"
        second = parsed.span(parsed.call.args[1])
        return (code[:first[0]] + code[slice(*second)] + code[first[1]:second[0]] + code[slice(*first)]
                + code[second[1]:])

    fix = FixPlan()
    transform.rewrite(fix, call, change)
    new = "pl.BlockSpec(index_map=...)" if len(call.args) == 1 else "pl.BlockSpec(block_shape, index_map)"
    transform.fixed(node, "pl.BlockSpec(index_map, block_shape)", new, fix)


def _is_function(transform: JaxUpgrade, node: ast.expr) -> bool:
    """A lambda, or a name bound only to defs, lambdas and functools.partial calls."""
    if isinstance(node, ast.Lambda):
        return True
    bindings = transform.module.bindings(node) if isinstance(node, ast.Name) else []
    return bool(bindings) and all(
        isinstance(b.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or isinstance(b.value, ast.Lambda)
        or (isinstance(b.value, ast.Call) and transform.module.callee(b.value, PARTIAL) is not None)
        for b in bindings)


HANDLERS: dict[str, Handler] = {
    "JAX150": _dot,
    "JAX170": _repeat,
    "JAX171": _load_store,
    "JAX172": _dict_params,
    "JAX173": _block_spec,
}
FINDERS: dict[str, Finder] = {"JAX172": _find_dict_params}
# What each handler's fix does to the call, from the handler's own tables: the rule's summary and page.
CHANGES: dict[str, str] = {
    "JAX150": f"pl.dot({', '.join(_DOT)}) -> {_DOT_WRITTEN}",
    "JAX170": f"pltpu.repeat({', '.join(_REPEAT)}) -> {_TILE}",
    "JAX171": f"pl.load(ref, idx) -> {_LOAD_WRITTEN}, pl.store(ref, idx, val) -> {_STORE_WRITTEN}, without a mask "
              "or another Triton option",
    "JAX172": "compiler_params=dict(KEY=dict(...)) -> compiler_params=CLASS(...): "
              + ", ".join(f"{key} -> {display(cls)}" for key, (cls, _) in _PARAMS.items()),
    "JAX173": "pl.BlockSpec(index_map, block_shape) -> pl.BlockSpec(block_shape, index_map): the new argument order",
}
