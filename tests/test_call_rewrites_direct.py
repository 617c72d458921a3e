"""codemods/engine/call_rewrites.py called in the test's process (issue 35, item 3: mutation testing).

Each rewrite is given a call's source text and must give back the exact text: an argument dropped
(JAX002), a partial unwrapped (JAX002), a call routed through a helper with its precision replaced
or appended (JAX003), with the user's commas, comments, line breaks (LF, CRLF, CR) and alignment
kept as the module's docstring promises.
"""

from __future__ import annotations

import libcst as cst
import pytest

from codemods.engine.call_rewrites import (
    COMMA_SPACE,
    NO_SPACE_EQUAL,
    bare_comma,
    drop_argument,
    remove_arg,
    rewrite_call,
    route_through,
    unwrap_partial,
)


@pytest.mark.parametrize(("code", "index", "expected"), [
    ("f(a, b, c)", 0, "f(b, c)"),
    ("f(a, b, c)", 1, "f(a, c)"),
    ("f(a, b, c)", 2, "f(a, b)"),
    ("f(a)", 0, "f()"),
    ("f(a, accuracy=h)", 1, "f(a)"),
    ("f(a,accuracy=h )", 1, "f(a )"),
    # a trailing comma only where the user had one
    ("f(a, b,)", 1, "f(a,)"),
    ("f(a, b,)", 0, "f(b,)"),
    ("f(\n    a,\n    b,\n)", 1, "f(\n    a,\n)"),
    ("f(\n    a,\n    b\n)", 1, "f(\n    a\n)"),
    ("f(\n    a,\n    b,\n    )", 1, "f(\n    a,\n    )"),
    # the comments of the other arguments' lines stay; the removed argument's goes with it
    ("f(\n    a,  # keep\n    b,  # gone\n)", 1, "f(\n    a,  # keep\n)"),
    ("f(\n    a,  # keep\n    b  # gone\n)", 1, "f(\n    a  # keep\n)"),
    ("f(\n    a,  # keep\n    b\n    )", 1, "f(\n    a  # keep\n    )"),
    ("f(\n    a,\n    b,  # gone\n    )", 1, "f(\n    a,\n    )"),
    ("f(a,  # keep\n  b)", 1, "f(a  # keep\n)"),
    ("f(a,\n  b  # gone\n)", 1, "f(a\n)"),
    ("f(a,\n  b)", 1, "f(a)"),
    ("f(a,\n  # own line\n  b)", 1, "f(a\n  # own line\n)"),
    ("f(\n    a,\n    # own line\n    b,\n)", 1, "f(\n    a,\n    # own line\n)"),
    # line breaks libcst prints anew are the call's own
    ("f(\r\n    a,\r\n    b\r\n)", 1, "f(\r\n    a\r\n)"),
    ("f(\r    a,\r    b\r)", 1, "f(\r    a\r)"),
    ("(f)(a)", 0, "(f)()"),
])
def test_drop_argument(code: str, index: int, expected: str) -> None:
    assert drop_argument(index)(code) == expected


@pytest.mark.parametrize(("code", "expected"), [
    ("functools.partial(f, accuracy=h)", "f"),
    ("partial(\n    jax.lax.rsqrt,\n    accuracy=h,\n)", "jax.lax.rsqrt"),
])
def test_unwrap_partial(code: str, expected: str) -> None:
    assert unwrap_partial()(code) == expected


@pytest.mark.parametrize(("code", "shown"), [
    ("partial", "'partial'"),
    ("x + 1", "'x + 1'"),
    ("x + " + "y" * 100, repr(("x + " + "y" * 100)[:80])),  # the first 80 characters
])
def test_what_is_not_a_call_is_refused(code: str, shown: str) -> None:
    for rewrite in (unwrap_partial(), drop_argument(0), route_through("h", False, None, "P.HIGHEST")):
        with pytest.raises(ValueError) as raised:
            rewrite(code)
        assert str(raised.value) == f"expected a call, got: {shown}"


LSTM = ("lstm_float32", False, None, "P.HIGHEST")


@pytest.mark.parametrize(("args", "code", "expected"), [
    (LSTM, "rnn.lstm(x, h0, c0)", "lstm_float32(rnn.lstm, x, h0, c0, precision=P.HIGHEST)"),
    (LSTM, "rnn.lstm(x)", "lstm_float32(rnn.lstm, x, precision=P.HIGHEST)"),
    (LSTM, "rnn.lstm(x,)", "lstm_float32(rnn.lstm, x, precision=P.HIGHEST,)"),
    (LSTM, "rnn.lstm(x, h0,)", "lstm_float32(rnn.lstm, x, h0, precision=P.HIGHEST,)"),
    (LSTM, "rnn.lstm(x,h0  )", "lstm_float32(rnn.lstm,x,h0,precision=P.HIGHEST  )"),
    (LSTM, "rnn.lstm(x,h0,)", "lstm_float32(rnn.lstm,x,h0,precision=P.HIGHEST,)"),
    (("lstm_float32", False, None, "lax.Precision('highest')"), "rnn.lstm(x)",
     "lstm_float32(rnn.lstm, x, precision=lax.Precision('highest'))"),
    # the precision replaced where it is, by keyword or position
    (("lstm_float32", False, 2, "P.HIGHEST"), "rnn.lstm(x, h0, precision=P.DEFAULT)",
     "lstm_float32(rnn.lstm, x, h0, precision=P.HIGHEST)"),
    (("lstm_float32", False, 2, "P.HIGHEST"), "rnn.lstm(x, h0, P.DEFAULT)", "lstm_float32(rnn.lstm, x, h0, P.HIGHEST)"),
    (("lstm_float32", False, 0, "P.HIGHEST"), "rnn.lstm(precision = P.DEFAULT)",
     "lstm_float32(rnn.lstm, precision = P.HIGHEST)"),
    # bound: the partial stays, the helper goes first
    (("lstm_float32", True, 2, "P.HIGHEST"), "partial(rnn.lstm, x, precision=P.HIGH)",
     "partial(lstm_float32, rnn.lstm, x, precision=P.HIGHEST)"),
    (("lstm_float32", True, None, "P.HIGHEST"), "partial(rnn.lstm, x)",
     "partial(lstm_float32, rnn.lstm, x, precision=P.HIGHEST)"),
    (("lstm_float32", True, None, "P.HIGHEST"), "partial(rnn.lstm,x)", "partial(lstm_float32,rnn.lstm,x,precision=P.HIGHEST)"),
    (("lstm_float32", True, None, "P.HIGHEST"), "partial(rnn.lstm)", "partial(lstm_float32, rnn.lstm, precision=P.HIGHEST)"),
    (("lstm_float32", True, None, "P.HIGHEST"), "partial(rnn.lstm,\n        x)",
     "partial(lstm_float32,\n        rnn.lstm,\n        x,\n        precision=P.HIGHEST)"),
    # one argument a line: each line moves with nothing else
    (LSTM, "rnn.lstm(\n    x,\n    h0,\n)", "lstm_float32(\n    rnn.lstm,\n    x,\n    h0,\n    precision=P.HIGHEST,\n)"),
    (LSTM, "rnn.lstm(\n    x,\n    h0\n)", "lstm_float32(\n    rnn.lstm,\n    x,\n    h0,\n    precision=P.HIGHEST\n)"),
    (LSTM, "rnn.lstm(\n    x,  # one\n    h0,  # two\n)",
     "lstm_float32(\n    rnn.lstm,\n    x,  # one\n    h0,  # two\n    precision=P.HIGHEST,\n)"),
    (LSTM, "rnn.lstm(\n    x,  # one\n    h0  # two\n)",
     "lstm_float32(\n    rnn.lstm,\n    x,  # one\n    h0,  # two\n    precision=P.HIGHEST\n)"),
    (LSTM, "rnn.lstm(\n    x,\n    # note\n    h0\n)",
     "lstm_float32(\n    rnn.lstm,\n    x,\n    # note\n    h0,\n    precision=P.HIGHEST\n)"),
    # aligned under the parenthesis: the continued lines move with it (+4, or -7 down to nothing)
    (LSTM, "rnn.lstm(x,\n         h0)",
     "lstm_float32(rnn.lstm,\n             x,\n             h0,\n             precision=P.HIGHEST)"),
    (("h", False, None, "P.HIGHEST"), "rnn.lstm(x,\n         h0)", "h(rnn.lstm,\n  x,\n  h0,\n  precision=P.HIGHEST)"),
    (("h", False, None, "P.HIGHEST"), "rnn.lstm(x,\n  h0)", "h(rnn.lstm,\nx,\nh0,\nprecision=P.HIGHEST)"),
    (LSTM, "rnn.lstm(x,\n         # note\n         h0)",
     "lstm_float32(rnn.lstm,\n             x,\n             # note\n             h0,\n             precision=P.HIGHEST)"),
    (("h", False, None, "P.HIGHEST"), "rnn.lstm(x,\n         # note\n         h0)",
     "h(rnn.lstm,\n  x,\n  # note\n  h0,\n  precision=P.HIGHEST)"),
    (("h", False, None, "P.HIGHEST"), "rnn.lstm(x,\n  # c\n  h0)", "h(rnn.lstm,\nx,\n# c\nh0,\nprecision=P.HIGHEST)"),
    # a blank line is no comment line: it stays empty
    (LSTM, "rnn.lstm(x,\n\n         h0)",
     "lstm_float32(rnn.lstm,\n             x,\n\n             h0,\n             precision=P.HIGHEST)"),
    (LSTM, "rnn.lstm(x,  # c\n  h0)", "lstm_float32(rnn.lstm,\n      x,  # c\n      h0,\n      precision=P.HIGHEST)"),
    (LSTM, "rnn.lstm(x,\n         h0  # end\n         )",
     "lstm_float32(rnn.lstm,\n             x,\n             h0,  # end\n             precision=P.HIGHEST\n             )"),
    (LSTM, "rnn.lstm(x,\n         h0,  # end\n         )",
     "lstm_float32(rnn.lstm,\n             x,\n             h0,  # end\n             precision=P.HIGHEST,\n             )"),
    # line breaks: the call's own
    (LSTM, "rnn.lstm(\r\n    x,\r\n    h0\r\n)",
     "lstm_float32(\r\n    rnn.lstm,\r\n    x,\r\n    h0,\r\n    precision=P.HIGHEST\r\n)"),
    (LSTM, "rnn.lstm(\r    x,\r    h0\r)", "lstm_float32(\r    rnn.lstm,\r    x,\r    h0,\r    precision=P.HIGHEST\r)"),
    (LSTM, "rnn.lstm(\n    x,\r\n    h0\r\n)",
     "lstm_float32(\r\n    rnn.lstm,\r\n    x,\r\n    h0,\r\n    precision=P.HIGHEST\r\n)"),
    # LF and CR in one call (Python reads both): the new breaks are LF, the CRs stay where they were
    (LSTM, "rnn.lstm(\n    x,\r    h0\r)", "lstm_float32(\n    rnn.lstm,\n    x,\r    h0,\r    precision=P.HIGHEST\n)"),
])
def test_route_through(args: tuple, code: str, expected: str) -> None:
    assert route_through(*args)(code) == expected


def test_rewrite_call_hands_the_parsed_call_and_prints_what_comes_back() -> None:
    seen = []

    def change(call: cst.Call) -> cst.BaseExpression:
        seen.append(call)
        return call.with_changes(func=cst.Name("g"))

    assert rewrite_call(change)("f( a ,\n  b )") == "g( a ,\n  b )"
    assert isinstance(seen[0], cst.Call) and isinstance(seen[0].func, cst.Name) and seen[0].func.value == "f"


def _args(code: str) -> list[cst.Arg]:
    call = cst.parse_expression(code)
    assert isinstance(call, cst.Call)
    return list(call.args)


def _printed(args: list[cst.Arg]) -> str:
    return cst.Module([]).code_for_node(cst.Call(func=cst.Name("f"), args=args))


def test_remove_arg_leaves_its_input_alone() -> None:
    args = _args("f(a, b, c)")
    assert _printed(remove_arg(args, 2)) == "f(a, b)"
    assert _printed(remove_arg(args, 0)) == "f(b, c)"
    assert len(args) == 3 and _printed(args) == "f(a, b, c)"
    with pytest.raises(IndexError):
        remove_arg(args, 3)


def test_the_shared_pieces() -> None:
    printed = cst.Module([]).code_for_node
    assert printed(cst.Arg(cst.Name("a"), keyword=cst.Name("k"), equal=NO_SPACE_EQUAL)) == "k=a"
    assert printed(cst.Arg(cst.Name("a"), comma=COMMA_SPACE)) == "a, "
    (first, _) = _args("f(a,  # c\n  b)")
    assert isinstance(first.comma, cst.Comma)
    assert printed(cst.Arg(cst.Name("a"), comma=bare_comma(first.comma))) == "a,\n  "
    (first, _) = _args("f(a ,  b)")
    assert isinstance(first.comma, cst.Comma)
    assert printed(cst.Arg(cst.Name("a"), comma=bare_comma(first.comma))) == "a ,  "
