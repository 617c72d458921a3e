"""JAX002: accuracy hints a Pallas Mosaic kernel cannot lower, dropped; rsqrt keeps its accuracy."""

from __future__ import annotations

import ast
import re
from typing import Optional

from codemods.analysis.kernel_scope import Backends, describe_backends
from codemods.analysis.module_helpers import reference_helper
from codemods.analysis.module import ordered_arguments
from codemods.analysis.names import PARTIAL, display, find_arg, has_double_star, is_none, one_line, qualify
from codemods.base import JaxTransform
from codemods.capabilities import ACCURACY_REJECTED, accuracy_rejected, accuracy_rejected_anywhere
from codemods.engine.diagnostics import Applicability, Kind
from codemods.engine.fixes import FixPlan
from codemods.engine.rule import UNPACKED_ARGUMENT, Rule

RSQRT = "jax.lax.rsqrt"


class AccuracyHints(JaxTransform):
    def plan(self) -> None:
        rejected = qualify("jax.lax", accuracy_rejected_anywhere(self.settings.jax_version))
        for call in self.module.calls:
            target = self._hinted_function(call, rejected)
            if target is None:
                continue
            name, function = target
            backends = self.rejecting_backends(call, self._rejecters(name))
            if not backends:
                continue
            hint = find_arg(call, None, ("accuracy",))
            if hint is None:
                if has_double_star(call):
                    self.report(call, Kind.MANUAL, f"{display(name)}: **kwargs may carry an accuracy= hint, which "
                                f"{describe_backends(backends)} reject (\"Not implemented: accuracy\"); pass it "
                                "explicitly or drop it")
                continue
            assert isinstance(hint, ast.keyword)
            if not is_none(hint.value) and not self.shared_with_xla(call):
                self._drop(call, name, function, hint, backends)

    def matches(self, call: ast.Call) -> bool:
        rejected = qualify("jax.lax", accuracy_rejected_anywhere(self.settings.jax_version))
        return self._hinted_function(call, rejected) is not None and (
            find_arg(call, None, ("accuracy",)) is not None or has_double_star(call))

    def _hinted_function(self, call: ast.Call, rejected: frozenset[str]) -> Optional[tuple[str, ast.expr]]:
        """The rejected lax function `call` applies, as `f(...)` or `functools.partial(f, ...)`."""
        name = self.module.callee(call, rejected)
        if name is not None:
            return name, call.func
        if self.module.callee(call, PARTIAL) and call.args and ordered_arguments(call)[0] is call.args[0] \
                and not isinstance(call.args[0], ast.Starred):
            name = self.module.matching_name(call.args[0], rejected)
            if name is not None:
                return name, call.args[0]
        return None

    def _drop(self, call: ast.Call, name: str, function: ast.expr, hint: ast.keyword, backends: Backends) -> None:
        from codemods.engine.call_rewrites import drop_argument, unwrap_partial

        fix = FixPlan()
        arguments = ordered_arguments(call)
        if function is not call.func and len(arguments) == 2:
            # functools.partial(f, accuracy=...) -> f
            self.rewrite(fix, call, unwrap_partial())
            self.forget_imports(fix, call.func)
        else:
            self.rewrite(fix, call, drop_argument(arguments.index(hint)))
        self.forget_imports(fix, hint.value)
        message = f"{display(name)}: dropped accuracy={one_line(self.module.segment(hint.value))} "
        message += f"(rejected by {describe_backends(backends)} kernels); "
        if name == RSQRT:
            # Safe: the helper's Newton step gives back the float32 accuracy the hint asked for.
            helper = self.use_helper(fix, reference_helper("rsqrt_safe"))
            self.replace(fix, function, helper)
            self.forget_imports(fix, function)
            message += f"now {helper}(), a Newton-refined rsqrt that keeps float32 accuracy"
            applicability = Applicability.SAFE
        else:
            # Unsafe: the accuracy the user asked for is no longer promised (under approx_math it
            # may lower to an approximation).
            message += f"{display(name)} now runs at the backend's default accuracy"
            applicability = Applicability.UNSAFE
        self.report(hint, Kind.DROPPED, message, fix, applicability)

    def _rejecters(self, name: str) -> Backends:
        """The kernel backends whose lowering of this function rejects accuracy= on the target jax."""
        function = name.rsplit(".", 1)[-1]
        return frozenset(backend for backend in ACCURACY_REJECTED
                         if function in accuracy_rejected(backend, self.settings.jax_version))


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
        with its value; imports only the hint used are removed.
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
)
