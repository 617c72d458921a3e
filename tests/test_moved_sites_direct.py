"""codemods/analysis/flow/moved_sites.py, tested directly: which edits count as moving a module's sites
only (the link's kept answers are then moved, not linked again), and which do not."""

from __future__ import annotations

import textwrap
from typing import Optional

import pytest

from codemods.analysis.flow.flow_facts import Called, FlowFacts, Handed, OriginAnswer, Reach, SinkAnswer
from codemods.analysis.flow.moved_sites import moved_answers, site_moves
from codemods.analysis.flow.summary import as_data, summarise

BEFORE = """\
from jax import lax
import jax.numpy as jnp
PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)
OPTS = {"precision": PAIR}
def dot(a, b):
    return jnp.dot(a, b, **OPTS), [x for x in (a, b)]
"""


def _moves(after: str) -> Optional[dict]:
    return site_moves(as_data(summarise(BEFORE, "m")), as_data(summarise(textwrap.dedent(after), "m")))


def test_code_moved_down_and_right_moves_each_site_the_same_way() -> None:
    moves = _moves("# a note\n\n" + BEFORE.replace("(a, b, **", "(a,  b, **").replace("(lax.", "( lax."))
    assert moves is not None and moves[(3, 7)] == (5, 7) and moves[(6, 11)] == (8, 11)
    assert moves[(6, 46)] == (8, 47)  # the comprehension's tuple, after the space on its line


@pytest.mark.parametrize("after", [
    pytest.param(BEFORE.replace("HIGHEST", "HIGH"), id="a value changed"),
    pytest.param(BEFORE.replace("OPTS = {", "OPTS = dict(precision=PAIR)\nX = {"), id="a call added"),
    pytest.param(BEFORE.replace("(a, b, **OPTS)", "(a,\n            b, **OPTS)"), id="one line to two"),
    pytest.param(BEFORE.replace("HIGHEST)\nOPTS", "HIGHEST); OPTS"), id="two lines to one"),
    pytest.param(BEFORE.replace("PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\nOPTS = {\"precision\": PAIR}",
                                "OPTS = {\"precision\": PAIR}\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)"),
                 id="statements swapped"),
])
def test_any_other_edit_is_not_a_move(after: str) -> None:
    assert _moves(after) is None


def test_a_hints_member_moves_with_the_code() -> None:
    """A member of `AccuracyMode` keeps its site in the summary (where a hint is written,
    `OriginAnswer.dropped`): moved as the others are, the move is still one (no new fixpoint)."""
    before = "from jax import lax\nHINT = lax.AccuracyMode.HIGHEST\n"
    moves = site_moves(as_data(summarise(before, "m")), as_data(summarise("# a note\n" + before, "m")))
    assert moves == {(2, 7): (3, 7)}


def test_an_unchanged_summary_moves_nothing() -> None:
    moves = _moves(BEFORE + "# the end\n")
    assert moves is not None and all(old == new for old, new in moves.items())


def test_moved_answers_move_every_site_and_mention_of_a_moved_module_and_nothing_else() -> None:
    """The link's kept answers after an edit that moved module `m`'s sites two lines down: every site of
    `m` they hold (a followed call's, a pair's, an origin's, a scalar's, a handing's, the kernels
    they reach, those a launch the link does not follow may run) and every `(m:line)` their
    descriptions name move; `o`'s stay; the descriptions are sorted again, as the link sorts them."""
    moves = {"m": {(3, 7): (5, 7), (6, 11): (8, 11)}}
    pair, kept_pair = Reach("m", (3, 7), (("DEFAULT",), ("HIGHEST",)), False, ("`print` (m:6)", "`f` (o:1)")), \
        Reach("o", (3, 7), (("HIGH",), ("HIGHEST",)), True)
    flow = {
        "m": FlowFacts(
            sinks=(SinkAnswer((6, 11), "jax.numpy.dot", frozenset({"mosaic_tpu"}), (pair, kept_pair),
                              ("what `g` gives (o:9)", "what `h` gives (m:6)"), True, ("getattr (m:3)",)),),
            origins=(OriginAnswer((3, 7), (("m", (6, 11), "jax.numpy.dot"), ("o", (6, 11), "jax.numpy.dot")),
                                  ("`print` (m:6)",)),
                     OriginAnswer((6, 11), (), (), maybe=(("m", (6, 11), "jax.numpy.dot"), ("o", (6, 11), "jax.numpy.dot")),
                                  launches=("getattr (o:2)", "getattr (m:3)")),
                     OriginAnswer((6, 12), (), dropped=(("m", (6, 11), "jax.lax.exp"), ("o", (6, 11), "jax.lax.exp")))),
            scalars=(((6, 11), "precision", ("HIGHEST",)),),
            handed=(Handed((6, 11), "precision", pair, (("m", (6, 11), "jax.numpy.dot"),)),),
            kernels=(("body", frozenset({"mosaic_tpu"}), "launched by o.run", "body", False),),
            called=(Called((6, 11), "jax.nn.elu", frozenset({"mosaic_tpu"}), (), ("the entry 'elu' of the dict in "
                                                                                 "`o` on line 3",)),)),
        "o": FlowFacts(scalars=(((3, 7), "precision", ("HIGH",)),)),
    }
    moved = moved_answers(flow, moves)
    [sink] = moved["m"].sinks
    assert sink.site == (8, 11) and [reach.site for reach in sink.pairs] == [(5, 7), (3, 7)]
    assert sink.pairs[0].readers == ("`f` (o:1)", "`print` (m:8)") and sink.pairs[1] == kept_pair
    assert sink.unknown == ("what `g` gives (o:9)", "what `h` gives (m:8)") and sink.maybe == ("getattr (m:5)",)
    origin, doubted, member = moved["m"].origins
    assert origin.site == (5, 7) and origin.readers == ("`print` (m:8)",)
    assert origin.reaches == (("m", (8, 11), "jax.numpy.dot"), ("o", (6, 11), "jax.numpy.dot"))
    # one only kernels a launch the link does not follow may run read: those calls, and the launches
    assert doubted.maybe == (("m", (8, 11), "jax.numpy.dot"), ("o", (6, 11), "jax.numpy.dot"))
    assert doubted.site == (8, 11) and doubted.launches == ("getattr (m:5)", "getattr (o:2)")
    # a hint's member written here: where the calls that pass it on drop it
    assert member.dropped == (("m", (8, 11), "jax.lax.exp"), ("o", (6, 11), "jax.lax.exp"))
    assert moved["m"].scalars == (((8, 11), "precision", ("HIGHEST",)),)
    [handed] = moved["m"].handed
    assert handed.site == (8, 11) and handed.reach.site == (5, 7) and handed.sinks == (("m", (8, 11), "jax.numpy.dot"),)
    assert moved["m"].kernels == flow["m"].kernels  # (names: nothing to move, kept)
    assert [called.site for called in moved["m"].called] == [(8, 11)]
    assert moved["o"] == flow["o"]


def test_moved_answers_keep_what_names_no_site_and_move_the_launches_the_operands_name() -> None:
    """`kernels` and `dtypes` name no site: an edit that only moved code keeps them (they were dropped,
    and a kernel another module launches was no kernel code after a comment added above its launch);
    the launches `operands` and `refs` name, `(m:line)`, move."""
    flow = {"k": FlowFacts(kernels=(("body", frozenset({"mosaic_tpu"}), "launched by m.run", "body", False),),
                           dtypes=(("body", "dtype", ("int8",), False),),
                           operands=(("raw", ("int8",), ("(m:3)", "(o:3)")),),
                           refs=(("raw", "x_ref", (("", ("(o:3)",)), ("int8", ("(m:3)",)))),))}
    moved = moved_answers(flow, {"m": {(3, 7): (5, 7)}})
    assert moved["k"].kernels == flow["k"].kernels and moved["k"].dtypes == flow["k"].dtypes
    assert moved["k"].operands == (("raw", ("int8",), ("(m:5)", "(o:3)")),)
    assert moved["k"].refs == (("raw", "x_ref", (("", ("(o:3)",)), ("int8", ("(m:5)",)))),)
