"""JAX001: precisions a Pallas Mosaic TPU kernel cannot lower, collapsed to one it can."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Optional, Union

from codemods import api_changes
from codemods.analysis.flow.flow_facts import SinkAnswer
from codemods.analysis.kernel_scope import BOUND, MOSAIC_GPU, PASSED, SHARED, WRAPPED, Backends, describe_backends
from codemods.analysis.module import Binding, FunctionNode, ModuleIndex
from codemods.analysis.names import Argument, atom, display, find_arg, has_double_star, one_line, value_of
from codemods.analysis.presets import (
    ALGORITHM_ERROR, PRESET_CLASS, PRESET_ERROR, PRESET_FIXES, PRESET_MANUAL, PresetValue, dot_algorithm, spell_dtype,
    spell_precision,
)
from codemods.analysis.precision import NONE, PrecisionLiteral, parse_precision, spell_like
from codemods.analysis.precision_values import PrecisionValues, Unbounded
from codemods.analysis.visible_dtypes import value_dtype
from codemods.base import JaxTransform
from codemods.capabilities import (
    COMPILED_FOR_DTYPE, PER_OPERAND_PRECISION_LOWERED, PRECISIONS, PRIMITIVES, UNIMPLEMENTED, Level, Version,
    compiled_precisions, format_version, lowered_precisions, lowered_presets,
)
from codemods.engine.diagnostics import Applicability, Kind
from codemods.engine.fixes import FixPlan
from codemods.engine.rule import UNPACKED_ARGUMENT, Rule
from codemods.settings import PrecisionPolicy, Scope

# A preset named in the link's description of a value it cannot bound (link_answers._describe_unknown).
_NAMED_PRESET = re.compile(rf"`{re.escape(PRESET_CLASS)}\.(\w+)`")


@dataclass(frozen=True)
class Op:
    kind: str  # the capability-table op: "dot" or "conv"
    precision_position: Optional[int]  # where precision may sit positionally; None: keyword-only


_LAX = {
    "dot_general": Op("dot", 3),
    "dot": Op("dot", None),
    "batch_matmul": Op("dot", 2),
    "conv_general_dilated": Op("conv", 9),
    "conv": Op("conv", 4),
    "conv_with_general_padding": Op("conv", 6),
}
_NUMPY = {name: Op("dot", None) for name in ("dot", "matmul", "einsum", "inner", "tensordot", "vdot")}
_PALLAS = {"dot": Op("dot", 5)}
_TRITON = "jax.experimental.pallas.triton"
_TRITON_OPS = frozenset(f"{_TRITON}.{name}" for name in _PALLAS)
# Contractions and convolutions, and where their precision may sit.
OPS: dict[str, Op] = {
    **{f"jax.lax.{name}": op for name, op in _LAX.items()},
    **{f"jax.numpy.{name}": op for name, op in _NUMPY.items()},
    **{f"jax.experimental.pallas.{name}": op for name, op in _PALLAS.items()},
    **{f"{_TRITON}.{name}": op for name, op in _PALLAS.items()},
}


def accepted_precisions(kind: str, version: Optional[Version]) -> frozenset[Level]:
    """Single scalars the target's Mosaic TPU lowering takes for `kind` (conservative if it cannot lower it)."""
    accepted = lowered_precisions("mosaic_tpu", kind, version) or lowered_precisions("mosaic_tpu", kind, None)
    assert accepted is not None
    return accepted


Sources = Union[str, list[tuple[ast.expr, PrecisionLiteral]]]  # literals to rewrite, or why there are none


@dataclass
class _Use:
    """A precision value that reaches a kernel op, and the level it must become."""

    literal: PrecisionLiteral
    level: Level
    message: str


# The kernel backends whose lowering of a contraction can reject a precision: those with rows in the
# capability table that do not lower per-operand pairs. Today Mosaic TPU alone: Triton lowers every
# precision (a pair with DEFAULT or HIGH as TF32), and Mosaic GPU lowers no contraction at all.
REJECTERS: Backends = frozenset(
    backend for (backend, op), rows in PRECISIONS.items()
    if op in ("dot", "conv") and rows and backend not in PER_OPERAND_PRECISION_LOWERED
)
# "As of JAX v0.7, parameters to jaxpr equations must have __hash__": a list precision fails to trace
# anywhere (seen on 0.10.2 and 0.12.0.1, XLA included).
LIST_REJECTED_SINCE: Version = (0, 7)
# Triton's dot lowering asserts `batch_dims == ((), ())`: lax.batch_matmul never lowers there.
BATCH_MATMUL = "jax.lax.batch_matmul"
BATCHED_DOT_UNLOWERED: Backends = frozenset({"triton"})
PALLAS_DOT = ("jax.experimental.pallas.dot", f"{_TRITON}.dot")
# When `pl.dot` stopped existing: JAX150's row, the one place that fact is kept (the triton dot stays).
PALLAS_DOT_ROW = next(row for row in api_changes.TABLE if row.code == "JAX150")


class PerOperandPrecision(JaxTransform):
    def plan(self) -> None:
        self._values = PrecisionValues(self.module, self.analysis.kernels)
        self._fixes: dict[ast.expr, _Use] = {}
        self._kernel_precisions: set[ast.expr] = set()
        self._notes: dict[object, tuple[list[ast.expr], str]] = {}  # one [manual] per source, with its uses
        pending: list[tuple[ast.Call, str, Op, ast.expr, Optional[SinkAnswer]]] = []
        for call in self.module.calls:
            applied = self.module.applied(call, OPS)
            if applied is None:
                continue
            name, _, shift = applied
            op = OPS[name]
            arg = _precision_arg(call, op, shift)
            if arg is None and not _may_carry_precision(call, op):
                continue
            if self._note_no_lowering(call, name, op, arg):
                if arg is not None:  # still a kernel's use of the value: a constant it shares stays fixable
                    self._kernel_precisions.add(value_of(arg))
                continue
            preset = dot_algorithm(value_of(arg), self.module) if arg is not None and op.kind == "dot" else None
            if preset is not None:
                self._plan_preset(call, name, op, preset, value_of(arg))
                continue
            answer = self.flow_answer(call)
            if not self.rejecting_backends(call, REJECTERS):
                if answer is not None and (answer.backends & REJECTERS or answer.maybe):  # launched where only the link sees it
                    self._plan_from_flow(call, name, op, value_of(arg) if arg is not None else None, answer)
                elif arg is not None:
                    self._note_unresolved_launch(call, name, op, value_of(arg))
                continue
            if answer is not None and not answer.backends and not answer.maybe:
                self.report(call, Kind.MANUAL, (
                    f"{display(name)}: this module's analysis takes `{self.target_kernel(call).name}` for kernel code, "
                    "but the project-wide value flow finds only plain XLA code calling it and no launch of it: left as "
                    "written (XLA honours any precision); if a launch it does not follow runs it, "
                    f"{self._unless_a_scalar(op)}"))
                continue
            if arg is None and answer is not None:
                self._plan_from_flow(call, name, op, None, answer)
                continue
            if arg is None:
                spread = "**kwargs" if has_double_star(call) else "*args"
                self.report(call, Kind.MANUAL, f"{display(name)}: {spread} may carry a precision a Mosaic TPU kernel cannot "
                            f"lower ({self._failure(op)})")
                continue
            self._kernel_precisions.add(value_of(arg))
            pending.append((call, name, op, value_of(arg), answer))
        for call, name, op, value, answer in pending:
            self._plan_value(call, name, op, value, answer)
        self._plan_foreign_keywords()
        self._plan_flow_origins()
        self._plan_handed()
        self.report_unseen_kernels((ast.Tuple, ast.List), OPS, "per-operand precision", "rewriting it",
                                   "Mosaic TPU rejects a pair there: give the kernel a precision of its own")
        self.report_lost_launches(REJECTERS, "its kernel is not checked (Mosaic TPU raises \"Per-operand dot "
                                             "precision unsupported\" for a precision pair there, and \"Not "
                                             "implemented: accuracy\" for an accuracy= hint)")
        for source, use in self._fixes.items():
            fix = FixPlan()
            written = spell_like(use.literal, use.level, self.module)
            self.replace(fix, source, written)
            self._retype(fix, source, written)
            # Safe: the kernel cannot lower the code as written, and the new scalar is at least as
            # accurate as every operand asked for.
            self.report(source, Kind.FIXED, use.message, fix)
        for uses, message in self._notes.values():
            lines = sorted({self.module.position(use)[0] for use in uses})
            where = f" (used on line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})" if len(lines) > 1 else ""
            self.report(uses[0], Kind.MANUAL, message.replace("{uses}", where))

    def _note_unresolved_launch(self, call: ast.Call, name: str, op: Op, value: ast.expr) -> None:
        """A precision Mosaic TPU rejects, in code an unresolved launch may run: a [manual] note."""
        note = self.unresolved_launch(call, REJECTERS)
        if note is None or name in _TRITON_OPS:
            return  # (Triton's own ops run in Triton kernels only, which lower any precision)
        try:
            values = self._values.possible(value)
        except Unbounded as unknown:  # never silent: it may be a pair, or a scalar Mosaic TPU rejects
            self.report(call, Kind.MANUAL, f"{display(name)}: precision `{one_line(self.module.segment(value))}` is not "
                        f"a literal ({unknown}) and {note}; {self._unless_a_scalar(op)}")
            return
        if any(isinstance(literal, PrecisionLiteral) and self._target_level(op.kind, literal) is not None
               for _, literal in values):
            self.report(call, Kind.MANUAL, f"{display(name)}: precision `{one_line(self.module.segment(value))}` "
                        f"{note}; if it does, {self._failure(op)}")

    def _plan_preset(self, call: ast.Call, name: str, op: Op, preset: PresetValue, written: ast.expr) -> None:
        """A `lax.DotAlgorithmPreset` (or `lax.DotAlgorithm`) as a kernel dot's precision, which no
        Mosaic TPU release lowers: written as operand casts, a scalar and preferred_element_type
        (analysis/presets.py), safe where that is the preset's arithmetic; a [manual] note where no
        spelling Mosaic TPU lowers keeps its accuracy. Triton lowers most presets: left alone there. A
        name bound to a preset is rewritten at the call (`written`): what else reads it keeps it."""
        version = self.settings.jax_version
        what = f"{display(name)}: precision {preset.describe()}"
        failure = (f'a dot algorithm preset is rejected in Mosaic TPU kernels: "{PRESET_ERROR}"' if preset.name
                   else f'a lax.DotAlgorithm is rejected in Mosaic TPU kernels: "{ALGORITHM_ERROR}"')
        triton = self.analysis.kernels.backends_of(call) & {"triton"}
        triton_fails = bool(triton) and (preset.name is None or preset.name not in lowered_presets("triton", version))
        triton_error = f'; Triton rejects it too: "Unsupported dot algorithm: {preset.name}."' if triton_fails else ""
        if not self.rejecting_backends(call, REJECTERS):
            note = self.unresolved_launch(call, REJECTERS)
            if triton_fails:
                self.report(written, Kind.MANUAL, f"{what}: Triton lowers no fp8 or float64 preset (\"Unsupported dot "
                            f"algorithm: {preset.name}.\"): write the types its operands should have")
            elif note is not None:
                self.report(written, Kind.MANUAL, f"{what} {note}; if it does, {failure}")
            return
        if self.shared_with_xla(call):
            return
        fix_for = PRESET_FIXES.get(preset.name) if preset.name is not None else None
        operands = _operands(call, name, self.module)
        if fix_for is None or (fix_for.cast is not None and operands is None):
            if fix_for is not None:
                why = f"its operands are not written out, to be cast to {fix_for.cast}"
            else:
                why = PRESET_MANUAL[preset.name] if preset.name is not None else \
                    "write the precision its types name as a lax.Precision, with operand casts"
            self.report(written, Kind.MANUAL, f"{what} ({failure}{triton_error}): {why}")
            return
        level, exact, how = fix_for.level, fix_for.exact, fix_for.how
        dtypes = {visible_dtype(operand, self.module) for operand in operands or ()}
        if level > Level.DEFAULT and dtypes == {"bfloat16"}:
            level, exact, how = Level.DEFAULT, True, "its operands are bfloat16, which DEFAULT multiplies exactly"
        elif level not in accepted_precisions(op.kind, version):
            level, exact = min(lv for lv in accepted_precisions(op.kind, version) if lv > level), False
            how += (f"; {fix_for.level.name} is not lowered on jax {format_version(version)}, {level.name} is more "
                    "accurate")
        text = [spell_precision(preset, level, self.module)]
        accumulation = None if _gives_preferred_type(call, written) else fix_for.accumulation
        if accumulation is not None:
            if name == BATCH_MATMUL:
                self.report(written, Kind.MANUAL, f"{what} ({failure}): lax.batch_matmul takes no "
                            "preferred_element_type for the preset's float32 accumulation; use lax.dot_general")
                return
            text.append(f"preferred_element_type={spell_dtype(accumulation, self.module)}")
        fix = FixPlan()
        self.replace(fix, written, ", ".join(text))
        casts = []
        if fix_for.cast is not None:
            dtype = spell_dtype(fix_for.cast, self.module)
            for operand in operands or ():
                if visible_dtype(operand, self.module) != fix_for.cast:
                    self.rewrite(fix, operand, lambda code, o=operand: f"{atom(o, code)}.astype({dtype})")
                    casts.append(f"`{one_line(self.module.segment(operand))}`")
        done = [level.name] + ([f"operands {', '.join(casts)} cast to {fix_for.cast}"] if casts else []) + \
            ([f"preferred_element_type {accumulation}"] if accumulation else [])
        message = f"{what} -> {', '.join(done)} ({failure}); {how}"
        if accumulation:
            message += (f"; the result is {accumulation}, as the preset's is for float32 operands (for bfloat16 "
                        "ones the preset's result was bfloat16)")
        if not exact:
            message += "; numerics change"
        if triton:
            message += "; forced by Mosaic TPU (Triton lowers it as written)"
        if level > Level.DEFAULT and "mosaic_tpu" in self.analysis.kernels.backends_of(call):
            message += _dtype_note(op, level, version)
        self.report(written, Kind.FIXED, message, fix, Applicability.SAFE if exact else Applicability.UNSAFE)

    def _plan_foreign_keywords(self) -> None:
        """A precision that reaches kernel code of another module, whose op (dot or conv) this module
        does not show: bound by `functools.partial(kernels.body, precision=PAIR)`, passed to a kernel
        factory (`kernels.make(precision=PAIR)`) or by a kernel to a helper (`ops.mm(a, b,
        precision=precision)`), or handed to a function whose kernel takes it as its precision
        (`ops.matmul(x, w, precision=PAIR)`, WRAPPED). A literal becomes the scalar both ops lower
        that is at least as accurate (unsafe: its use is elsewhere); a value that can be one Mosaic
        TPU rejects is a note, and so is any where code there that is no kernel's precision reads it
        too (SHARED). Never passed over silently."""
        bound = [(keyword, mention, how) for keyword, mention, launched, how in self.analysis.kernels.foreign_keywords
                 if (keyword.arg == "precision" or how in (WRAPPED, SHARED) or self._values.may_be_a_member_pair(keyword.value))
                 and (launched & REJECTERS or self.settings.scope is Scope.ALL)]
        values = {keyword.value for keyword, _, _ in bound}
        accepted = accepted_precisions("dot", self.settings.jax_version) \
            & accepted_precisions("conv", self.settings.jax_version)
        for keyword, mention, how in bound:
            where = f"`{one_line(self.module.segment(mention))}`, " + (
                "kernel code of another module run by Mosaic TPU" if how in (BOUND, PASSED)
                else "whose kernel in another module takes it as its precision (run by Mosaic TPU)")
            source = keyword.value
            bindings = self.module.bindings(source) if isinstance(source, ast.Name) else []
            readers = self._read_elsewhere(bindings[0]) if len(bindings) == 1 else ""
            if len(bindings) == 1 and bindings[0].value is not None and not readers \
                    and all(reference in values for reference in bindings[0].references):
                source = bindings[0].value  # a constant only these bindings use: rewritten where it is set
            parsed = parse_precision(source, self.module)
            if isinstance(parsed, PrecisionLiteral) and how in (BOUND, WRAPPED):
                if len(set(parsed.levels)) == 1 and parsed.levels[0] in accepted:
                    continue
                if self.analysis.facts.flow.fixed_where_written((source.lineno, source.col_offset), OPS):
                    continue  # `_plan_flow_origins`: the level the ops it reaches need, every reader known
                shared = ", ".join(self.flow_readers(source))
                if shared:  # the link sees plain XLA code read it too (`CFG = Config(precision=PAIR)`)
                    self.report(source, Kind.MANUAL, f"precision {parsed.describe()} reaches {where}, which rejects it, "
                                f"and {shared} also read{'s' if ', ' not in shared else ''} it (rewriting it here would "
                                "change what that code reads): give the kernel a precision of its own")
                    continue
                level = min(level for level in accepted if level >= parsed.most_accurate)
                fix = FixPlan()
                self.replace(fix, source, spell_like(parsed, level, self.module))
                self.report(source, Kind.FIXED, f"precision {parsed.describe()} -> {level.name}: it reaches {where}, "
                            "which rejects it (the scalar dot and conv both lower there)", fix, Applicability.UNSAFE)
                continue
            if parsed is NONE:
                continue
            try:
                rejected = [(found, literal) for found, literal in self._values.possible(keyword.value)
                            if isinstance(literal, PrecisionLiteral)
                            and not (len(set(literal.levels)) == 1 and literal.levels[0] in accepted)]
            except Unbounded as unknown:
                rejected = [(found, literal) for found, literal in self._values.pairs_flowing_into(keyword.value)
                            if not (len(set(literal.levels)) == 1 and literal.levels[0] in accepted)]
                if not rejected and self._known_to_the_link(keyword, accepted):
                    continue
                if not rejected:
                    self.report(keyword.value, Kind.MANUAL, f"precision `{one_line(self.module.segment(keyword.value))}` "
                                f"reaches {where} ({unknown}): Mosaic TPU rejects it there unless it is a single scalar "
                                "that lowers (DEFAULT or HIGHEST for any op)")
                    continue
            shared = f"; `{keyword.value.id}` is read by {readers} too" if readers else ""  # type: ignore[attr-defined]
            advice = ("; code there that is no kernel's precision reads it too, and a scalar written here would change "
                      "that code as well: give the kernel a precision of its own") if how == SHARED else \
                "; write a single scalar that lowers (DEFAULT or HIGHEST for any op)"
            for found, literal in rejected:  # said where the value is written: that is what to change
                if isinstance(parse_precision(found, self.module), PrecisionLiteral) and \
                        self.analysis.facts.flow.fixed_where_written((found.lineno, found.col_offset), OPS):
                    continue  # `_plan_flow_origins` rewrites it there: the link found every reader a kernel's
                line = self.module.position(keyword.value)[0]
                self.report(found, Kind.MANUAL, f"precision {literal.describe()} reaches {where} (passed on line {line}): "
                            f"Mosaic TPU rejects it there{advice}{shared}")

    def _known_to_the_link(self, keyword: ast.keyword, accepted: frozenset) -> bool:
        """The whole-program link knows every value `keyword` passes: only scalar precisions that lower
        (or None: `mlp(x, w, precision=blocks.MLP)`, `blocks.MLP` a `"bfloat16"` of another module), or
        a pair `_plan_handed` says where it is written and who else reads it."""
        call = self.module.parent.get(keyword)
        if not isinstance(call, ast.Call) or not keyword.arg:
            return False
        flow, site = self.analysis.facts.flow, (call.lineno, call.col_offset)
        levels = flow.scalar_levels(site, keyword.arg)
        return levels is not None and all(Level[level] in accepted for level in levels) \
            or flow.handed_at(site, keyword.arg)

    def matches(self, call: ast.Call) -> bool:
        applied = self.module.applied(call, OPS)
        if applied is None:
            return False
        name, _, shift = applied
        op = OPS[name]
        return _precision_arg(call, op, shift) is not None or _may_carry_precision(call, op)

    def _note_no_lowering(self, call: ast.Call, name: str, op: Op, arg: Optional[Argument]) -> bool:
        """A contraction in a kernel whose every backend has no lowering for it at all on the target
        jax: it cannot lower whatever its precision, so no precision fix helps; say so rather than
        nothing (True when said). A list precision is still fixed where a backend of the kernel
        rejects precisions (it fails to trace anywhere), and the fix's message says both; in a
        kernel only backends that reject none run (Mosaic GPU), nothing would fix it: the note."""
        backends = self.analysis.kernels.backends_of(call)
        if not backends or self._unlowered(name, op, backends) != backends:
            return False
        if self.settings.scope is Scope.ALL or (arg is not None and self._list_rejected(value_of(arg))
                                                and self.rejecting_backends(call, REJECTERS)):
            return False  # rewritten anyway (asked for everywhere; a list fails to trace anywhere)
        hint = (" (Mosaic GPU kernels multiply matrices with plgpu.wgmma or plgpu.tcgen05_mma)"
                if op.kind == "dot" and MOSAIC_GPU in backends else "")
        self.report(call, Kind.MANUAL, f"{display(name)}: {self._cannot_lower(name, op, backends)}, whatever its "
                    f"precision: this kernel cannot lower as written{hint}; no precision fix written")
        return True

    def _list_rejected(self, value: ast.expr) -> bool:
        """A list precision, on a release that rejects one when tracing (every backend, XLA too)."""
        version = self.settings.jax_version
        return isinstance(value, ast.List) and (version is None or version >= LIST_REJECTED_SINCE)

    def _unlowered(self, name: str, op: Op, backends: Backends) -> Backends:
        """The backends among `backends` that cannot lower this contraction at all on the target jax."""
        version = self.settings.jax_version
        found = {backend for backend in backends
                 if (backend, op.kind) in PRECISIONS and lowered_precisions(backend, op.kind, version) is None}
        if name == BATCH_MATMUL:
            found |= backends & BATCHED_DOT_UNLOWERED
        return frozenset(found)

    def _cannot_lower(self, name: str, op: Op, unlowered: Backends) -> str:
        batched = unlowered & BATCHED_DOT_UNLOWERED if name == BATCH_MATMUL else frozenset()
        parts = [_no_lowering(op, unlowered - batched)] if unlowered - batched else []
        if batched:
            parts.append(f"{describe_backends(batched)} cannot lower a batched dot_general (its lowering asserts there "
                         "are no batch dimensions)")
        return " and ".join(parts)

    def _pallas_dot_removed(self, name: str) -> bool:
        version = self.settings.jax_version
        return name in PALLAS_DOT_ROW.old and version is not None and version >= PALLAS_DOT_ROW.removed

    def _plan_value(self, call: ast.Call, name: str, op: Op, value: ast.expr, answer: Optional[SinkAnswer]) -> None:
        """`answer`: what the link found reaching `call` (`_flow_answer`), asked for where it
        cannot be followed here."""
        parsed = parse_precision(value, self.module)
        if parsed is NONE:
            return
        if isinstance(parsed, PrecisionLiteral):
            self._schedule(value, parsed, name, op, call)
            return
        sources = self._literal_sources(value, call)
        # No literal here (a parameter only `**opts` binds, its default None): a pair the link finds that
        # cannot be fixed where it is written (shared with XLA code, or run by a launch it does not follow),
        # or a value the code computes (`partial(body, **dict(zip(names, values)))`), is said here
        unfixable = answer is not None and (answer.maybe or bool(answer.computed())
                                            or any(not reach.fixable for reach in answer.pairs))
        if not isinstance(sources, str) and (sources or not unfixable):
            for source, literal in sources:
                self._schedule(source, literal, name, op, call)
            return
        if answer is not None:  # followed across the project: what reaches it, from where
            self._plan_from_flow(call, name, op, value, answer)
            return
        # Not a value we may rewrite where it is written: follow it through the module, and say
        # something only if it can really reach the kernel as a precision the lowering rejects.
        try:
            rejected = [(source, literal) for source, literal in self._values.possible(value)
                        if isinstance(literal, PrecisionLiteral) and self._target_level(op.kind, literal) is not None]
        except Unbounded as unknown:
            why = f"{sources} ({unknown}): {self._unless_a_scalar(op)}"
        else:
            if not rejected:
                return  # every value it can take, followed through the module, lowers
            values = " or ".join(sorted({literal.describe() for _, literal in rejected}))
            lines = sorted({self.module.position(source)[0] for source, _ in rejected})
            where = f"line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}"
            shared = f"; {sources}" if self._is_module_constant(value) else ""
            why = f"can be {values} (set on {where}{shared}): {self._failure(op)}"
        key = self._source_key(value)
        # The note stands at the first use: it names that use's op and says how that op fails.
        uses, message = self._notes.get(key, ([], f"{display(name)}: precision `{one_line(self.module.segment(value))}`{{uses}} {why}"))
        self._notes[key] = ([*uses, value], message)

    # -- values that cross modules: the whole-program value flow's answers (analysis/flow/link.py) --

    def _plan_from_flow(self, call: ast.Call, name: str, op: Op, value: Optional[ast.expr], answer: SinkAnswer) -> None:
        """A pair every reader of which is kernel code is fixed where it is written (that module's
        origins: `_plan_flow_origins`); one that other code reads too, or a value the link cannot
        know, is [manual] here, with where it is written and who else reads it."""
        shown = f"`{one_line(self.module.segment(value))}`" if value is not None else "passed in **kwargs"
        why = []
        for reach in answer.pairs:
            if answer.maybe and not answer.backends & REJECTERS:
                why.append(f"can be {_describe_levels(reach.levels)}, {reach.written()}, "
                           f"and this code may run in a Mosaic TPU kernel launched through {' or '.join(answer.maybe)}, "
                           "which the analysis does not follow")
            elif not reach.fixable:
                why.append(f"can be {_describe_levels(reach.levels)}, {reach.shared('rewriting it')}")
            elif not reach.in_run:
                why.append(f"can be {_describe_levels(reach.levels)}, {reach.outside_the_run('rewriting it')}")
        where = value if value is not None else call
        if why:
            self.report(where, Kind.MANUAL, f"{display(name)}: precision {shown} {'; '.join(why)}: {self._failure(op)}")
        elif answer.unknown:
            self.report(where, Kind.MANUAL, f"{display(name)}: precision {shown} may come from "
                        f"{' or '.join(answer.unknown)}: {self._preset_note(answer.unknown, op) or self._unless_a_scalar(op)}")

    def _plan_flow_origins(self) -> None:
        """Pairs written here that reach kernels in other modules (or here, through other modules),
        read by nothing else: rewritten where they are written, as a constant used only by kernels is."""
        for node, origin in self.flow_origins((ast.Tuple, ast.List), OPS):
            if node in self._fixes:
                continue
            literal = parse_precision(node, self.module)
            callees = sorted({callee for _, _, callee in origin.reaches if callee in OPS})
            where = ", ".join(f"`{module}` line {site[0]}" for module, site, _ in origin.reaches)
            if not isinstance(literal, PrecisionLiteral):
                self.report(node, Kind.MANUAL, f"this value reaches {display(callees[0])} in a Mosaic TPU kernel "
                            f"({where}) as a per-operand precision, which Mosaic TPU rejects; it is not a literal "
                            "this rule rewrites")
                continue
            levels = [level for callee in callees if (level := self._target_level(OPS[callee].kind, literal)) is not None]
            if levels:
                level = max(levels)
                self._fixes[node] = _Use(literal, level, (
                    f"precision {literal.describe()} -> {level.name} (per-operand precision is rejected in Mosaic TPU "
                    f"kernels): it reaches {display(callees[0])} in a kernel at {where}, and nothing else reads it"))

    def _plan_handed(self) -> None:
        """A call here handing another module's kernel wrapper a pair that other code reads too (the link's
        `handed`): [manual] at the call, as at the kernel, so that a run over this file fails too."""
        calls = {(call.lineno, call.col_offset): call for call in self.module.calls} if self.analysis.facts.flow.handed else {}
        reported = {finding.line for finding in self.findings}
        for handed in self.analysis.facts.flow.handed:
            call = calls.get(handed.site)
            keyword = next((k for k in call.keywords if k.arg == handed.keyword), None) if call is not None else None
            if keyword is None or self.module.position(keyword.value)[0] in reported:
                continue
            kernels = ", ".join(f"`{module}` line {site[0]}" for module, site, _ in handed.sinks)
            self.report(keyword.value, Kind.MANUAL, f"precision `{one_line(self.module.segment(keyword.value))}` can be "
                        f"{_describe_levels(handed.reach.levels)}, {handed.reach.shared('rewriting it')}; this call "
                        f"carries it into {display(handed.sinks[0][2])} in a Mosaic TPU kernel at {kernels}, which "
                        "rejects a pair there: give the kernel a precision of its own")

    def _retype(self, fix: FixPlan, pair: ast.expr, written: str) -> None:
        """`precision: tuple = (P.DEFAULT, P.HIGH)` (a dataclass field, an annotated constant) keeps a true
        annotation: the scalar's class, as `written` spells it (`P.HIGH` -> `P`), where it said a tuple."""
        statement = self.module.parent.get(pair)
        if not isinstance(statement, ast.AnnAssign) or statement.value is not pair:
            return
        annotation = statement.annotation
        base = annotation.value if isinstance(annotation, ast.Subscript) else annotation
        named = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
        owner, dot, _ = written.rpartition(".")
        if named in ("tuple", "Tuple") and dot:
            self.replace(fix, annotation, owner)

    def _is_module_constant(self, value: ast.expr) -> bool:
        bindings = self.module.bindings(value) if isinstance(value, ast.Name) else []
        return len(bindings) == 1 and bindings[0].scope is self.module.module_scope and bindings[0].value is not None

    def _preset_note(self, unknown: tuple[str, ...], op: Op) -> Optional[str]:
        """Where a value the link cannot bound names a dot algorithm preset (`algorithm=config.PRESET`
        bound into another module's kernel): the preset's own error, and what to pass instead."""
        names = sorted({found for why in unknown for found in _NAMED_PRESET.findall(why)})
        if op.kind != "dot" or not names:
            return None
        accepted = accepted_precisions(op.kind, self.settings.jax_version)
        advice = []
        for preset in names:
            fix_for = PRESET_FIXES.get(preset)
            if fix_for is None:
                advice.append(f"{preset}: {PRESET_MANUAL.get(preset, 'a scalar lax.Precision with operand casts')}")
                continue
            level = fix_for.level if fix_for.level in accepted else min(lv for lv in accepted if lv > fix_for.level)
            advice.append(f"{preset}: {level.name}" + (f", its operands cast to {fix_for.cast}" if fix_for.cast else "")
                          + (f", preferred_element_type {fix_for.accumulation}" if fix_for.accumulation else "")
                          + f" ({fix_for.how})")
        return (f'a dot algorithm preset is rejected in Mosaic TPU kernels: "{PRESET_ERROR}"; pass what it computes '
                f"in a form Mosaic TPU lowers instead, where it is written: {'; '.join(advice)}")

    def _unless_a_scalar(self, op: Op) -> str:
        """What may fail for a value the analysis cannot bound."""
        return f"if it is not a single scalar the Mosaic TPU lowering accepts, {self._failure(op)}"

    def _failure(self, op: Op) -> str:
        """How the kernel fails, in the lowering's own words."""
        accepted = accepted_precisions(op.kind, self.settings.jax_version)
        failures = [f'Mosaic TPU raises "Per-operand {op.kind} precision unsupported" for a pair']
        failures += [f'"Unsupported {op.kind} precision: {level.name}"' for level in Level if level not in accepted]
        return " and ".join(failures)

    def _source_key(self, value: ast.expr) -> object:
        """What a [manual] note is about: the binding a name reads (one note for all its uses)."""
        if isinstance(value, ast.Name):
            bindings = self.module.bindings(value)
            if bindings:
                return tuple(id(binding) for binding in bindings)
        return value

    def _schedule(self, source: ast.expr, literal: PrecisionLiteral, name: str, op: Op, call: ast.Call) -> None:
        level = self._target_level(op.kind, literal)
        if level is None or self.shared_with_xla(call):
            return
        version = format_version(self.settings.jax_version)
        reason = ("per-operand precision is rejected" if len(set(literal.levels)) > 1
                  else f"{literal.levels[0].name} is not lowered for {op.kind} on jax {version}")
        narrow = self._narrow_level(call, name, op, literal)
        if narrow is _NO_LEVEL_COMPILES:
            self.report(source, Kind.MANUAL, (
                f"{display(name)}: precision {literal.describe()} ({reason} in Mosaic TPU kernels): no single precision "
                "compiles and keeps it: an operand cast to bfloat16 compiles at DEFAULT only (Mosaic's compiler refuses "
                "more, seen on a TPU v5e) and a float32 one asks for more; cast the bfloat16 operand to float32 (exact) "
                "and write HIGHEST, or write DEFAULT and accept bfloat16 rounding of the float32 operand"))
            return
        extra = ""
        if narrow is not None and narrow < level:
            level = narrow
            extra = (f"; its operands are cast to bfloat16, which {narrow.name} multiplies exactly and Mosaic TPU's "
                     "compiler takes no higher")
        message = f"{display(name)}: precision {literal.describe()} -> {level.name} ({reason} in Mosaic TPU kernels){extra}"
        if lowered_precisions("mosaic_tpu", op.kind, self.settings.jax_version) is None:
            message += f"; note: on jax {version} {_no_lowering(op, frozenset({'mosaic_tpu'}))}"
        others = self.analysis.kernels.backends_of(call) - REJECTERS
        unlowered = self._unlowered(name, op, others)
        if self._list_rejected(source):
            message += ("; needed on every backend: jax >= 0.7 rejects a list precision when tracing (parameters must "
                        "be hashable)")
        elif others - unlowered and not self._pallas_dot_removed(name):
            message += f"; forced by Mosaic TPU ({describe_backends(others - unlowered)} lowers it as written)"
        if unlowered:  # on a release whose Mosaic TPU has no rule for the op either, no backend lowers it
            lowers = "this kernel lowers for Mosaic TPU only" if lowered_precisions(
                "mosaic_tpu", op.kind, self.settings.jax_version) is not None else "no backend of this kernel lowers it"
            message += f"; note: {self._cannot_lower(name, op, unlowered)}, so {lowers}"
        if self._pallas_dot_removed(name):  # one pass: JAX150's rewrite of the call keeps this edit inside it
            message += (f"; {display(name)} itself is gone on jax {version} (removed in "
                        f"{format_version(PALLAS_DOT_ROW.removed)}): {PALLAS_DOT_ROW.code} rewrites it to jnp.dot")
        if self.target_kernel(call) in self.analysis.kernels.dict_compiler_params:
            message += ("; note: its launch passes compiler_params as a dict, which jax 0.10.2 and later reject "
                        "(TypeError: \"unhashable type: 'dict'\"): Mosaic TPU cannot lower this kernel until the launch "
                        "passes pltpu.CompilerParams(...) instead")
        if "mosaic_tpu" in self.analysis.kernels.backends_of(call):
            message += _dtype_note(op, level, self.settings.jax_version)
        previous = self._fixes.get(source)
        if previous is None or previous.level < level:
            self._fixes[source] = _Use(literal, level, message)

    def _narrow_level(self, call: ast.Call, name: str, op: Op, literal: PrecisionLiteral) -> object:
        """The scalar a fix needs when the op's operands are visibly bfloat16 (`x.astype(jnp.bfloat16)`):
        what a bfloat16 operand asks for, DEFAULT gives exactly, and Mosaic TPU's compiler refuses more
        (COMPILED_FOR_DTYPE). None when an operand's dtype is not seen; _NO_LEVEL_COMPILES where a float32
        operand asks for more than a bfloat16 one compiles at."""
        compiled = compiled_precisions("mosaic_tpu", op.kind, "bfloat16", self.settings.jax_version)
        operands = _operands(call, name, self.module)
        if compiled is None or operands is None:
            return None
        dtypes = [visible_dtype(operand, self.module) for operand in operands]
        if "bfloat16" not in dtypes:
            return None
        levels = literal.levels if literal.is_pair else literal.levels * len(dtypes)
        needed = max((level for level, dtype in zip(levels, dtypes) if dtype != "bfloat16"), default=Level.DEFAULT)
        fits = [level for level in compiled if level >= needed]
        if not fits and None not in dtypes:
            return _NO_LEVEL_COMPILES
        return min(fits) if fits and None not in dtypes else None

    def _target_level(self, kind: str, literal: PrecisionLiteral) -> Optional[Level]:
        """The scalar to write, or None when the literal already lowers."""
        accepted = accepted_precisions(kind, self.settings.jax_version)
        if len(set(literal.levels)) == 1 and literal.levels[0] in accepted:
            return None
        if self.settings.precision_policy is PrecisionPolicy.HIGHEST:
            return Level.HIGHEST
        return min(level for level in accepted if level >= literal.most_accurate)

    # -- values that are not literals at the call: follow them within the module --

    def _literal_sources(self, value: ast.expr, call: ast.Call) -> Sources:
        """The literals a name stands for, or a string saying why they cannot be rewritten."""
        if not isinstance(value, ast.Name):
            return "is not a literal"
        bindings = self.module.bindings(value)
        if len(bindings) != 1:
            return "is not a literal" if not bindings else "is assigned more than once"
        binding = bindings[0]
        if binding.is_parameter:
            owner = self.module.parent[self.module.parent[binding.node]]
            kernel = self.target_kernel(call)
            if owner is not kernel:
                return "is a parameter of an enclosing function, set by its callers"
            return self._parameter_sources(binding.node, kernel, call)  # type: ignore[arg-type]
        if binding.value is not None:  # a module constant, or a variable set once in a function
            what = "a module constant" if binding.scope is self.module.module_scope else "a variable"
            literal = parse_precision(binding.value, self.module)
            if not isinstance(literal, PrecisionLiteral):
                return f"is {what} that is not a precision literal"
            if not all(self._feeds_kernel_precision(reference) for reference in binding.references):
                return f"is {what} also used outside kernel precisions (rewriting it would change XLA code)"
            readers = self._read_elsewhere(binding)
            if readers:
                return f"is {what} that {readers} also reads (rewriting it would change what that code reads)"
            return [(binding.value, literal)]
        return "is not a literal"

    def _read_elsewhere(self, binding: Binding) -> str:
        """The other modules that read a module constant otherwise than as a Mosaic TPU kernel's
        precision (the project index's facts), as a finding names them: "" if none."""
        if binding.scope is not self.module.module_scope:
            return ""
        readers = dict(self.analysis.facts.read_elsewhere).get(binding.name, ())
        return ", ".join(f"`{reader}`" for reader in readers)

    def _feeds_kernel_precision(self, reference: ast.Name) -> bool:
        """A use of a constant as a kernel op's precision, or as the default of a kernel's parameter."""
        holder = self.module.parent.get(reference)
        if reference in self._kernel_precisions:
            return True
        if isinstance(holder, ast.arguments):
            function = self.module.parent.get(holder)
            return function in self.analysis.kernels.kernels and function not in self.analysis.kernels.shared
        return False

    def _parameter_sources(self, param: ast.arg, kernel: FunctionNode, call: ast.Call) -> Sources:
        """A kernel parameter: the values bound by functools.partial(kernel, ...) and its default
        (a constant there is rewritten where it is set, as at the op)."""
        values = self._values.bound_values(kernel, param)
        if not values:
            return "is a kernel parameter whose value is not bound in this module"
        if kernel not in self.analysis.kernels.direct and self._values.passed_by_callers(kernel, param):
            # a helper (`mm(a, b, precision=precision)` in a kernel): its callers set it
            return "is a parameter its callers set"
        sources: list[tuple[ast.expr, PrecisionLiteral]] = []
        for source in values:
            literal = parse_precision(source, self.module)
            if literal is NONE:
                continue
            if isinstance(literal, PrecisionLiteral):
                sources.append((source, literal))
                continue
            constant = self._literal_sources(source, call) if isinstance(source, ast.Name) else None
            if not isinstance(constant, list):
                return f"is a kernel parameter bound to `{one_line(self.module.segment(source))}`, not a literal"
            sources += constant
        return sources


def _describe_levels(levels: tuple[tuple[str, ...], ...]) -> str:
    """(("DEFAULT",), ("HIGH", "HIGHEST")) -> "(DEFAULT, HIGH or HIGHEST)"."""
    return "(" + ", ".join(" or ".join(names) for names in levels) + ")"


def _gives_preferred_type(call: ast.Call, precision: ast.expr) -> bool:
    """The call passes preferred_element_type, by keyword or after a positional precision."""
    if find_arg(call, None, ("preferred_element_type",)) is not None:
        return True
    return precision in call.args and call.args.index(precision) < len(call.args) - 1


def _precision_arg(call: ast.Call, op: Op, shift: int) -> Optional[Argument]:
    """The precision argument of `op(...)`, or of `functools.partial(op, ...)` (`shift` 1)."""
    position = None if op.precision_position is None else op.precision_position + shift
    return find_arg(call, position, ("precision",))


# No single precision compiles for the operands' visible dtypes and keeps what each asked for.
_NO_LEVEL_COMPILES = object()
# Ops whose operands lead the call, in order; einsum's follow its subscripts.
_LEADING_OPERANDS = 2
_SUBSCRIPTS_FIRST = frozenset({"jax.numpy.einsum"})
# The operand dtypes the fixes read: a contraction's operand is cast to one of these.
_OPERAND_DTYPES = frozenset({"bfloat16", "float32"})


def _operands(call: ast.Call, name: str, module: ModuleIndex) -> Optional[list[ast.expr]]:
    """The operands of `op(a, b, ...)` as written; None for `functools.partial(op, ...)` (its operands
    come where the partial is called: its first argument is the op itself), or operands spread by `*`."""
    applied = module.applied(call, OPS)
    if applied is None or applied[2] or any(isinstance(arg, ast.Starred) for arg in call.args):
        return None
    operands = call.args[1:] if name in _SUBSCRIPTS_FIRST else call.args[:_LEADING_OPERANDS]
    return operands if len(operands) >= _LEADING_OPERANDS else None


def visible_dtype(value: ast.expr, module: ModuleIndex) -> Optional[str]:
    """"bfloat16" or "float32" where the source shows the value has it (analysis/visible_dtypes.py: a
    cast, a creation with `dtype=`, arithmetic on one, a name bound once to one); None where it shows
    neither (another dtype is no operand the capability table says anything of)."""
    dtype = value_dtype(value, module)
    return dtype if dtype in _OPERAND_DTYPES else None


def _dtype_note(op: Op, level: Level, version: Optional[Version]) -> str:
    """What the fix cannot do for operands whose dtype Mosaic's compiler refuses at `level`: the
    analysis does not know a kernel operand's dtype, so the finding says which dtype breaks the fix."""
    notes = []
    for (backend, kind, dtype) in COMPILED_FOR_DTYPE:
        compiled = compiled_precisions(backend, kind, dtype, version)
        if backend == "mosaic_tpu" and kind == op.kind and compiled is not None and level not in compiled:
            instead = min(compiled)
            notes.append(f"; for {dtype} operands write {instead.name} instead: exact for {dtype} inputs, while Mosaic "
                         f"TPU's compiler rejects {dtype} operands above {instead.name} (\"Bad lhs type\", seen at "
                         "HIGHEST on a TPU v5e, jax 0.10.2)")
    return "".join(notes)


def _no_lowering(op: Op, backends: Backends) -> str:
    """What the lowerings say about a contraction they have no rule for, in their own words."""
    primitive = PRIMITIVES[op.kind]
    errors = "; ".join(f'"{UNIMPLEMENTED[backend].format(primitive)}"' for backend in sorted(backends))
    return f"{describe_backends(backends)} cannot lower {primitive} in a kernel at all ({errors})"


def _may_carry_precision(call: ast.Call, op: Op) -> bool:
    """`**kwargs` may pass precision=; `*args` may reach its position where it has one."""
    return has_double_star(call) or (
        op.precision_position is not None and any(isinstance(arg, ast.Starred) for arg in call.args))


RULE = Rule(
    code="JAX001",
    name="per-operand-precision",
    summary="Collapse per-operand or unsupported precisions in Pallas TPU kernels to one scalar the lowering accepts.",
    what="""
        Inside Pallas kernel bodies that can be lowered for Mosaic TPU, rewrites the `precision=` of
        contractions and convolutions to the single scalar the target jax's Mosaic TPU lowering
        accepts for that op and that is at least as accurate as the most accurate operand:
        `(DEFAULT, HIGH)` on a conv becomes `HIGHEST`; on a dot it becomes `HIGH` where the release
        lowers HIGH, else `HIGHEST`. The value is rewritten where it is written (a module constant,
        a parameter default, a functools.partial binding), in the user's own spelling. A value the
        analysis cannot bound gets a [manual] note. The fix is safe: the kernel cannot lower the
        code as written, and the new precision is at least as accurate as every operand asked for.
        It is written for float32 operands: with bfloat16 operands Mosaic TPU's compiler rejects
        HIGHEST ("Bad lhs type", seen on a TPU v5e) where DEFAULT is exact, and the analysis does
        not know an operand's dtype, so such a fix's finding says to write DEFAULT there.
        A `lax.DotAlgorithmPreset` on a kernel dot, which no Mosaic TPU release lowers, becomes
        what it lowers: `BF16_BF16_F32` casts both operands to bfloat16 at DEFAULT with
        `preferred_element_type` float32, `BF16_BF16_F32_X3` is HIGH (HIGHEST where HIGH is not
        lowered), `_X6` HIGHEST (safe: the preset's arithmetic); TF32 and `F32_F32_F32` become
        HIGH or HIGHEST (unsafe: numerics change); fp8, float16, float64, `_X9`, `BF16_BF16_BF16`
        and `lax.DotAlgorithm` get a [manual] note. A preset another module binds into the kernel
        (`partial(kern.body, algorithm=cfg.PRESET)`) gets a [manual] note quoting the preset's error
        and naming what to pass instead.
    """,
    why="""
        Mosaic TPU takes one contract precision per op. A per-operand pair raises
        "Per-operand conv precision unsupported" (or the dot twin) and some scalars raise
        "Unsupported conv precision: HIGH"; a dot algorithm preset raises "TypeError:
        'DotAlgorithmPreset' object is not subscriptable". Outside kernels XLA honours per-operand precision, and
        Triton lowers it (as TF32), so that code, and Triton- or Mosaic-GPU-only kernels, are left alone.
    """,
    example="""
        lax.conv_general_dilated(x, w, (1, 1), "SAME", precision=(P.DEFAULT, P.HIGH))
        ->  lax.conv_general_dilated(x, w, (1, 1), "SAME", precision=P.HIGHEST)
        jnp.dot(x, w, precision=lax.DotAlgorithmPreset.BF16_BF16_F32)
        ->  jnp.dot(x.astype(jnp.bfloat16), w.astype(jnp.bfloat16), precision=lax.Precision.DEFAULT,
                    preferred_element_type=jnp.float32)
    """,
    # A precision may also sit positionally (`lax.dot_general(x, y, dims, "high")`) without the
    # word: files that name an op taking it there are analysed too (`dot` covers `dot_general`);
    # so are calls that unpack arguments (`*args` may reach a positional precision, `**kwargs`
    # carry precision=).
    words=(b"recision", b"conv", b"batch_matmul", b"dot"),
    kernel_scoped=True,
    check=PerOperandPrecision.check,
    patterns=((b"*", re.compile(UNPACKED_ARGUMENT + rb"{1,2}\s*[A-Za-z_(]")),),
    matches=PerOperandPrecision.matches_call,
    follows={name: (op.precision_position, "precision") for name, op in OPS.items()},
)
