"""JAX002: accuracy hints a Pallas Mosaic kernel cannot lower, dropped; rsqrt keeps its accuracy."""

from __future__ import annotations

import ast
import re
from typing import Optional

from codemods.analysis.flow.flow_facts import SinkAnswer
from codemods.analysis.kernel_scope import MOSAIC_GPU, MOSAIC_TPU, PASSED, Backends, describe_backends, passed_for
from codemods.analysis.flow.link_answers import HINT
from codemods.analysis.module_helpers import reference_helper
from codemods.analysis.module import ordered_arguments
from codemods.analysis.names import display, find_arg, has_double_star, is_none, one_line, qualify
from codemods.base import JaxTransform
from codemods.capabilities import (
    ACCURACY_REJECTED, NOT_LOWERED, UNIMPLEMENTED, accuracy_rejected, accuracy_rejected_anywhere, not_lowered,
)
from codemods.engine.diagnostics import Applicability, Kind
from codemods.engine.fixes import FixPlan
from codemods.engine.rule import UNPACKED_ARGUMENT, Rule

RSQRT = "jax.lax.rsqrt"


class AccuracyHints(JaxTransform):
    def plan(self) -> None:
        rejected = self._functions()
        for call in self.module.calls:
            target = self._hinted_function(call, rejected)
            if target is None:
                continue
            name, function = target
            backends = self.rejecting_backends(call, self._rejecters(name))
            hint = find_arg(call, None, ("accuracy",))
            # What the link found in the **options of `lax.exp(x, **options)` (a hint by keyword is
            # dropped at the call, in code this module's analysis takes for a kernel's).
            answer = self.flow_answer(call) if function is call.func and hint is None and has_double_star(call) else None
            if not backends and answer is not None:  # run in a kernel where only the link sees it
                backends = answer.backends & self._rejecters(name)
            if not backends and function is call.func and hint is not None and not is_none(hint.value):
                backends = self._linked_backends(call, name, hint)
                if backends is None:
                    continue
            # Backends this kernel reaches that cannot lower the function at all, hint or no hint.
            unlowered = self.analysis.kernels.backends_of(call) & self._unlowered_by(name)
            if unlowered and not backends - unlowered:
                if hint is not None and not is_none(hint.value):
                    self.report(call, Kind.MANUAL, f"{display(name)}: {_cannot_lower(name, unlowered)}, with or "
                                "without its accuracy= hint: this kernel cannot lower there as written (compute it "
                                "from functions the kernel lowers); hint left as written")
                continue
            if not backends:
                note = self.unresolved_launch(call, self._rejecters(name))
                if note is not None and hint is not None and not is_none(hint.value):
                    self.report(call, Kind.MANUAL, f"{display(name)}: accuracy={one_line(self.module.segment(hint.value))} "
                                f"{note}; if it does, its Mosaic lowering raises \"Not implemented: accuracy\"")
                elif answer is not None and answer.maybe:
                    self._plan_spread(call, name, backends, answer)
                continue
            if hint is None:
                if answer is not None:
                    self._plan_spread(call, name, backends, answer)
                elif has_double_star(call):
                    verb = "reject" if len(backends) > 1 else "rejects"
                    self.report(call, Kind.MANUAL, f"{display(name)}: **kwargs may carry an accuracy= hint, which "
                                f"{describe_backends(backends)} {verb} (\"Not implemented: accuracy\"); pass it "
                                "explicitly or drop it")
                continue
            assert isinstance(hint, ast.keyword)
            if not is_none(hint.value) and not self._dropped_where_passed(call) and not self.shared_with_xla(call):
                self._drop(call, name, function, hint, backends, unlowered)
        self._plan_foreign_keywords()
        self._plan_flow_origins(rejected)
        self._plan_values(rejected)
        self.report_unseen_kernels((ast.Call, ast.Dict, ast.Attribute), rejected, "accuracy= hint", "dropping it",
                                   "its Mosaic lowering rejects it (\"Not implemented: accuracy\"): give the kernel its own copy")
        # (a Mosaic TPU launch: JAX001's, one finding at one call, naming both walls)
        self.report_lost_launches(frozenset(ACCURACY_REJECTED), "its kernel is not checked (its Mosaic lowering "
                                  "raises \"Not implemented: accuracy\" for an accuracy= hint there)", frozenset({MOSAIC_TPU}))

    # -- hints that cross modules: the whole-program value flow's answers (analysis/flow/link.py) --

    def _plan_spread(self, call: ast.Call, name: str, backends: Backends, answer: SinkAnswer) -> None:
        """`lax.exp(x, **options)` in kernel code: the hints the link found in `options` are dropped
        where they are written when every reader is kernel code (that module's `_plan_flow_origins`);
        one that plain XLA code reads too, or one the link cannot locate, is [manual] here. Only None
        (or nothing a hint) reaching it: nothing to say. Run only where a launch the link does not
        follow may run it (`answer.maybe`): [manual], with where the hints are written."""
        if not backends:
            found = [reach.written() for reach in answer.pairs]
            found += [f"from {why}" for why in answer.unknown]
            if found:
                self.report(call, Kind.MANUAL, f"{display(name)}: **kwargs carry an accuracy= hint ({'; '.join(found)}), "
                            f"and this code may run in a kernel launched through {' or '.join(answer.maybe)}, which the "
                            "analysis does not follow; if it does, its Mosaic lowering raises \"Not implemented: accuracy\"")
            return
        why = [reach.shared("dropping it") if not reach.fixable else reach.outside_the_run("dropping it")
               for reach in answer.pairs if not reach.fixable or not reach.in_run]
        if answer.unknown:
            why.append(f"may come from {' or '.join(answer.unknown)}")
        if why:
            self.report(call, Kind.MANUAL, f"{display(name)}: **kwargs carry an accuracy= hint, which "
                        f"{describe_backends(backends)} reject{'s' if len(backends) == 1 else ''} (\"Not implemented: "
                        f"accuracy\"): {'; '.join(why)}")

    def _plan_values(self, rejected: frozenset[str]) -> None:
        """A kernel's call of a lax function reached as a value with a hint bound to it (`OPS[name](x)`,
        `OPS = {"rsqrt": partial(lax.rsqrt, accuracy=...)}` in another module: the link's `FlowFacts.called`),
        which this module's analysis does not name: [manual] at the call, naming where the hint is bound,
        unless every hint reaching it is bound by a partial of the op the link finds only kernels' calls
        read (a table's entry, outside kernel code): dropped there (that module's `_plan_flow_origins`)."""
        for call, value in self.values_called(rejected, named_partials=False):
            if dict(value.keywords).get(HINT, ("None",)) == ("None",):
                continue
            answer = self.analysis.facts.flow.sink_at(value.site)
            held = answer.pairs if answer is not None and not answer.unknown and not answer.maybe else ()
            why = [reach.shared("dropping it") if not reach.fixable else reach.outside_the_run("dropping it")
                   for reach in held if not reach.fixable or not reach.in_run]
            if held and not why:
                continue
            advice = "; ".join(why) + (": give the kernel a value of its own" if any(
                not reach.fixable for reach in held) else "") if why else (
                "the tool drops a hint written at the op's call, not one a value holds: drop it there where only "
                "kernels read that value, else give the kernel a value of its own")
            rejecters = self._rejecters(value.function)  # (this rule's kernels are those its own calls run in)
            backends = self.rejecting_backends(call, rejecters) or value.backends & rejecters
            if backends:
                self.report(call, Kind.MANUAL, f"`{one_line(self.module.segment(call.func))}` may call "
                            f"{display(value.function)} with an accuracy= hint bound to it, reached here as a value"
                            f"{value.held()}: {describe_backends(backends)} reject{'s' if len(backends) == 1 else ''} it "
                            f"(\"Not implemented: accuracy\"); {advice}")

    def _dropped_where_passed(self, call: ast.Call) -> bool:
        """An op in a function plain XLA code runs too, each caller passing its own hint (`act(x,
        accuracy=None)`): where the link finds that every hint that may reach it in kernel code is
        passed by a kernel's call, and dropped there (that module's `_plan_flow_origins`), or that
        none does, it is left as written: XLA code keeps its hint, and nothing is to say here."""
        answer = self.flow_answer(call)
        return answer is not None and answer.plain and not answer.maybe and not answer.unknown \
            and all(reach.fixable for reach in answer.pairs)

    def _linked_backends(self, call: ast.Call, name: str, hint: ast.keyword) -> Optional[Backends]:
        """The rejecting backends of a hinted op only the link runs in a kernel (a helper that a body
        launched through a relay of another module calls): dropped there as in a kernel, unless plain
        XLA code runs it too (then [manual], and None: said)."""
        answer = self.flow_answer(call)
        backends = answer.backends & self._rejecters(name) if answer is not None else frozenset()
        readers = self.flow_readers(call) if backends else ()
        if readers:
            self.report(call, Kind.MANUAL, f"{display(name)}: accuracy={one_line(self.module.segment(hint.value))} "
                        f"runs in {describe_backends(backends)} kernels, whose lowering rejects it (\"Not implemented: "
                        f"accuracy\"), and as {', '.join(readers)} too (dropping it would change what that code "
                        "computes): give the kernel its own copy")
            return None
        return backends

    def _plan_flow_origins(self, rejected: frozenset[str]) -> None:
        """Hints written here (`wrapper(x, accuracy=...)`, `{"accuracy": ...}`, `dict(accuracy=...)`)
        that reach Mosaic kernels' calls through **kwargs, or that kernel code here passes to a function
        plain XLA code runs too with its own (`mathx.act(x, accuracy=...)`: that op cannot drop it), read
        by nothing else: dropped where they are written (a dict's entry becomes None). Unsafe: that code
        then runs at its default accuracy."""
        for node, origin in self.flow_origins((ast.Call, ast.Dict), rejected):
            callee = sorted(callee for _, _, callee in origin.reaches if callee in rejected)[0]
            where = ", ".join(f"`{module}` line {site[0]}" for module, site, _ in origin.reaches)
            fix = FixPlan()
            if isinstance(node, ast.Call):
                keyword = find_arg(node, None, (HINT,))
                if not isinstance(keyword, ast.keyword):
                    self._note_set_elsewhere(node, callee, where)
                    continue
                held = self._hinted_function(node, rejected)
                if held is not None and held[1] is not node.func:  # a partial of the op (a table's entry)
                    if not any(node.lineno <= finding.line <= node.end_lineno for finding in self.findings):  # type: ignore[operator]
                        # (one called by its name is this module's analysis's, said where written)
                        self._drop(node, *held, keyword, frozenset(), frozenset(), f"it reaches {display(held[0])} "
                                   f"in Mosaic kernel code at {where}, whose lowering rejects it (\"Not implemented: "
                                   "accuracy\"), and nothing else calls this partial")
                    continue
                from codemods.engine.call_rewrites import drop_argument  # libcst: loaded only for a fix

                value: ast.expr = keyword.value
                self.rewrite(fix, node, drop_argument(ordered_arguments(node).index(keyword)))  # type: ignore[arg-type]
                done, at = f"dropped accuracy={one_line(self.module.segment(value))}", keyword
            else:
                entry = next((value for key, value in zip(node.keys, node.values)
                              if isinstance(key, ast.Constant) and key.value == HINT), None)
                if entry is None or is_none(entry):  # set after it is written (`options["accuracy"] = ...`)
                    self._note_set_elsewhere(node, callee, where)
                    continue
                value = entry
                self.replace(fix, value, "None")
                done, at = f'"accuracy": {one_line(self.module.segment(value))} -> None', value
            self.forget_imports(fix, value)
            self.report(at, Kind.DROPPED, f"{done}: it reaches "
                        f"{display(callee)} in Mosaic kernel code at {where}, whose lowering rejects "
                        "it (\"Not implemented: accuracy\"), and nothing else reads it; that code now runs at its "
                        "default accuracy", fix, Applicability.UNSAFE)

    def _note_set_elsewhere(self, node: ast.AST, callee: str, where: str) -> None:
        """A mapping (or call) the link says carries a hint to kernel code, whose hint is not written
        in it: never passed over silently."""
        self.report(node, Kind.MANUAL, f"this mapping carries an accuracy= hint to {display(callee)} in Mosaic kernel "
                    f"code at {where} (\"Not implemented: accuracy\" there), set where this rule does not drop it")

    def _plan_foreign_keywords(self) -> None:
        """An `accuracy=` that reaches kernel code of another module (a partial of its body, a call of its
        factory or of a helper from a kernel) launched for a Mosaic backend, at an op this module does
        not show. Dropped (unsafe: that code then runs at its default accuracy), never passed over
        silently."""
        for keyword, mention, launched, how in self.analysis.kernels.foreign_keywords:
            backends = frozenset(backend for backend in launched & frozenset(ACCURACY_REJECTED)
                                 if accuracy_rejected(backend, self.settings.jax_version))
            if keyword.arg != "accuracy" or is_none(keyword.value) or not backends:
                continue
            if how == PASSED:  # a kernel passes its own value on: said where that value is set
                for source in self._set_by_callers(keyword.value) or [keyword.value]:
                    self.report(source, Kind.MANUAL, f"accuracy={one_line(self.module.segment(source))} reaches "
                                f"`{one_line(self.module.segment(mention))}`, kernel code of another module run by "
                                f"{describe_backends(backends)} (passed on line {self.module.position(keyword)[0]}): "
                                "unless it is None there, its lowering raises \"Not implemented: accuracy\"")
                continue
            call = self.module.parent[keyword]
            where = f"`{one_line(self.module.segment(mention))}`, kernel code of another module run by " \
                    f"{describe_backends(backends)}"
            readers = self.flow_readers(call)
            if readers:  # `CFG = Config(accuracy=...)` that plain XLA code reads too, as the link finds it
                self.report(keyword, Kind.MANUAL, f"accuracy={one_line(self.module.segment(keyword.value))} reaches "
                            f"{where}, whose lowering rejects it (\"Not implemented: accuracy\"), and "
                            f"{', '.join(readers)} also read{'s' if len(readers) == 1 else ''} it (dropping it here "
                            "would change what that code computes): give the kernel a hint of its own, or none")
                continue
            from codemods.engine.call_rewrites import drop_argument  # libcst: loaded only for a fix

            fix = FixPlan()
            self.rewrite(fix, call, drop_argument(ordered_arguments(call).index(keyword)))  # type: ignore[arg-type]
            self.forget_imports(fix, keyword.value)
            self.report(keyword, Kind.DROPPED, f"dropped accuracy={one_line(self.module.segment(keyword.value))}: it "
                        f"reaches {where}, whose lowering rejects it (\"Not implemented: accuracy\"); that code now "
                        "runs at its default accuracy", fix, Applicability.UNSAFE)

    def _set_by_callers(self, value: ast.expr) -> list[ast.expr]:
        """Where the parameter `value` names is set in this module (not None): what
        `functools.partial(kernel, name=...)` binds it to and what calls of its function pass
        (`make(accuracy=...)` for a factory's parameter)."""
        found = []
        for binding in self.module.bindings(value) if isinstance(value, ast.Name) else []:
            if not binding.is_parameter:
                continue
            param, function = binding.node, self.module.parent[self.module.parent[binding.node]]
            found += passed_for(self.module, function, param)  # type: ignore[arg-type]
            found += [keyword.value for partial in self.analysis.kernels.partial_bindings.get(function, ())  # type: ignore[arg-type]
                      for keyword in partial.keywords if keyword.arg == param.arg]  # type: ignore[attr-defined]
        return [source for source in found if not is_none(source)]

    def _functions(self) -> frozenset[str]:
        """The lax functions whose hint this rule drops somewhere, or which some Mosaic backend
        cannot lower at all (their hinted calls get a note)."""
        version = self.settings.jax_version
        return qualify("jax.lax", accuracy_rejected_anywhere(version).union(
            *(not_lowered(backend, version) for backend in NOT_LOWERED)))

    def matches(self, call: ast.Call) -> bool:
        return self._hinted_function(call, self._functions()) is not None and (
            find_arg(call, None, ("accuracy",)) is not None or has_double_star(call))

    def _hinted_function(self, call: ast.Call, rejected: frozenset[str]) -> Optional[tuple[str, ast.expr]]:
        """The rejected lax function `call` applies, as `f(...)` or `functools.partial(f, ...)`."""
        applied = self.module.applied(call, rejected)
        return None if applied is None else applied[:2]

    def _class_attribute(self, call: ast.Call) -> bool:
        """`name = partial(f, ...)` in a class body: a partial is no descriptor, a function is, so
        unwrapping it would make `self.name(x)` pass `self` as the first argument."""
        statement = self.module.parent.get(call)
        return isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is call \
            and isinstance(self.module.parent.get(statement), ast.ClassDef)

    def _drop(self, call: ast.Call, name: str, function: ast.expr, hint: ast.keyword, backends: Backends,
              unlowered: Backends, reached: str = "") -> None:
        """`reached`: why, for a partial the link says only kernels call (else: the `backends` rejecting it)."""
        from codemods.engine.call_rewrites import drop_argument, unwrap_partial

        fix = FixPlan()
        arguments = ordered_arguments(call)
        if function is not call.func and len(arguments) == 2 and not self._class_attribute(call):
            # functools.partial(f, accuracy=...) -> f
            self.rewrite(fix, call, unwrap_partial())
            self.forget_imports(fix, call.func)
        else:
            self.rewrite(fix, call, drop_argument(arguments.index(hint)))
        self.forget_imports(fix, hint.value)
        message = f"{display(name)}: dropped accuracy={one_line(self.module.segment(hint.value))} "
        message += f"({reached or f'rejected by {describe_backends(backends)} kernels'}); "
        approximated = MOSAIC_GPU in backends and self.target_kernel(call) in self.analysis.kernels.approx_math
        if name == RSQRT:
            # Safe: the helper's Newton step gives back the float32 accuracy the hint asked for.
            helper = self.use_helper(fix, reference_helper("rsqrt_safe"))
            self.replace(fix, function, helper)
            self.forget_imports(fix, function)
            message += f"now {helper}(), a Newton-refined rsqrt that keeps float32 accuracy"
            if approximated:
                message += " even under the launch's approx_math=True"
            applicability = Applicability.SAFE
        elif approximated:
            # Unsafe: the launch asks Mosaic GPU for fast math, so the function is approximated.
            message += (f"{display(name)} will be approximated: the launch sets approx_math=True, so Mosaic GPU "
                        "lowers it to a fast approximation, less accurate than the hint asked for")
            applicability = Applicability.UNSAFE
        else:
            # Unsafe: the accuracy the user asked for is no longer promised.
            message += f"{display(name)} now runs at the backend's default accuracy"
            applicability = Applicability.UNSAFE
        if unlowered:
            message += f"; note: {_cannot_lower(name, unlowered)}, so this kernel lowers for " \
                       f"{describe_backends(backends - unlowered)} only"
        self.report(hint, Kind.DROPPED, message, fix, applicability)

    def _unlowered_by(self, name: str) -> Backends:
        """The kernel backends with no lowering for this function at all on the target jax."""
        function = name.rsplit(".", 1)[-1]
        return frozenset(backend for backend in NOT_LOWERED
                         if function in not_lowered(backend, self.settings.jax_version))

    def _rejecters(self, name: str) -> Backends:
        """The kernel backends whose lowering of this function rejects accuracy= on the target jax."""
        function = name.rsplit(".", 1)[-1]
        return frozenset(backend for backend in ACCURACY_REJECTED
                         if function in accuracy_rejected(backend, self.settings.jax_version))


def _cannot_lower(name: str, backends: Backends) -> str:
    function = name.rsplit(".", 1)[-1]
    errors = "; ".join(f'"{UNIMPLEMENTED[backend].format(function)}"' for backend in sorted(backends))
    return f"{describe_backends(backends)} cannot lower {function} in a kernel at all ({errors})"


RULE = Rule(
    code="JAX002",
    name="accuracy-hints",
    summary="Drop accuracy= hints Pallas Mosaic kernels reject; route rsqrt through a float32-accurate helper.",
    what="""
        Inside Pallas kernel bodies that can be lowered for Mosaic GPU or Mosaic TPU, removes the
        `accuracy=` argument of the lax math functions whose Mosaic lowering rejects it on the target
        jax (the table in codemods/capabilities.py: rsqrt, sqrt, tanh, logistic, exp, exp2, log, log2,
        log1p, sin, cos, tan), also in `functools.partial(lax.exp, accuracy=...)`. `lax.rsqrt` is
        routed through `rsqrt_safe`, a helper inserted once per module (or imported from
        --helpers-module) that refines the plain rsqrt with one Newton-Raphson step, so the float32
        accuracy the hint asked for survives: that fix is safe. Dropping the hint of any other
        function is unsafe (applied with --unsafe-fixes): the function then runs at the backend's
        default accuracy, which may be less than the hint asked for. Every dropped hint is reported
        with its value; imports only the hint used are removed. A hint a kernel's call reads from
        `**kwargs` is followed across the project's modules to where it is written (a call's
        `accuracy=`, a dict's `"accuracy"` entry) and dropped there (unsafe) when only Mosaic
        kernels read it; one plain XLA code reads too, or one that cannot be followed, is reported
        at the kernel's call for review. So is a hinted op a kernel calls as a value, a table's entry
        of another module (`{"rsqrt": functools.partial(lax.rsqrt, accuracy=...)}`): the finding names
        the partial that binds the hint (not dropped there yet).
    """,
    why="""
        Mosaic GPU and Mosaic TPU raise "Not implemented: accuracy" for any hint but None, and
        Mosaic GPU may lower a plain rsqrt to an approximation. Outside kernels XLA honours the hint,
        and Triton ignores it, so that code and Triton-only kernels are left alone (unless --scope all).
    """,
    example="""
        inv_rms = lax.rsqrt(mean_sq + eps, accuracy=lax.AccuracyMode.HIGHEST)
        ->  inv_rms = rsqrt_safe(mean_sq + eps)                       (safe)
        gate = lax.tanh(x, accuracy=lax.AccuracyMode.HIGHEST)
        ->  gate = lax.tanh(x)                                        (unsafe)
    """,
    words=(b"accuracy",),
    kernel_scoped=True,
    check=AccuracyHints.check,
    patterns=((b"**", re.compile(UNPACKED_ARGUMENT + rb"\*\s*[A-Za-z_(]")),),
    matches=AccuracyHints.matches_call,
    # Every function whose hint some Mosaic backend rejects on some release: the link follows its
    # accuracy= (keyword-only) across modules, and answers where a hint passed in **kwargs is written.
    follows={name: (None, HINT) for name in qualify("jax.lax", accuracy_rejected_anywhere(None))},
)
