"""Edits that must keep the layout of an argument list, made with libcst on the one call they touch.

The engine hands each function here the call's source text (with any edits nested inside it
already applied); the call is parsed alone with libcst, changed, and printed back, so comments,
line breaks, trailing commas and alignment around the arguments survive. Imported only when a fix
needs it.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence, Union

import libcst as cst


def rewrite_call(change: Callable[[cst.Call], cst.BaseExpression]) -> Callable[[str], str]:
    def apply(code: str) -> str:
        call = cst.parse_expression(code)
        if not isinstance(call, cst.Call):
            raise ValueError(f"expected a call, got: {code[:80]!r}")
        # Line breaks libcst prints anew take the call's own (a CRLF file stays CRLF).
        newline = next((n for n in ("\r\n", "\n", "\r") if n in code), "\n")
        return _code(change(call), newline)

    return apply


def _code(node: cst.CSTNode, newline: str = "\n") -> str:
    return cst.Module([], default_newline=newline).code_for_node(node)


def drop_argument(index: int) -> Callable[[str], str]:
    """`f(a, accuracy=h, b)` -> `f(a, b)` (the argument at `index` in the written order)."""
    return rewrite_call(lambda call: call.with_changes(args=remove_arg(call.args, index)))


def unwrap_partial() -> Callable[[str], str]:
    """`functools.partial(f, accuracy=h)` -> `f`."""
    return rewrite_call(lambda call: call.args[0].value)


def route_through(helper: str, bound: bool, precision_index: Optional[int], precision: str) -> Callable[[str], str]:
    """`f(a, ..., precision=p)` -> `helper(f, a, ..., precision=NEW)` (the precision replaced, or
    appended where there was none); with `bound`, `partial(f, ...)` -> `partial(helper, f, ...)`."""

    def change(call: cst.Call) -> cst.Call:
        args = list(call.args)
        value = cst.parse_expression(precision)
        if precision_index is None:
            args = _append(args, cst.Arg(value, keyword=cst.Name("precision"), equal=NO_SPACE_EQUAL))
        else:
            args[precision_index] = args[precision_index].with_changes(value=value)
        return _route_through(call.with_changes(args=args), helper, bound)

    return rewrite_call(change)


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


_NO_SPACE = cst.SimpleWhitespace("")
NO_SPACE_EQUAL = cst.AssignEqual(whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE)
COMMA_SPACE = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _append(args: Sequence[cst.Arg], new: cst.Arg) -> list[cst.Arg]:
    """`new` after the last argument, separated like the arguments before it. What followed the
    last argument (its comment, a trailing comma, the line break before the parenthesis) stays."""
    *rest, last = args
    separator = bare_comma(rest[-1].comma) if rest and isinstance(rest[-1].comma, cst.Comma) else COMMA_SPACE
    trailing = last.comma if isinstance(last.comma, cst.Comma) else None
    after_last = trailing.whitespace_after if trailing else last.whitespace_after_arg
    between = separator.whitespace_after
    if isinstance(after_last, cst.ParenthesizedWhitespace) and isinstance(between, cst.ParenthesizedWhitespace):
        # keep the comment on the last argument's line; the new argument starts the next line
        separator = separator.with_changes(
            whitespace_after=after_last.with_changes(last_line=between.last_line, indent=between.indent)
        )
    if not trailing:  # what followed the last argument now follows the new one
        last = last.with_changes(whitespace_after_arg=_NO_SPACE)
    last = last.with_changes(comma=separator)
    closing = _bare_whitespace(after_last)
    if trailing:
        return [*rest, last, new.with_changes(comma=trailing.with_changes(whitespace_after=closing))]
    return [*rest, last, new.with_changes(whitespace_after_arg=closing)]


def bare_comma(comma: cst.Comma) -> cst.Comma:
    return comma.with_changes(whitespace_after=_bare_whitespace(comma.whitespace_after))


def _bare_whitespace(whitespace: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    """The same line break and indentation, without the comments."""
    if isinstance(whitespace, cst.ParenthesizedWhitespace):
        return whitespace.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
    return whitespace


def _route_through(call: cst.Call, helper: str, bound: bool) -> cst.Call:
    """`f(a, ...)` -> `helper(f, a, ...)`; with `bound`, `partial(f, ...)` -> `partial(helper, f, ...)`.
    Arguments continued under the opening parenthesis move with it, so a visually aligned call
    stays aligned."""
    first = call.args[0]
    comma = bare_comma(first.comma) if isinstance(first.comma, cst.Comma) else COMMA_SPACE
    if bound:  # the parenthesis stays where it is
        return call.with_changes(args=[cst.Arg(cst.Name(helper), comma=comma), *call.args])
    callee_arg = cst.Arg(call.func, comma=comma)
    args = [callee_arg, *call.args]
    if not isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        shift = len(helper) - len(_code(call.func))
        args = [_shift_arg(arg, shift) for arg in args]
    return call.with_changes(func=cst.Name(helper), args=args)


def _shift_arg(arg: cst.Arg, by: int) -> cst.Arg:
    comma = arg.comma
    if isinstance(comma, cst.Comma):
        comma = comma.with_changes(whitespace_after=_shift(comma.whitespace_after, by))
    return arg.with_changes(comma=comma, whitespace_after_arg=_shift(arg.whitespace_after_arg, by))


def _shift(whitespace: cst.BaseParenthesizableWhitespace, by: int) -> cst.BaseParenthesizableWhitespace:
    if not isinstance(whitespace, cst.ParenthesizedWhitespace):
        return whitespace
    moved = lambda ws: cst.SimpleWhitespace(" " * max(0, len(ws.value) + by))  # noqa: E731
    lines = [line.with_changes(whitespace=moved(line.whitespace)) if line.comment else line
             for line in whitespace.empty_lines]
    return whitespace.with_changes(empty_lines=lines, last_line=moved(whitespace.last_line))

