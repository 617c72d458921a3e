"""JAX002: accuracy hints a Pallas Mosaic kernel cannot lower, dropped; rsqrt keeps its accuracy.

What it does
    Inside Pallas kernel bodies, removes the `accuracy=` argument of the lax math functions whose
    Mosaic lowering rejects it on the target jax (the table in codemods/capabilities.py: rsqrt,
    sqrt, tanh, logistic, exp, exp2, log, log2, log1p, sin, cos, tan), also in
    `functools.partial(lax.exp, accuracy=...)`. `lax.rsqrt` is routed through `rsqrt_safe`, a
    helper inserted once per module (or imported from --helpers-module) that refines the plain
    rsqrt with one Newton-Raphson step, so the float32 accuracy the hint asked for survives. Every
    dropped hint is reported with its value; imports only the hint used are removed.
Why
    Mosaic GPU and Mosaic TPU raise "Not implemented: accuracy" for any hint but None, and
    Mosaic GPU may lower a plain rsqrt to an approximation. Outside kernels XLA honours the hint,
    so that code is left alone (unless --scope all).
Example
    inv_rms = lax.rsqrt(mean_sq + eps, accuracy=lax.AccuracyMode.HIGHEST)
    ->  inv_rms = rsqrt_safe(mean_sq + eps)
    gate = lax.tanh(x, accuracy=lax.AccuracyMode.HIGHEST)  ->  gate = lax.tanh(x)
"""

from __future__ import annotations

import re
from typing import Optional, Sequence, Union

import libcst as cst
import libcst.matchers as m
from libcst.codemod.visitors import RemoveImportsVisitor
from libcst.metadata import Assignment, ScopeProvider

from codemods.analysis.kernel_scope import PARTIAL
from codemods.analysis.module_helpers import reference_helper, use_helper
from codemods.analysis.names import callee, display, find_arg, matching_name, one_line, qualify
from codemods.base import JaxCodemod
from codemods.capabilities import ACCURACY_REJECTED, accuracy_rejected, accuracy_rejected_anywhere
from codemods.engine.report import Kind
from codemods.rules import ACCURACY_HINTS

RSQRT = "jax.lax.rsqrt"
_BACKEND_NAMES = {"mosaic_gpu": "Mosaic GPU", "mosaic_tpu": "Mosaic TPU"}


class AccuracyHints(JaxCodemod):
    RULE = ACCURACY_HINTS

    def plan(self, module: cst.Module) -> None:
        rejected = qualify("jax.lax", accuracy_rejected_anywhere(self.settings.jax_version))
        for call in self.calls():
            target = self._hinted_function(call, rejected)
            if target is None or not self.in_scope(call):
                continue
            name, function = target
            hint = find_arg(call, None, ("accuracy",))
            if hint is None:
                if any(arg.star == "**" for arg in call.args):
                    self.report(call, Kind.MANUAL, f"{display(name)}: **kwargs may carry an accuracy= hint, "
                                f"which {self._rejecters(name)} reject; pass it explicitly or drop it")
                continue
            if not (isinstance(hint.value, cst.Name) and hint.value.value == "None"):
                self._drop(module, call, name, function, hint)
        # By the hint's position: in `f(g(x, accuracy=a), accuracy=b)` f's call comes first, a does.
        self.findings.sort(key=lambda finding: (finding.line, finding.column))

    def _hinted_function(
        self, call: cst.Call, rejected: frozenset[str]
    ) -> Optional[tuple[str, cst.BaseExpression]]:
        """The rejected lax function `call` applies, as `f(...)` or `functools.partial(f, ...)`."""
        name = callee(self.names, call, rejected)
        if name is not None:
            return name, call.func
        if callee(self.names, call, PARTIAL) and call.args and not call.args[0].star and not call.args[0].keyword:
            name = matching_name(self.names, call.args[0].value, rejected)
            if name is not None:
                return name, call.args[0].value
        return None

    def _drop(
        self, module: cst.Module, call: cst.Call, name: str, function: cst.BaseExpression, hint: cst.Arg
    ) -> None:
        if function is not call.func and len(call.args) == 2:
            # functools.partial(f, accuracy=...) -> f
            self.edit(call, lambda node: node.args[0].value)
            self._forget_imports(call.func)
        else:
            index = call.args.index(hint)
            self.edit(call, lambda node: node.with_changes(args=remove_arg(node.args, index)))
        self._forget_imports(hint.value)
        message = f"{display(name)}: dropped accuracy={one_line(hint.value)} "
        message += f"(rejected by {self._rejecters(name)} kernels); "
        if name == RSQRT:
            helper = use_helper(self, module, reference_helper("rsqrt_safe"))
            self.edit(function, lambda _node: cst.Name(helper))
            self._forget_imports(function)
            message += f"now {helper}(), a Newton-refined rsqrt that keeps float32 accuracy"
        else:
            message += f"{display(name)} now runs at the backend's default accuracy"
        self.report(hint, Kind.DROPPED, message)

    def _rejecters(self, name: str) -> str:
        function = name.rsplit(".", 1)[-1]
        backends = [backend for backend in ACCURACY_REJECTED
                    if function in accuracy_rejected(backend, self.settings.jax_version)]
        return " and ".join(_BACKEND_NAMES.get(backend, backend) for backend in backends)

    def _forget_imports(self, node: cst.CSTNode) -> None:
        """Let the imports `node` used go once nothing else uses them.

        Relative imports stay: libcst cannot resolve them without the file's package name."""
        for name in m.findall(node, m.Name()):
            scope = self.get_metadata(ScopeProvider, name, None)
            if scope is not None and any(
                isinstance(a, Assignment) and isinstance(a.node, cst.ImportFrom) and a.node.relative
                for a in scope[name.value]
            ):
                return
        RemoveImportsVisitor.remove_unused_import_by_node(self.context, node)


def remove_arg(args: Sequence[cst.Arg], index: int) -> list[cst.Arg]:
    """`args` without `args[index]`, the rest laid out as before.

    Removing the last argument moves the closing parenthesis's whitespace onto the argument
    before it: no dangling comma, a trailing comma only where the user had one, and comments on
    the lines of the other arguments kept. A comment on the removed argument's line goes with it.
    """
    kept = list(args)
    removed = kept.pop(index)
    if index < len(kept) or not kept:
        return kept  # the next argument follows the same whitespace the removed one did
    previous = kept[-1]
    assert isinstance(previous.comma, cst.Comma)
    before_removed = previous.comma.whitespace_after
    if isinstance(removed.comma, cst.Comma):
        comma = previous.comma.with_changes(whitespace_after=_join(before_removed, removed.comma.whitespace_after))
        kept[-1] = previous.with_changes(comma=comma)
    else:
        kept[-1] = previous.with_changes(
            comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=_join(before_removed, removed.whitespace_after_arg)
        )
    return kept


Whitespace = Union[cst.SimpleWhitespace, cst.ParenthesizedWhitespace]


def _join(before: Whitespace, closing: Whitespace) -> Whitespace:
    """The whitespace from the argument before the removed one to the closing parenthesis."""
    if isinstance(before, cst.SimpleWhitespace):
        return closing
    if isinstance(closing, cst.ParenthesizedWhitespace):
        return before.with_changes(indent=closing.indent, last_line=closing.last_line)
    has_comment = before.first_line.comment is not None or any(line.comment for line in before.empty_lines)
    return before.with_changes(last_line=cst.SimpleWhitespace("")) if has_comment else closing
