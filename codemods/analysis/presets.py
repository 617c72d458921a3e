"""`lax.DotAlgorithmPreset` values as source, and what Mosaic TPU lowers in their place.

No Mosaic TPU release takes a preset (capabilities.DOT_ALGORITHM_PRESETS_LOWERED): its dot lowering
indexes the precision as a pair and raises "TypeError: 'DotAlgorithmPreset' object is not
subscriptable". Each preset names input types, passes and an accumulation type; PRESET_FIXES maps
those onto what Mosaic TPU does lower: operand casts, a scalar `lax.Precision` whose passes match
(HIGH is Mosaic's `bf16x3`, HIGHEST its `fp32`, six bfloat16 passes on TPU) and a
`preferred_element_type`. PRESET_MANUAL says why the others have no such spelling.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from codemods.analysis.module import ModuleIndex
from codemods.analysis.precision import only_value, quoted, string_value
from codemods.capabilities import DOT_ALGORITHM_PRESETS, Level

PRESET_CLASS = "jax.lax.DotAlgorithmPreset"
ALGORITHM_CLASS = "jax.lax.DotAlgorithm"
# What Mosaic TPU raises for every preset (jax 0.10.2 and 0.12.0.1), and for a lax.DotAlgorithm.
PRESET_ERROR = "TypeError: 'DotAlgorithmPreset' object is not subscriptable"
ALGORITHM_ERROR = "NotImplementedError: Unsupported dot precision: <class 'jax.numpy.bfloat16'>"


@dataclass(frozen=True)
class PresetFix:
    """What to write instead of a preset in a Mosaic TPU kernel."""

    level: Level  # the scalar precision; HIGH becomes HIGHEST on a release whose Mosaic TPU lacks HIGH
    exact: bool  # the same arithmetic as the preset (a safe fix); else more accurate, numerics change
    how: str  # why this spelling matches the preset, for the finding
    cast: Optional[str] = None  # the dtype both operands are cast to, as the preset's input type
    accumulation: Optional[str] = None  # preferred_element_type, where the call gives none


PRESET_FIXES: dict[str, PresetFix] = {
    "DEFAULT": PresetFix(Level.DEFAULT, True, "the default algorithm"),
    "BF16_BF16_F32": PresetFix(Level.DEFAULT, True, "one pass on bfloat16 inputs, float32 accumulation",
                               cast="bfloat16", accumulation="float32"),
    "BF16_BF16_F32_X3": PresetFix(Level.HIGH, True, "three bfloat16 passes (Mosaic's bf16x3)"),
    "BF16_BF16_F32_X6": PresetFix(Level.HIGHEST, True, "six bfloat16 passes (HIGHEST on TPU)"),
    "TF32_TF32_F32": PresetFix(Level.HIGH, False, "TPU has no TF32; three bfloat16 passes are more accurate"),
    "TF32_TF32_F32_X3": PresetFix(Level.HIGHEST, False, "TPU has no TF32; six bfloat16 passes are as accurate"),
    "F32_F32_F32": PresetFix(Level.HIGHEST, False, "float32 products as six bfloat16 passes, TPU's most accurate"),
}
_FP8 = ("fp8 operands: Mosaic TPU lowers a dot of float8_e4m3fn operands at DEFAULT with "
        "preferred_element_type=jnp.float32, which is not checked to match the preset's accumulation")
PRESET_MANUAL: dict[str, str] = {
    "ANY_F8_ANY_F8_F32": _FP8,
    "ANY_F8_ANY_F8_F32_FAST_ACCUM": _FP8,
    "ANY_F8_ANY_F8_ANY": _FP8,
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM": _FP8,
    "F16_F16_F16": "a float16 result: Mosaic TPU raises \"NotImplementedError: float16\" for a float16 "
                   "preferred_element_type; cast both operands to float16 and accumulate in float32 if that will do",
    "F16_F16_F32": "float16 inputs: casting both operands to float16 with preferred_element_type=jnp.float32 lowers, "
                   "but whether Mosaic multiplies float16 exactly is not checked",
    "BF16_BF16_BF16": "a bfloat16 accumulation: a bfloat16 preferred_element_type fails Mosaic TPU's verifier "
                      "('tpu.matmul'); cast both operands to bfloat16 at DEFAULT and accept float32 accumulation",
    "BF16_BF16_F32_X9": "nine bfloat16 passes: HIGHEST, Mosaic TPU's most accurate, is six",
    "F64_F64_F64": "float64: Mosaic TPU has no float64 contraction",
}
assert set(PRESET_FIXES) | set(PRESET_MANUAL) == set(DOT_ALGORITHM_PRESETS)


@dataclass(frozen=True)
class PresetValue:
    """A preset written out in the source (`lax.DotAlgorithmPreset.X`, or `"X"`), or a `lax.DotAlgorithm(...)`
    (name None)."""

    name: Optional[str]
    node: ast.expr

    def describe(self) -> str:
        return "lax.DotAlgorithm(...)" if self.name is None else f"DotAlgorithmPreset.{self.name}"


def dot_algorithm(expression: ast.expr, module: ModuleIndex) -> Optional[PresetValue]:
    """The preset or algorithm `expression` writes, through any alias of jax.lax, or a name bound once
    to one (`FAST = lax.DotAlgorithmPreset.BF16_BF16_F32`); None if it writes none."""
    if isinstance(expression, ast.Name):
        value = only_value(expression, module)
        return None if value is None or isinstance(value, ast.Name) else dot_algorithm(value, module)
    text = string_value(expression, module)
    if text is not None:
        return PresetValue(text, expression) if text in DOT_ALGORITHM_PRESETS else None
    if isinstance(expression, ast.Attribute) and expression.attr in DOT_ALGORITHM_PRESETS:
        if f"{PRESET_CLASS}.{expression.attr}" in module.qualified_names(expression):
            return PresetValue(expression.attr, expression)
    if isinstance(expression, ast.Call) and ALGORITHM_CLASS in module.qualified_names(expression.func):
        return PresetValue(None, expression)
    return None


def spell_precision(preset: PresetValue, level: Level, module: ModuleIndex) -> str:
    """`level` in the preset's spelling: `lax.DotAlgorithmPreset.X` -> `lax.Precision.HIGH`, through
    the same name of jax.lax; otherwise (a string, `DotAlgorithmPreset` imported alone) the string jax takes."""
    node = preset.node
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
        owner = node.value.value
        if "jax.lax" in module.qualified_names(owner):
            return f"{module.segment(owner)}.Precision.{level.name}"
    if isinstance(node, ast.Constant):
        quote = next(char for char in module.segment(node) if char in "'\"")
        return f"{quote}{level.name.lower()}{quote}"
    return quoted(level.name.lower(), module)


def spell_dtype(dtype: str, module: ModuleIndex) -> str:
    """`jnp.bfloat16` through the module's own import of jax.numpy (or of jax), else the string jax takes."""
    numpy = jax_numpy_name(module)
    return quoted(dtype, module) if numpy is None else f"{numpy}.{dtype}"


def jax_numpy_name(module: ModuleIndex) -> Optional[str]:
    """How the module names jax.numpy at its top level (`jnp`, or `jax.numpy` through `import jax`); None if
    it does not."""
    imported = {binding.imported: binding.name for binding in module.imports
                if binding.scope is module.module_scope and binding.imported}
    if "jax.numpy" in imported:
        return imported["jax.numpy"]
    return "jax.numpy" if imported.get("jax") == "jax" else None
