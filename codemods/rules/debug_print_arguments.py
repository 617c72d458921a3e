"""JAX008: pl.debug_print arguments Mosaic TPU cannot print, cast to 32 bits where their dtype is visible."""

from __future__ import annotations

import ast
import string
from typing import Optional

from codemods.analysis.kernel_scope import MOSAIC_TPU
from codemods.analysis.names import one_line
from codemods.analysis.precision import string_value
from codemods.analysis.presets import spell_dtype
from codemods.analysis.visible_dtypes import FLOATS, value_dtype
from codemods.base import JaxTransform
from codemods.capabilities import format_version, placeholder_dtypes, scalar_dtypes, unformatted_abort_dtypes
from codemods.engine.diagnostics import Applicability, Kind
from codemods.engine.fixes import FixPlan
from codemods.engine.rule import ParsedFile, Rule

DEBUG_PRINT = "jax.experimental.pallas.debug_print"
SCALAR_ERROR = "ValueError: Only arrays with 32-bit element types can be converted to scalars"
ABORT_ERROR = "Signedness cannot be inferred"
# Scalars a kernel's grid gives: int32 on every release.
GRID_INDICES = frozenset({"jax.experimental.pallas.program_id", "jax.experimental.pallas.num_programs"})


def placeholder_error(version) -> str:
    """What Mosaic TPU's debug_print says of an argument its placeholders do not format."""
    formatted = " or ".join(words for dtype, words in (("int32", "integers"), ("float32", "floats"))
                            if dtype in placeholder_dtypes(MOSAIC_TPU, version))
    return f"TypeError: All arguments must be 32-bit {formatted} when using placeholders"


class DebugPrintArguments(JaxTransform):
    def plan(self) -> None:
        for call in self.module.calls:
            if not self.matches(call) or not call.args or any(isinstance(arg, ast.Starred) for arg in call.args):
                continue
            if not self.rejecting_backends(call, frozenset({MOSAIC_TPU})):
                continue
            placeholders = _has_placeholders(call.args[0], self.module)
            planned = [self._argument(argument, placeholders) for argument in call.args[1:]]
            if not placeholders:
                planned.append(self._placeholders_for_integers(call, placeholders is None))
            if not any(planned) and self.proven(call):
                self.report(call, Kind.MANUAL, self._unseen(placeholders))

    def matches(self, call: ast.Call) -> bool:
        return DEBUG_PRINT in self.module.qualified_names(call.func)

    def _argument(self, argument: ast.expr, placeholders: Optional[bool]) -> bool:
        """Plan the cast one argument needs; whether it needed one (fixed or noted). Only a vector
        indexed down to a scalar (`v[0, 0]`) is looked at: a vector prints in any dtype, and a scalar
        made otherwise (a reduction) fails in ways a cast of the argument does not mend."""
        version = self.settings.jax_version
        dtype = _indexed_dtype(argument, self.module)
        if dtype is None or dtype == "uint32":  # uint32: int32 would change its value
            return False
        target = _cast_to(dtype, version)
        narrow = target != dtype
        printable = placeholder_dtypes(MOSAIC_TPU, version)
        code = one_line(self.module.segment(argument))
        if narrow:
            why = f"indexing {_a(dtype)} vector down to a scalar fails (\"{SCALAR_ERROR}\")"
        elif placeholders and dtype not in printable:
            why = f"{_a(dtype)} scalar does not fill a placeholder (\"{placeholder_error(version)}\")"
        else:
            return False
        if placeholders and target not in printable:
            quoted = "" if "placeholders" in why else f"\"{placeholder_error(version)}\"; "
            self.report(argument, Kind.MANUAL, (
                f"pl.debug_print argument `{code}`: {why}; on jax {format_version(version)} Mosaic TPU's placeholders "
                f"take {' and '.join(sorted(printable))} only ({quoted}float32 from jax 0.11.0), so no cast fills one "
                f"with a {target}: drop the placeholders (the values then print after the text)"
                + (f" and cast it to {target} first" if narrow else "") + ", or print it on a newer jax"))
            return True
        spelled = spell_dtype(target, self.module)
        fix = FixPlan()  # `v[0, 0]` -> `v.astype(T)[0, 0]`: what stands before the index is an atom already
        bracket = self.module.span(argument.slice)[0] - self.module.span(argument)[0]
        self.rewrite(fix, argument, lambda text: _before_index(text, bracket, f".astype({spelled})"))
        done = f"the vector cast to {target} before it is indexed"
        same = "the same value" + (" (a bool as 0 or 1)" if dtype == "bool_" else "")
        self.report(argument, Kind.FIXED, f"pl.debug_print argument `{code}`: {why} in Mosaic TPU kernels; {done}, "
                    f"which prints {same}", fix, Applicability.SAFE)
        return True

    def _placeholders_for_integers(self, call: ast.Call, unread: bool) -> bool:
        """Without placeholders an integer scalar lowers but aborts Mosaic's compiler on the chip: give
        each value a `{}` (jax prints the values after the text, a space before each: the same text).
        Whether the call needed it (fixed or noted); `unread`: the format is not a literal read here."""
        version = self.settings.jax_version
        printed = [_printed_dtype(argument, self.module, version) for argument in call.args[1:]]
        aborting = unformatted_abort_dtypes(MOSAIC_TPU, version)
        if not aborting.intersection(printed):
            return False
        fmt = call.args[0]
        text = self.module.segment(fmt)
        why = (("pl.debug_print: if its format has no placeholders, " if unread else "pl.debug_print: ")
               + f"an integer scalar printed without placeholders lowers, but Mosaic's compiler on a TPU "
               f"aborts the process (\"{ABORT_ERROR}\", SIGABRT; seen on a TPU v5e with jax 0.10.2)")
        printable = placeholder_dtypes(MOSAIC_TPU, version)
        unfit = sorted({dtype or "a dtype not visible here" for dtype in printed} - printable)
        if unread or unfit or not _plain_literal(fmt, text) or "{" in text or "}" in text:
            blocker = (f"a placeholder takes {' and '.join(sorted(printable))} only on jax {format_version(version)}, "
                       f"and this call also prints {', '.join(unfit)}" if unfit
                       else "the format is not one plain string literal without braces")
            self.report(call, Kind.MANUAL, f"{why}; {blocker}: print each integer through a `{{}}` placeholder, "
                                           "in a call of its own if need be")
            return True
        fix = FixPlan()
        closing = 3 if text.endswith(('"""', "'''")) else 1
        fields = " {}" * len(printed)
        self.rewrite(fix, fmt, lambda source: source[:-closing] + fields + source[-closing:])
        self.report(fmt, Kind.FIXED, f"{why}; a `{{}}` placeholder for each value, which prints the same text "
                                     "(the values after the text, a space before each)", fix, Applicability.SAFE)
        return True

    def _unseen(self, placeholders: Optional[bool]) -> str:
        """A traceback proved this call fails; its arguments' dtypes are not visible here."""
        version = self.settings.jax_version
        printable = ", ".join(sorted(placeholder_dtypes(MOSAIC_TPU, version)))
        return ("pl.debug_print: Mosaic TPU prints only 32-bit scalars: index a vector down to a scalar only once its "
                "elements are 32-bit (`v.astype(jnp.float32)[0, 0]`: `v[0, 0].astype(...)` is too late, the index "
                f"fails, \"{SCALAR_ERROR}\")" + (
                    f", and with placeholders only {printable} fill them on jax {format_version(version)} "
                    f"(\"{placeholder_error(version)}\"): cast each argument, or drop the placeholders"
                    if placeholders is not False else "") + "; the arguments' dtypes are not visible here")


def _printed_dtype(argument: ast.expr, module, version) -> Optional[str]:
    """The scalar dtype `argument` prints once JAX008's cast (if any) is applied; None where not visible."""
    if isinstance(argument, ast.Call) and module.qualified_names(argument.func) & GRID_INDICES:
        return "int32"
    dtype = _indexed_dtype(argument, module)
    return None if dtype is None else _cast_to(dtype, version)


def _indexed_dtype(argument: ast.expr, module) -> Optional[str]:
    """The dtype of a vector indexed down to a scalar (`v[0, 0]`) where the source shows it; else None."""
    if not (isinstance(argument, ast.Subscript) and _scalar_index(argument.slice)):
        return None
    return value_dtype(argument.value, module)


def _cast_to(dtype: str, version) -> str:
    """What JAX008 casts a scalar's vector of `dtype` to: float32 or int32 where Mosaic TPU cannot index
    it down to a scalar, else the dtype itself."""
    if dtype in scalar_dtypes(MOSAIC_TPU, version):
        return dtype
    return "float32" if dtype in FLOATS else "int32"


def _plain_literal(fmt: ast.expr, text: str) -> bool:
    """One string literal (no f-string, no implicit concatenation), so a field goes before its closing quote."""
    if not (isinstance(fmt, ast.Constant) and isinstance(fmt.value, str)):
        return False
    try:
        return ast.literal_eval(text) == fmt.value and not text.startswith(("f", "F"))
    except (SyntaxError, ValueError):
        return False


def _has_placeholders(fmt: ast.expr, module) -> Optional[bool]:
    """Whether a literal format string has `{}` fields (None: not a literal, or not one Python reads)."""
    text = string_value(fmt, module)
    if text is None:
        return None
    try:
        return any(field is not None for _, field, _, _ in string.Formatter().parse(text))
    except ValueError:
        return None


def _scalar_index(index: ast.expr) -> bool:
    """Two or more integer indices and no slice (`v[0, 0]`, `v[i, j]`): a kernel's 2-D block indexed down
    to a scalar. One index (`v[0]`) may leave a row, and a vector prints in any dtype."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return len(parts) >= 2 and not any(
        isinstance(part, (ast.Slice, ast.Starred)) or (isinstance(part, ast.Constant) and not isinstance(part.value, int))
        for part in parts)


def _before_index(text: str, slice_start: int, inserted: str) -> str:
    """`inserted` put before the `[` that opens the index starting at `slice_start`."""
    bracket = text.rindex("[", 0, slice_start)
    return text[:bracket] + inserted + text[bracket:]


def _a(dtype: str) -> str:
    name = dtype.rstrip("_")
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _matches(rule: Rule, file: ParsedFile, call: ast.Call) -> bool:
    return DebugPrintArguments(rule, file).matches(call)


RULE = Rule(
    code="JAX008",
    name="debug-print-arguments",
    summary="Cast pl.debug_print arguments Mosaic TPU cannot print to 32 bits.",
    what="""
        In Pallas kernel bodies that can be lowered for Mosaic TPU, each argument of
        `pl.debug_print` that indexes a vector down to a scalar (`v[0, 0]`: two or more integer
        indices) whose dtype the source shows (a cast, a creation with `dtype=`, a comparison, a
        name bound once to one) and is not 32-bit (bfloat16, float16, 8- or 16-bit integers, bool)
        is cast to float32 or int32 before the index (`v.astype(jnp.float32)[0, 0]`: a cast after
        the index comes too late). The cast keeps the value exactly: the fix is safe. On a jax whose
        placeholders take only int32 (before 0.11.0) a float scalar cannot fill one at all: a
        `[manual]` note says to drop the placeholders (the values then print after the text). Where
        a traceback proves a call fails (`jax-codemod explain`) and no argument's dtype is visible,
        a `[manual]` note says what to cast. Vectors print in any dtype and are left alone; a scalar
        made by a reduction is not looked at (a bfloat16 `jnp.max` fails inside the reduction, a
        bfloat16 `jnp.sum` at the placeholder: no cast of the argument mends the first). A call
        without placeholders that prints an integer scalar (`v[0, 0]` of int32, `pl.program_id(0)`,
        or one the rule casts to int32) gets a `{}` for each value at the end of its format string
        (`"i"` -> `"i {}"`), the text jax prints without them; where a placeholder cannot take
        every value (a float32 on jax before 0.11.0, a uint32, a dtype not visible) or the format
        is not one plain literal, a `[manual]` note says to print the integer through a placeholder.
    """,
    why="""
        Mosaic TPU's scalars are 32-bit: "ValueError: Only arrays with 32-bit element types can be
        converted to scalars" on every release for `v[0, 0]` of a bfloat16 or int8 vector, and with
        placeholders "All arguments must be 32-bit integers when using placeholders" (jax < 0.11.0,
        float32 included) or "... 32-bit integers or floats ..." (later releases). Without
        placeholders an int32 or uint32 scalar lowers, and then Mosaic's compiler in libtpu aborts
        the whole process ("Signedness cannot be inferred", SIGABRT; a TPU v5e with jax 0.10.2),
        which no lowering on a CPU shows. Triton and
        Mosaic GPU print other dtypes, so kernels only they lower are left alone.
    """,
    example="""
        pl.debug_print("row max {}", scores.astype(jnp.bfloat16)[0, 0])
        ->  pl.debug_print("row max {}", scores.astype(jnp.bfloat16).astype(jnp.float32)[0, 0])
    """,
    words=(),
    whole_words=(b"debug_print",),
    kernel_scoped=True,
    check=DebugPrintArguments.check,
    matches=_matches,
)
