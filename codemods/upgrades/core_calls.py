"""JAX1xx rows whose call changes shape, outside Pallas: pjit, shard_map, jnp.clip, enable_x64, meshes,
xla_computation.

A call is rewritten in place, its layout kept (libcst on that call alone): the callee respelled
through the module's imports, the positional arguments the new callee takes by keyword only given
their keywords (by the old function's parameter order), renamed keywords renamed. `f(...)`,
`functools.partial(f, ...)` and `@pjit` are rewritten; a call whose arguments cannot be mapped
(`*args`, a parameter passed twice) and any other use of the old function are left to a person.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable, Optional

from codemods.analysis.module import ModuleIndex, ordered_arguments
from codemods.analysis.names import PARTIAL, display
from codemods.analysis.precision import quoted
from codemods.api_changes import ApiChange
from codemods.capabilities import format_version
from codemods.engine.diagnostics import Applicability
from codemods.engine.fixes import FixPlan
from codemods.upgrades.scan import Finder, Reference
from codemods.upgrades.transform import Handler, JaxUpgrade

_DEPTH = 8  # how many `a = b` steps a value is followed through

# -- one call's arguments, remapped --


@dataclass
class _Remap:
    """How a call's arguments (indexed in written order) change: their keywords, their values, and
    which keyword argument becomes the first positional one (the new callee takes it so only)."""

    keywords: dict[int, str] = field(default_factory=dict)
    values: dict[int, str] = field(default_factory=dict)
    first: Optional[int] = None

    def __bool__(self) -> bool:
        return bool(self.keywords or self.values or self.first is not None)

    def change(self, shift: int) -> Callable[[str], str]:
        """The edit of the call's text (`shift`: 1 for `partial(f, ...)`, whose first argument is `f`)."""
        import libcst as cst

        from codemods.engine.call_rewrites import COMMA_SPACE, NO_SPACE_EQUAL, bare_comma, rewrite_call, remove_arg

        def rearrange(call: cst.Call) -> cst.Call:
            args = list(call.args)
            for index, name in self.keywords.items():
                equal = args[index].equal if args[index].keyword else NO_SPACE_EQUAL
                args[index] = args[index].with_changes(keyword=cst.Name(name), equal=equal)
            for index, text in self.values.items():
                args[index] = args[index].with_changes(value=cst.parse_expression(text))
            if self.first is not None:
                moved = args[self.first].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
                if self.first == shift:
                    args[shift] = moved
                else:  # it goes before the argument at `shift`, separated as that one was from the next
                    after = args[shift].comma
                    comma = bare_comma(after) if isinstance(after, cst.Comma) else COMMA_SPACE
                    args = remove_arg(args, self.first)
                    args.insert(shift, moved.with_changes(comma=comma, whitespace_after_arg=cst.SimpleWhitespace("")))
            return call.with_changes(args=args)

        return rewrite_call(rearrange)


def _remap(call: ast.Call, shift: int, params: tuple[str, ...], renamed: dict[str, str]) -> Optional[_Remap]:
    """The remap for a new callee that takes only its first parameter by position and the others
    by keyword, some `renamed`; None when a `*args` hides where values land, or more positional
    arguments are passed than `params` names."""
    remap = _Remap()
    for index, argument in enumerate(ordered_arguments(call)):
        if isinstance(argument, ast.Starred):
            return None
        if isinstance(argument, ast.keyword):
            if argument.arg == params[0]:
                remap.first = index
            elif argument.arg in renamed:
                remap.keywords[index] = renamed[argument.arg]
        elif index > shift:  # positional, after the function (and after `partial`'s callee)
            if index - shift >= len(params):
                return None
            remap.keywords[index] = renamed.get(params[index - shift], params[index - shift])
    return remap


def _conflict(call: ast.Call, shift: int, remap: _Remap, positional: tuple[str, ...]) -> bool:
    """The remapped call would pass a parameter twice (a keyword twice, a parameter by position and
    by keyword, the moved first argument and a positional one) or more by position than the new
    callee takes so (`positional`: its parameters that may be passed by position, in order)."""
    arguments = ordered_arguments(call)
    kept = [i for i, a in enumerate(arguments) if i >= shift and isinstance(a, ast.expr) and i not in remap.keywords]
    names = [remap.keywords.get(i, getattr(a, "arg", None)) for i, a in enumerate(arguments) if i != remap.first]
    names = [name for name in names if name is not None]
    count = len(kept) + (remap.first is not None)
    return (len(names) != len(set(names)) or count > len(positional) or bool(kept and remap.first is not None)
            or any(name in positional[:count] for name in names))


def _argument(call: ast.Call, shift: int, params: tuple[str, ...], name: str) -> Optional[tuple[int, ast.expr]]:
    """Where (in written order) and what `call` passes for parameter `name`, by position or keyword."""
    position = params.index(name) + shift
    if position < len(call.args):
        return position, call.args[position]
    arguments = ordered_arguments(call)
    return next(((i, a.value) for i, a in enumerate(arguments) if isinstance(a, ast.keyword) and a.arg == name), None)


def _applied(module: ModuleIndex, node: ast.AST) -> Optional[tuple[ast.Call, int]]:
    """The call that applies the function `node` names: `node(...)` (shift 0) or
    `functools.partial(node, ...)` (shift 1: the arguments after `node` go to it)."""
    call = module.parent.get(node)
    if not isinstance(call, ast.Call):
        return None
    if call.func is node:
        return call, 0
    if call.args and call.args[0] is node and ordered_arguments(call)[0] is node \
            and module.matching_name(call.func, PARTIAL):
        return call, 1
    return None


def _decorates(module: ModuleIndex, node: ast.AST) -> bool:
    holder = module.parent.get(node)
    return isinstance(holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node in holder.decorator_list


def _plain(node: ast.AST) -> bool:
    """A value that reading twice, or in another order, cannot change: a name, an attribute of one, a constant."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, (ast.Name, ast.Constant))


def _fix_call(transform: JaxUpgrade, reference: Reference, applied: Optional[tuple[ast.Call, int]], remap: _Remap,
              note: str, applicability: Applicability = Applicability.SAFE) -> None:
    """The fix: the callee respelled as the row's new name, the call's arguments remapped."""
    new = transform.row.new
    assert new is not None
    fix = FixPlan()
    spelled = transform.spell(new, reference.node, fix)
    if spelled is None:
        transform.manual(reference.node, display(reference.old), f"use {display(new)} (its names are taken here)")
        return
    transform.replace(fix, reference.node, spelled)
    transform.forget_imports(fix, reference.node)
    if applied is not None and remap:
        transform.rewrite(fix, applied[0], remap.change(applied[1]))
    transform.fixed(reference.node, display(reference.old), display(new), fix, applicability, note)


def _note(call: ast.Call, shift: int, params: tuple[str, ...], remap: _Remap, labels: dict[str, str]) -> str:
    """What the fix did to the arguments: `mesh, in_specs passed by keyword; check_rep= -> check_vma=`
    (`labels`: how the renamed parameters are described)."""
    arguments = ordered_arguments(call)
    positional, renamed = [], []
    for index in sorted(remap.keywords):
        argument = arguments[index]
        old = argument.arg if isinstance(argument, ast.keyword) else params[index - shift]
        if not isinstance(argument, ast.keyword):
            positional.append(old)
        if old in labels:
            renamed.append(labels[old])
    return "; ".join(([f"{', '.join(positional)} passed by keyword"] if positional else []) + renamed)


# -- JAX130: pjit -> jax.jit --

# pjit's parameters by position, the same in every release from 0.4.20 to 0.12.0.1; a 12th positional
# argument is abstracted_axes up to 0.8.1 and compiler_options from 0.8.2: left to a person.
_PJIT = ("fun", "in_shardings", "out_shardings", "static_argnums", "static_argnames", "donate_argnums",
         "donate_argnames", "keep_unused", "device", "backend", "inline")
_SHARDINGS = frozenset({"jax.sharding.NamedSharding", "jax.NamedSharding", "jax.sharding.SingleDeviceSharding"})
_PJIT_UNSAFE = ("unsafe: pjit reads the mesh `with mesh:` entered (for PartitionSpec and None shardings, and while "
                "tracing), jax.jit the one jax.set_mesh set")


def _pjit(transform: JaxUpgrade, reference: Reference) -> None:
    node = reference.node
    if isinstance(node, ast.alias):
        return  # the import goes once no use needs it
    applied = _applied(transform.module, node)
    if applied is None and not _decorates(transform.module, node):
        transform.manual(node, display(reference.old), "use jax.jit, its shardings and options passed by keyword")
        return
    remap = _Remap()
    if applied is not None:
        call, shift = applied
        mapped = _remap(call, shift, _PJIT, {})
        if mapped is None or _conflict(call, shift, mapped, positional=_PJIT[:1]):
            transform.manual(node, display(reference.old), "use jax.jit, every argument after the function passed "
                                                           "by keyword (these could not be mapped)")
            return
        remap = mapped
    safe = _pjit_is_safe(transform.module, applied)
    note = _note(applied[0], applied[1], _PJIT, remap, {}) if applied is not None else ""
    note = "; ".join(filter(None, [note, "" if safe else _PJIT_UNSAFE]))
    _fix_call(transform, reference, applied, remap, note, Applicability.SAFE if safe else Applicability.UNSAFE)


def _pjit_is_safe(module: ModuleIndex, applied: Optional[tuple[ast.Call, int]]) -> bool:
    """pjit and jax.jit differ in the mesh they read: pjit the one `with mesh:` entered (it resolves
    PartitionSpec and None shardings against it and traces the function under it), jax.jit the one
    jax.set_mesh set (where pjit fails). Safe when the module enters no Mesh by `with` and the call
    passes no sharding but Sharding objects."""
    if _with_mesh(module):
        return False
    if applied is None:
        return True
    call, shift = applied
    if any(k.arg is None for k in call.keywords):  # **kwargs may hold shardings
        return False
    passed = [_argument(call, shift, _PJIT, name) for name in ("in_shardings", "out_shardings")]
    return all(argument is None or _is_sharding(module, argument[1], _DEPTH) for argument in passed)


def _is_sharding(module: ModuleIndex, node: ast.AST, depth: int) -> bool:
    """`NamedSharding(...)` (or a tuple or list of them), or a name only ever bound to one."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_is_sharding(module, element, depth) for element in node.elts)
    if isinstance(node, ast.Name):
        bound = module.bindings(node)
        return depth > 0 and bool(bound) and all(
            b.value is not None and _is_sharding(module, b.value, depth - 1) for b in bound)
    return isinstance(node, ast.Call) and module.matching_name(node.func, _SHARDINGS) is not None


# -- JAX132: jax.experimental.shard_map.shard_map -> jax.shard_map --

_SHARD_MAP = ("f", "mesh", "in_specs", "out_specs", "check_rep", "auto")  # `auto` up to jax 0.7.2
_SHARD_MAP_RENAMED = {"check_rep": "check_vma", "auto": "axis_names"}
_SHARD_MAP_LABELS = {"check_rep": "check_rep= -> check_vma=",
                     "auto": "auto=A -> axis_names=frozenset(mesh.axis_names) - A"}
_AUTO_MIGRATION = "for auto=A, pass axis_names=frozenset(mesh.axis_names) - A (the mesh axes f is manual over)"


def _shard_map(transform: JaxUpgrade, reference: Reference) -> None:
    node = reference.node
    if isinstance(node, ast.alias):
        return
    old = display(reference.old)
    applied = _applied(transform.module, node)
    if applied is None:
        transform.manual(node, old, "use jax.shard_map, mesh=, in_specs=, out_specs= and check_vma= (for "
                                    "check_rep) passed by keyword")
        return
    call, shift = applied
    remap = _remap(call, shift, _SHARD_MAP, _SHARD_MAP_RENAMED)
    if remap is None or _conflict(call, shift, remap, positional=_SHARD_MAP[:1]):
        transform.manual(node, old, "use jax.shard_map, mesh, in_specs, out_specs and check_vma (for check_rep) "
                                    "passed by keyword (these could not be mapped)")
        return
    auto = _argument(call, shift, _SHARD_MAP, "auto")
    if auto is not None:  # up to jax 0.7.2, f was manual over the mesh axes not in `auto`
        mesh = _argument(call, shift, _SHARD_MAP, "mesh")
        if mesh is None or not _plain(mesh[1]) or isinstance(mesh[1], ast.Constant):
            transform.manual(node, old, f"use jax.shard_map; {_AUTO_MIGRATION}: the mesh is not a plain name here")
            return
        index, value = auto
        text = transform.module.segment(value)
        if not isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Set)):
            text = f"({text})"
        remap.values[index] = f"frozenset({transform.module.segment(mesh[1])}.axis_names) - {text}"
    _fix_call(transform, reference, applied, remap, _note(call, shift, _SHARD_MAP, remap, _SHARD_MAP_LABELS))


# -- JAX140: jnp.clip(a=, a_min=, a_max=) -> jnp.clip(a, min=, max=) --

_CLIP = ("arr", "min", "max")
_CLIP_OLD = {"a": "arr", "a_min": "min", "a_max": "max"}


def _clip(transform: JaxUpgrade, reference: Reference) -> None:
    """Only a call that passes a=, a_min= or a_max= is reported: jnp.clip itself is current."""
    node = reference.node
    applied = None if isinstance(node, ast.alias) else _applied(transform.module, node)
    if applied is None:
        return
    call, shift = applied
    arguments = ordered_arguments(call)
    remap = _Remap()
    for index, argument in enumerate(arguments):
        if isinstance(argument, ast.keyword) and argument.arg == "a":
            remap.first = index
        elif isinstance(argument, ast.keyword) and argument.arg in _CLIP_OLD:
            remap.keywords[index] = _CLIP_OLD[argument.arg]
    if not remap:
        return
    passed = [a.arg for a in arguments if isinstance(a, ast.keyword) and a.arg in _CLIP_OLD]
    old = f"{display(reference.old)}({', '.join(name + '=' for name in passed)})"
    floor = transform.settings.jax_floor
    if floor is not None and floor < transform.row.since:  # min=/max= came in 0.4.27: by position, as every jax takes them
        _clip_by_position(transform, node, call, shift, old)
        return
    new_arguments = ["a"] * ("a" in passed) + [_CLIP_OLD[name] + "=" for name in passed if name != "a"]
    new = f"{display(reference.old)}({', '.join(new_arguments)})"
    if any(isinstance(a, ast.Starred) for a in call.args) or _conflict(call, shift, remap, positional=_CLIP):
        transform.manual(node, old, "pass the array first by position, min= for a_min= and max= for a_max= "
                                    "(these arguments could not be mapped)")
        return
    applicability, note = Applicability.SAFE, ""
    if remap.first is not None and remap.first > shift and not all(
            _plain(getattr(a, "value", a)) for a in arguments[shift:remap.first + 1]):
        applicability, note = Applicability.UNSAFE, "unsafe: a= moves first, so the arguments are evaluated in " \
                                                    "another order"
    fix = FixPlan()
    transform.rewrite(fix, call, remap.change(shift))
    transform.fixed(node, old, new, fix, applicability, note)


def _clip_by_position(transform: JaxUpgrade, node: ast.AST, call: ast.Call, shift: int, old: str) -> None:
    """`jnp.clip(x, a_min=lo, a_max=hi)` -> `jnp.clip(x, lo, hi)`: the array and both bounds by
    position, which jax 0.3.0 and 0.12 read alike (the keywords changed their names in 0.4.27, under
    the floor). A partial (its array comes later), `*args`, `**kwargs` or another keyword: [manual]."""
    arguments = ordered_arguments(call)
    slots: dict[str, ast.expr] = {}
    mappable = shift == 0 and len(call.args) <= 3 and not any(isinstance(a, ast.Starred) for a in call.args)
    for index, argument in enumerate(call.args):
        slots[("a", "a_min", "a_max")[index]] = argument
    for keyword in call.keywords:
        mappable = mappable and keyword.arg in _CLIP_OLD and keyword.arg not in slots
        if keyword.arg is not None:
            slots[keyword.arg] = keyword.value
    floor = format_version(transform.settings.jax_floor)
    if not mappable or "a" not in slots:
        transform.manual(node, old, f"pass the array and both bounds by position (min= and max= need jax >= "
                                    f"{format_version(transform.row.since)}, the project supports jax >= {floor})",
                         by_floor=True)
        return
    bounds = [slots.get("a_min"), slots.get("a_max")]
    while bounds and bounds[-1] is None:
        bounds.pop()
    segment = transform.module.segment
    values = [segment(slots["a"]), *("None" if bound is None else segment(bound) for bound in bounds)]
    order = [a.value if isinstance(a, ast.keyword) else a for a in arguments]
    moved = [slots[name] for name in ("a", "a_min", "a_max") if name in slots] != order
    applicability = Applicability.SAFE
    note = f"min=/max= need jax >= {format_version(transform.row.since)}, the project supports jax >= {floor}"
    if moved and not all(_plain(value) for value in order):
        applicability, note = Applicability.UNSAFE, note + "; unsafe: the arguments are evaluated in another order"
    fix = FixPlan()
    transform.replace(fix, call, f"{segment(call.func)}({', '.join(values)})")
    transform.fixed(node, old, f"{display(transform.row.old[0])}(a, a_min, a_max) by position", fix, applicability, note)


# -- JAX111: jax.experimental.enable_x64()/disable_x64() -> jax.enable_x64(True/False) --

def _enable_x64(transform: JaxUpgrade, reference: Reference) -> None:
    node = reference.node
    if isinstance(node, ast.alias):
        return
    old = display(reference.old)
    applied = _applied(transform.module, node)
    call = applied[0] if applied is not None and applied[1] == 0 else None
    value = _x64_value(transform.module, call, disable=old.endswith("disable_x64"))
    if call is None or value is None:
        transform.manual(node, old, "use jax.enable_x64(True) for enable_x64() and jax.enable_x64(False) for "
                                    "disable_x64(), in a `with` statement or as a decorator")
        return
    spelling = _spell_jax(transform, "jax.enable_x64", node, old, f"jax.enable_x64({value})")
    if spelling is None:
        return
    fix, spelled = spelling
    transform.replace(fix, call, f"{spelled}({value})")
    transform.forget_imports(fix, node)
    transform.fixed(node, f"{old}()", f"jax.enable_x64({value})", fix)


def _spell_jax(transform: JaxUpgrade, qualified: str, node: ast.AST, old: str,
               wanted: str) -> Optional[tuple[FixPlan, str]]:
    """A new fix and `qualified` spelled at `node` in it; None, and a [manual] finding that says to
    write `wanted`, where every way to name it is taken."""
    fix = FixPlan()
    spelled = transform.spell(qualified, node, fix)
    if spelled is None:
        transform.manual(node, old, f"use {wanted} (the name jax is taken here)")
        return None
    return fix, spelled


def _x64_value(module: ModuleIndex, call: Optional[ast.Call], disable: bool) -> Optional[str]:
    """What jax.enable_x64 takes for the old call: True for enable_x64(), v for enable_x64(v) or
    enable_x64(new_val=v), False for disable_x64(); None for any other call."""
    if call is None or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg != "new_val" for k in call.keywords):
        return None
    passed = [*call.args, *(k.value for k in call.keywords)]
    if disable:
        return None if passed else "False"
    return None if len(passed) > 1 else module.segment(passed[0]) if passed else "True"


# -- JAX134: `with mesh:` (reported by the default MANUAL handler) --

_MESH_MAKERS = frozenset({"jax.sharding.Mesh", "jax.make_mesh"})


def _find_with_mesh(module: ModuleIndex, row: ApiChange) -> list[Reference]:
    return [Reference(row, row.old[0], item.context_expr) for item in _with_mesh(module)]


def _with_mesh(module: ModuleIndex) -> list[ast.withitem]:
    """The `with` items that enter a jax.sharding.Mesh: a Mesh(...) or jax.make_mesh(...) call, a
    name every binding of which is one, or a parameter annotated Mesh. Nothing else is taken for a
    Mesh (an attribute, the result of the user's own function): a wrong report would cost more."""
    entered = [*module.calls, *(node for mentions in module.mentions.values() for node in mentions
                                if node.__class__ is ast.Name)]
    items = [item for node in entered if (item := module.parent.get(node)).__class__ is ast.withitem
             and item.context_expr is node and _is_mesh(module, node, _DEPTH)]  # type: ignore[union-attr]
    return sorted(items, key=lambda item: (item.context_expr.lineno, item.context_expr.col_offset))


def _is_mesh(module: ModuleIndex, node: ast.AST, depth: int) -> bool:
    if isinstance(node, ast.Call):
        return module.matching_name(node.func, _MESH_MAKERS) is not None
    if not isinstance(node, ast.Name) or depth == 0:
        return False

    def mesh(binding) -> bool:
        if binding.is_parameter:
            annotation = binding.node.annotation
            return annotation is not None and module.matching_name(annotation, {"jax.sharding.Mesh"}) is not None
        return binding.value is not None and _is_mesh(module, binding.value, depth - 1)

    bound = module.bindings(node)
    return bool(bound) and all(mesh(binding) for binding in bound)


# -- JAX191: jax.make_mesh without axis_types --

def _make_mesh(transform: JaxUpgrade, reference: Reference) -> None:
    """Only a direct call is judged. One that passes axis_types (by keyword, or third by position),
    or may (`*args`, `**kwargs`), means the same on every release: no finding."""
    applied = None if isinstance(reference.node, ast.alias) else _applied(transform.module, reference.node)
    if applied is None or applied[1] != 0:
        return
    call = applied[0]
    if len(call.args) >= 3 or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg in (None, "axis_types") for k in call.keywords):
        return
    transform.manual(reference.node, f"{display(reference.old)}() without axis_types", transform.row.migration)


# -- JAX138: jax.jit(backend=..., device=...) --

def _call_keywords(transform: JaxUpgrade, reference: Reference) -> None:
    """A call (or a partial) that passes one of the row's keywords; every other use of the name,
    which stays, is no finding."""
    applied = None if isinstance(reference.node, ast.alias) else _applied(transform.module, reference.node)
    passed = [k.arg for k in applied[0].keywords if k.arg in transform.row.keywords] if applied else []
    if passed:
        transform.manual(reference.node, f"{display(reference.old)}({'=, '.join(passed)}=)", transform.row.migration)


# -- JAX1000: jax.xla_computation(f)(*args) -> jax.jit(f).lower(*args).compiler_ir('hlo') --

_XLA_HLO = "jax.jit(f).lower(*args).compiler_ir('hlo')"
# What each keyword of the old function becomes (jax's CHANGELOG 0.4.30, and the AOT API's own words).
_XLA_KEYWORDS = {
    "backend": "backend=B -> jax.jit(f).trace(*args).lower(lowering_platforms=(B,)).compiler_ir('hlo')",
    "static_argnums": "static_argnums=S -> jax.jit(f, static_argnums=S)",
    "donate_argnums": "donate_argnums=D -> jax.jit(f, donate_argnums=D)",
    "return_shape": "return_shape=True -> the shapes are lowered.out_info, lowered = jax.jit(f).lower(*args)",
    "axis_env": "axis_env= has no replacement: name the axes of a Mesh with jax.shard_map",
    "fun": "fun=f -> jax.jit(f)",
}
_XLA_UNSAFE = ("unsafe: the HLO is jax.jit's (its module is named jit_<f>, a single result is no longer wrapped in a "
               "tuple, parameters may carry shardings); the XlaComputation's methods are the same")


def _xla_computation(transform: JaxUpgrade, reference: Reference) -> None:
    """The plain call, built and applied at once, is rewritten (an unsafe fix: the HLO differs in
    form); a keyword, or the computation kept to apply later, is left to a person with what to write."""
    node = reference.node
    if isinstance(node, ast.alias):
        return  # the import goes once no use needs it
    old = display(reference.old)
    applied = _applied(transform.module, node)
    built = applied[0] if applied is not None and applied[1] == 0 else None
    call = transform.module.parent.get(built) if built is not None else None
    if built is None or not isinstance(call, ast.Call) or call.func is not built:
        transform.manual(node, old, f"use {_XLA_HLO} where the computation is applied to its arguments")
        return
    if built.keywords or len(built.args) != 1 or isinstance(built.args[0], ast.Starred):
        passed = [k.arg or "**" for k in built.keywords]
        advice = [_XLA_KEYWORDS.get(k, f"{k}= has no replacement: jax.jit decides") for k in passed if k != "**"]
        shown = ["f", *(["..."] if len(built.args) > 1 else []), *(k if k == "**" else f"{k}=" for k in passed)]
        transform.manual(node, f"{old}({', '.join(shown)})", "; ".join([f"use {_XLA_HLO}", *advice]))
        return
    spelling = _spell_jax(transform, "jax.jit", node, old, _XLA_HLO)
    if spelling is None:
        return
    fix, spelled = spelling
    transform.replace(fix, built, f"{spelled}({transform.module.segment(built.args[0])}).lower")
    hlo = quoted("hlo", transform.module)
    transform.rewrite(fix, call, lambda code: f"{code}.compiler_ir({hlo})")
    transform.forget_imports(fix, node)
    transform.fixed(node, f"{old}(f)(*args)", _XLA_HLO, fix, Applicability.UNSAFE, _XLA_UNSAFE)


HANDLERS: dict[str, Handler] = {
    "JAX111": _enable_x64,
    "JAX130": _pjit,
    "JAX132": _shard_map,
    "JAX140": _clip,
    "JAX191": _make_mesh,
    "JAX138": _call_keywords,
    "JAX1000": _xla_computation,
}
FINDERS: dict[str, Finder] = {"JAX134": _find_with_mesh}
# What each handler's fix does to the call, from the handler's own tables: the rule's summary and page.
CHANGES: dict[str, str] = {
    "JAX1000": f"jax.xla_computation(f)(*args) -> {_XLA_HLO}",
    "JAX111": "jax.experimental.enable_x64() -> jax.enable_x64(True), jax.experimental.disable_x64() -> "
              "jax.enable_x64(False)",
    "JAX130": f"pjit({', '.join(_PJIT[:3])}, ...) -> jax.jit({_PJIT[0]}, "
              f"{', '.join(name + '=' for name in _PJIT[1:3])}, ...): every argument after {_PJIT[0]} by keyword",
    "JAX132": f"shard_map({', '.join(_SHARD_MAP[:4])}) -> jax.shard_map({_SHARD_MAP[0]}, "
              f"{', '.join(name + '=' for name in _SHARD_MAP[1:4])}); {'; '.join(_SHARD_MAP_LABELS.values())}",
    "JAX140": f"jnp.clip({', '.join(old + '=' for old in _CLIP_OLD)}) -> "
              f"jnp.clip({', '.join('a' if old == 'a' else new + '=' for old, new in _CLIP_OLD.items())}): "
              "the array first, by position",
}
