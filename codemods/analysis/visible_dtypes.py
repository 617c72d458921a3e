"""Dtypes the source shows: a dtype expression (`jnp.int64`, `"bfloat16"`, `float`) and the dtype of a
value where it is visible (`x.astype(jnp.bfloat16)`, `jnp.zeros(s, dtype=jnp.int8)`, `v > 0`; where a
call takes its dtype: dtype_arguments).

The analysis never knows a kernel operand's dtype (it comes from the launch's arrays); what a rule
can rewrite with certainty is what the code spells out here, followed through names bound once.
"""

from __future__ import annotations

import ast
from typing import Optional

from codemods.analysis.dtype_arguments import dtype_argument
from codemods.analysis.flow.flow_facts import FlowFacts
from codemods.analysis.module import ModuleIndex
from codemods.analysis.precision import only_value, string_value

# Where jax code takes its dtypes from (through any alias of these modules).
DTYPE_MODULES = ("jax.numpy", "numpy", "ml_dtypes")
FLOATS = frozenset({"float16", "bfloat16", "float32", "float64"})
SIGNED = frozenset({"int8", "int16", "int32", "int64"})
UNSIGNED = frozenset({"uint8", "uint16", "uint32", "uint64"})
DTYPES = FLOATS | SIGNED | UNSIGNED | {"bool_"}
DTYPE_CALL = "jax.numpy.dtype"  # `jnp.dtype("int8")`: the dtype its one argument names
# A 64-bit dtype -> its 32-bit twin.
NARROWED = {"int64": "int32", "uint64": "uint32", "float64": "float32"}
# Python's own types as a dtype: jax's default int and float, 64-bit under jax_enable_x64.
BUILTIN_DTYPES = {"int": "int64", "float": "float64"}



def dtype_named(expression: ast.expr, module: ModuleIndex, builtins: bool = False) -> Optional[str]:
    """The dtype `expression` names (`jnp.int64`, `np.float32`, `"bfloat16"`, `jnp.dtype("int8")`), by
    its numpy name; with `builtins`, Python's `int` and `float` too (as jax's 64-bit defaults). None
    where it names none, or several (`dt = np.int64 if a else np.float64`: see `dtypes_named`)."""
    named = dtypes_named(expression, module, builtins)
    return next(iter(named)) if len(named) == 1 else None


def dtypes_named(expression: ast.expr, module: ModuleIndex, builtins: bool = False) -> frozenset[str]:
    """Every dtype `expression` may name (a name bound several ways may name several)."""
    text = string_value(expression, module)
    if text is not None:
        return frozenset({text} & DTYPES)
    if isinstance(expression, ast.Call) and len(expression.args) == 1 and not expression.keywords \
            and DTYPE_CALL in module.qualified_names(expression.func):
        return dtypes_named(expression.args[0], module, builtins)
    if builtins and isinstance(expression, ast.Name) and expression.id in BUILTIN_DTYPES \
            and not module.bindings(expression):
        return frozenset({BUILTIN_DTYPES[expression.id]})
    return frozenset(member for owner, _, member in (name.rpartition(".") for name in module.qualified_names(expression))
                     if owner in DTYPE_MODULES and member in DTYPES)


def value_dtype(value: ast.expr, module: ModuleIndex, depth: int = 3) -> Optional[str]:
    """The dtype of `value` where the source shows it: a cast, a creation with `dtype=`, a dtype
    called as a function, a comparison (bool), an index of such a value, arithmetic whose sides
    agree (a Python number on one side takes the other's dtype), a name bound once to one."""
    if isinstance(value, ast.Name):
        bound = only_value(value, module) if depth else None
        return None if bound is None else value_dtype(bound, module, depth - 1)
    if isinstance(value, ast.Compare):
        return "bool_"
    if isinstance(value, ast.Subscript):
        return value_dtype(value.value, module, depth)
    if isinstance(value, ast.UnaryOp) and not isinstance(value.op, ast.Not):
        return value_dtype(value.operand, module, depth)
    if isinstance(value, ast.BinOp):
        sides = [side for side in (value.left, value.right) if not _python_number(side)]
        dtypes = {value_dtype(side, module, depth) for side in sides}
        return dtypes.pop() if len(dtypes) == 1 and sides else None
    if not isinstance(value, ast.Call):
        return None
    dtype = dtype_argument(value, module.qualified_names(value.func))
    return dtype_named(value.func if dtype is None else dtype, module)


def _python_number(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def parameter_dtypes(name: ast.expr, module: ModuleIndex, flow: FlowFacts) -> Optional[tuple[tuple[str, ...], bool]]:
    """Where `name` is a parameter of a top-level def (bound nowhere else), what `given_dtypes` says of it."""
    bindings = module.bindings(name) if isinstance(name, ast.Name) and flow.dtypes else []
    return given_dtypes(module, flow).get(bindings[0].node) if len(bindings) == 1 else None


def given_dtypes(module: ModuleIndex, flow: FlowFacts) -> dict[ast.arg, tuple[tuple[str, ...], bool]]:
    """The parameters of the module's top-level defs the whole-program link says callers give dtypes
    (`FlowFacts.parameter_dtypes`: a partial's `dtype=cfg.qdtype` in another module): the dtypes, and
    whether values that name none reach it too; in the order the module writes them."""
    return {parameter: found for function in module.tree.body if flow.dtypes
            and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
            for parameter in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)
            if (found := flow.parameter_dtypes(function.name, parameter.arg)) is not None}
