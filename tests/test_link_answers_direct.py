"""The whole-program value flow's answers (codemods/analysis/flow/link_answers.py, flow_facts.py), in the
test's process: small projects summarised and linked (`link`, the entry point), each answer field
checked: which backends a followed call lowers for, the pairs that reach it, where they are written,
whether they may be fixed there and who else reads them, what cannot be known, launches the flow
does not follow, and plain XLA code (what no kernel runs). No jax is executed."""

from __future__ import annotations

import json
import textwrap

import pytest

from codemods.analysis.flow.flow_facts import NO_FLOW, Called, FlowFacts, Handed, LostLaunch, OriginAnswer, Reach, SinkAnswer
from codemods.analysis.flow.link import link
from codemods.analysis.flow.moved_sites import moved_answers
from codemods.analysis.flow.summary import summarise
from codemods.rules.per_operand_precision import OPS

FOLLOWS = {name: (op.precision_position, "precision") for name, op in OPS.items()}
PALLAS_BACKENDS = frozenset({"mosaic_tpu", "triton"})  # what a bare `pl.pallas_call` may lower for
DOT = "jax.numpy.dot"

# `k`: a pair written at (5, 7), read by `mm`'s dot at (7, 11), which the kernel `body` calls.
KERNELS = textwrap.dedent("""
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental import pallas as pl
    PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)
    def mm(a, b):
        return jnp.dot(a, b, precision=PAIR)
    def body(x_ref, o_ref):
        o_ref[...] = mm(x_ref[...], x_ref[...])
    def run(x):
        return pl.pallas_call(body, out_shape=x)(x)
""")
MIXED = (("DEFAULT",), ("HIGHEST",))


def _answers(modules: dict[str, str]) -> dict[str, FlowFacts]:
    summaries = [summarise(textwrap.dedent(text), name) for name, text in modules.items()]
    assert all(summary is not None for summary in summaries)
    return link(summaries, FOLLOWS)[0]


def _sink(modules: dict[str, str], module: str = "k") -> SinkAnswer:
    [sink] = _answers(modules)[module].sinks
    return sink


def test_a_pair_only_kernels_read_is_fixed_where_it_is_written() -> None:
    answers = _answers({"k": KERNELS})
    reach = Reach("k", (5, 7), MIXED, True, ())
    assert answers == {"k": FlowFacts((SinkAnswer((7, 11), DOT, PALLAS_BACKENDS, (reach,), (), True, ()),),
                                      (OriginAnswer((5, 7), (("k", (7, 11), DOT),)),))}


@pytest.mark.parametrize("plain", [
    "import k\ndef reference(x):\n    return k.mm(x, x)\n",  # nothing calls it, it takes no refs: an API's entry
    "import k\ndef orphan(x_ref):\n    return k.mm(x_ref, x_ref)\norphan(1)\n",  # module-level code calls it
    "import k\ndef reference(x):\n    return k.mm(x, x)\ndef api(x):\n    return reference(x)\napi(1)\n",  # called by code called
    # three calls down from the entry: what plain code calls is plain, however deep
    "import k\ndef a(x):\n    return b(x)\ndef b(x):\n    return c(x)\ndef c(x):\n    return k.mm(x, x)\n",
])
def test_a_helper_plain_xla_code_also_calls_keeps_the_pair_where_it_is(plain: str) -> None:
    answers = _answers({"k": KERNELS, "r": plain})
    [sink] = answers["k"].sinks
    assert sink.backends == PALLAS_BACKENDS and sink.reached
    [reach] = sink.pairs
    assert (reach.module, reach.site, reach.levels, reach.fixable) == ("k", (5, 7), MIXED, False)
    assert reach.readers == ("`jax.numpy.dot` outside kernels (k:7)",)
    # the literal's origin carries who else reads it: no fix may rewrite it there
    assert [(origin.site, origin.readers) for origin in answers["k"].origins] == [((5, 7), reach.readers)]


def test_what_a_kernel_helper_calls_is_plain_too_when_plain_code_also_calls_the_helper() -> None:
    """`reference` (plain) and the body (a kernel) both call `mm`, which calls `mid`, which calls
    `inner`'s dot: `mm`, `mid` and `inner` run in the kernel and outside it, however deep the chain."""
    code = KERNELS.replace("return jnp.dot(a, b, precision=PAIR)", "return mid(a, b)\ndef mid(a, b):\n    return inner(a, b)\n"
                           "def inner(a, b):\n    return jnp.dot(a, b, precision=PAIR)")
    alone = _answers({"k": code})["k"].sinks[0]
    assert [reach.fixable for reach in alone.pairs] == [True] and alone.site == (11, 11)
    shared = _answers({"k": code, "r": "import k\ndef reference(x):\n    return k.mm(x, x)\n"})["k"].sinks[0]
    assert shared.backends == PALLAS_BACKENDS
    assert [(reach.fixable, reach.readers) for reach in shared.pairs] == [(False, ("`jax.numpy.dot` outside kernels (k:11)",))]


def test_a_function_that_takes_refs_and_that_nothing_calls_may_be_a_kernel_not_plain_code() -> None:
    sink = _sink({"k": KERNELS, "r": "import k\ndef orphan(x_ref):\n    return k.mm(x_ref, x_ref)\n"})
    assert [reach.fixable for reach in sink.pairs] == [True]


def test_a_followed_call_outside_kernels() -> None:
    """Plain XLA code's dot: no backends, no pairs reported, the precisions that reach it by the pair's
    first element (`levels`, JAX003's); `reached` says whether plain code of the project calls its
    function; its pair is read outside kernels (a kernel's use of it is not fixable)."""
    code = textwrap.dedent("""
        import jax.numpy as jnp
        from jax import lax
        PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)
        def ref(x):
            return jnp.dot(x, x, precision=PAIR)
        def unused(x_ref):
            return jnp.dot(x_ref, x_ref, precision=PAIR)
    """)
    called = _answers({"r": code + "ref(1)\n"})["r"]
    assert called.sinks == (SinkAnswer((6, 11), DOT, frozenset(), (), (), True, (), levels=("DEFAULT",)),
                            SinkAnswer((8, 11), DOT, frozenset(), (), (), False, (), levels=("DEFAULT",)))
    # the pair plain code reads: its origin names its readers, so nothing rewrites it
    assert [(origin.site, origin.reaches, len(origin.readers)) for origin in called.origins] == [((4, 7), (), 2)]
    assert [sink.reached for sink in _answers({"r": code})["r"].sinks] == [False, False]
    shared = _answers({"k": KERNELS.replace("PAIR = (", "from r import PAIR\nOLD = ("), "r": code})
    [reach] = shared["k"].sinks[0].pairs
    assert (reach.module, reach.fixable, reach.readers) == ("r", False, ("`jax.numpy.dot` outside kernels (r:6)",
                                                                         "`jax.numpy.dot` outside kernels (r:8)"))
    assert [(origin.site, origin.readers) for origin in shared["r"].origins] == [((4, 7), reach.readers)]


def test_a_launch_the_flow_does_not_follow_is_maybe_and_never_fixed_where_the_pair_is() -> None:
    code = KERNELS.replace("pl.pallas_call(body", "getattr(pl, name)(body")
    [sink] = _answers({"k": code})["k"].sinks
    assert sink.backends == frozenset() and sink.maybe == ("getattr with a computed name (k:11)",)
    assert [(reach.site, reach.levels, reach.fixable) for reach in sink.pairs] == [((5, 7), MIXED, True)]
    # nothing fixes it where it is written (no reach, no reader): its origin names the kernel's call and
    # the launch, for a run over its file without the kernel's to say so (`FlowFacts.within`)
    assert _answers({"k": code})["k"].origins == (OriginAnswer((5, 7), (), (), maybe=(("k", sink.site, DOT),),
                                                               launches=sink.maybe),)


def test_a_triton_only_launch_reports_the_pair_but_fixes_it_nowhere() -> None:
    code = KERNELS.replace("out_shape=x)", "out_shape=x, backend='triton')")
    answers = _answers({"k": code})["k"]
    assert answers.sinks[0].backends == frozenset({"triton"}) and answers.sinks[0].pairs
    assert answers.origins == ()


@pytest.mark.parametrize("value, levels", [
    ("(P.DEFAULT, P.HIGHEST)", MIXED),
    ("('bfloat16', 'float32')", (("DEFAULT",), ("HIGHEST",))),  # precision names, as jax reads them
    ("('HIGH', P.DEFAULT)", (("HIGH",), ("DEFAULT",))),
    ("(P.DEFAULT if c else P.HIGHEST, P.HIGHEST)", (("DEFAULT", "HIGHEST"), ("HIGHEST",))),  # may differ
    ("(P.HIGHEST, P.HIGHEST)", None), ("(P.HIGHEST, 'highest')", None),  # the same level twice: not per-operand
    ("(P.DEFAULT, P.HIGHEST, P.HIGH)", None), ("(P.DEFAULT,)", None),  # not two operands
    ("(P.DEFAULT, 'fast')", None), ("(P.DEFAULT, 3)", None), ("(other(), P.HIGHEST)", None),  # an element names none
    ("P.HIGHEST", None), ("'float32'", None), ("[P.DEFAULT, P.HIGHEST]", MIXED),
])
def test_what_counts_as_a_pair(value: str, levels) -> None:
    code = KERNELS.replace("PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)",
                           f"P = lax.Precision\nc = 1\nPAIR = {value}")
    sink = _sink({"k": code})
    assert [reach.levels for reach in sink.pairs] == ([levels] if levels else [])
    assert sink.reached


@pytest.mark.parametrize("value, why", [
    ("getattr(lax.Precision, name)", ("getattr with a computed name",)),
    ("settings_lib.precision()", ("what `settings_lib.precision` gives (an installed package's code)",)),
    ("settings_lib.PAIR", ("`settings_lib.PAIR`, an installed package's value",)),
    ("settings_lib.TABLE['mixed']", ("what `settings_lib.TABLE` gives (an installed package's code)",)),
    ("globals()['PAIR']", ("globals()",)),
    ("len", ()),  # a builtin: nothing a precision could hold
    ("(P.DEFAULT, P.HIGHEST) if c else settings_lib.PAIR", ("`settings_lib.PAIR`, an installed package's value",)),
])
def test_what_cannot_be_known_is_named(value: str, why: tuple) -> None:
    code = KERNELS.replace("PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)",
                           f"import settings_lib\nP = lax.Precision\nc = 1\nname = 'x'\nPAIR = {value}")
    sink = _sink({"k": code})
    assert sink.unknown == why and sink.reached


def test_unknowns_are_named_once_each_in_order() -> None:
    code = KERNELS.replace("PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)",
                           "import zlib, settings_lib\nPAIR = settings_lib.B if c else zlib.A if d else settings_lib.B")
    assert _sink({"k": code}).unknown == ("`settings_lib.B`, an installed package's value",
                                          "`zlib.A`, an installed package's value")


def test_pairs_and_origins_are_in_order_of_module_and_site() -> None:
    """Two pairs written in two modules reach one dot: listed by module then site; each module's
    origins by site."""
    kernels = KERNELS.replace("PAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)",
                              "import b, a\nPAIR = b.LATE if c else a.Q if d else b.EARLY")
    modules = {"k": kernels, "b": "from jax import lax\nEARLY = ('highest', 'default')\n\nLATE = ('default', 'high')\n",
               "a": "Q = ('float32', 'bfloat16')\n"}
    answers = _answers(modules)
    sink = answers["k"].sinks[0]
    assert [(reach.module, reach.site) for reach in sink.pairs] == [("a", (1, 4)), ("b", (2, 8)), ("b", (4, 7))]
    assert all(reach.fixable for reach in sink.pairs)
    assert [origin.site for origin in answers["b"].origins] == [(2, 8), (4, 7)]
    assert answers["a"] == FlowFacts((), (OriginAnswer((1, 4), (("k", (8, 11), DOT),)),))


def test_one_pair_reaching_two_dots_has_one_origin_naming_both() -> None:
    code = KERNELS.replace("return jnp.dot(a, b, precision=PAIR)",
                           "return jnp.dot(a, b, precision=PAIR) + jnp.matmul(a, b, precision=PAIR)")
    answers = _answers({"k": code})["k"]
    assert [sink.callee for sink in answers.sinks] == [DOT, "jax.numpy.matmul"]
    assert answers.origins == (OriginAnswer((5, 7), (("k", (7, 11), DOT), ("k", (7, 43), "jax.numpy.matmul"))),)


def test_a_module_with_no_followed_call_and_no_pair_has_no_answers() -> None:
    answers = _answers({"k": KERNELS, "quiet": "x = 1\n"})
    assert set(answers) == {"k"}


def test_flow_facts_as_data_round_trips_through_json_and_other_data_is_refused() -> None:
    facts = FlowFacts(
        (SinkAnswer((7, 11), DOT, frozenset({"triton", "mosaic_tpu"}), (Reach("k", (5, 7), MIXED, False, ("`f` (m:3)",)),
                                                                       Reach("c", (2, 4), MIXED, True, (), False)),
                    ("why",), True, ("getattr (k:9)",)),
         SinkAnswer((9, 1), "jax.lax.dot", frozenset(), (), (), False),
         SinkAnswer((12, 4), "jax.lax.exp", frozenset({"mosaic_tpu"}), (), (), True, (), True)),
        (OriginAnswer((5, 7), (("k", (7, 11), DOT),)), OriginAnswer((6, 7), (), dropped=(("k", (12, 4), "jax.lax.exp"),))),
        (((3, 4), "precision", ("HIGHEST",)), ((8, 0), "precision", ())),
        (Handed((4, 8), "precision", Reach("c", (2, 4), MIXED, False, ("`f` (m:3)",)), (("k", (7, 11), DOT),)),),
        (LostLaunch((9, 12), "jax.experimental.pallas.pallas_call", frozenset({"mosaic_tpu"}), ("getattr (k:9)",)),),
        (("body", frozenset({"triton", "mosaic_tpu"}), "launched by pkg.launch.run", "body", False),),
        (Called((3, 17), "jax.nn.gelu", frozenset({"mosaic_tpu"}), (("approximate", ("False", "?")),),
                ("a functools.partial of it in `t` on line 4",)),),
        (("body", "dtype", ("int32", "int8"), True),),
        (("raw", ("int8",), ("(pkg.entry:7)", "(pkg.other:3)")),),
        (("raw", "x_ref", (("", ("(pkg.other:3)",)), ("int8", ("(pkg.entry:7)",)))),),
        (("pkg.config.QDTYPE", "int8"),))
    data = facts.as_data()
    assert data[0][0][2] == ["mosaic_tpu", "triton"]  # sorted: the same key whatever the set's order
    assert FlowFacts.from_data(json.loads(json.dumps(data))) == facts
    assert FlowFacts.from_data(NO_FLOW.as_data()) == NO_FLOW
    assert data[5][0][1] == ["mosaic_tpu", "triton"]
    assert data[7] == [["body", "dtype", ("int32", "int8"), True]]
    assert FlowFacts.from_data(json.loads(json.dumps(data))).operands == (("raw", ("int8",), ("(pkg.entry:7)", "(pkg.other:3)")),)
    assert FlowFacts.from_data(json.loads(json.dumps(data))).refs == facts.refs
    assert FlowFacts.from_data(json.loads(json.dumps(data))).named_dtypes == (("pkg.config.QDTYPE", "int8"),)
    empty = [[]] * 11
    others = [empty[:index] + [[[1]]] + empty[index + 1:] for index in range(11)]
    for other in (None, [], empty[:10], empty + [[]], *others, [[], [[1, 2, 3]], *empty[2:]], 5):
        with pytest.raises(ValueError, match="not flow facts"):
            FlowFacts.from_data(other)


def test_flow_facts_sink_at_a_site() -> None:
    first = SinkAnswer((7, 11), DOT, frozenset(), (), (), True)
    second = SinkAnswer((9, 2), DOT, frozenset(), (), (), False)
    facts = FlowFacts((first, second))
    assert facts.sink_at((9, 2)) is second and facts.sink_at((7, 11)) is first
    assert facts.sink_at((7, 12)) is None and NO_FLOW.sink_at((7, 11)) is None


def test_flow_facts_say_what_is_fixed_where_written_and_what_a_call_hands_on() -> None:
    """What JAX001 asks of a module's answers: a value written at a site is fixed there where every
    reader is a followed call of the callees asked about, none other; a call hands a shared pair on
    as one keyword, not another."""
    facts = FlowFacts(origins=(OriginAnswer((5, 7), (("k", (7, 11), DOT),)),
                               OriginAnswer((6, 0), (("k", (8, 11), DOT),), ("`f` (m:3)",)),
                               OriginAnswer((7, 0), ())),
                      handed=(Handed((4, 8), "precision", Reach("c", (2, 4), MIXED, False, ("`f` (m:3)",)),
                                     (("k", (7, 11), DOT),)),))
    assert facts.fixed_where_written((5, 7), {DOT})
    assert not facts.fixed_where_written((5, 7), {"jax.lax.exp"})  # no reader among those callees
    assert not facts.fixed_where_written((6, 0), {DOT})  # other code reads it too
    assert not facts.fixed_where_written((7, 0), {DOT})  # read by no kernel the link follows
    assert not facts.fixed_where_written((5, 8), {DOT}) and not NO_FLOW.fixed_where_written((5, 7), {DOT})
    assert facts.handed_at((4, 8), "precision")
    assert not facts.handed_at((4, 8), "accuracy") and not facts.handed_at((4, 9), "precision")
    assert not NO_FLOW.handed_at((4, 8), "precision")


_LAUNCHER = "jax.experimental.pallas.pallas_call"
_RELAY = """
    import operator
    from launch import run
    def body(x_ref, o_ref):
        o_ref[...] = x_ref[...]
    K = [None]
    {fill}
    def api(x):
        return run({body}, x)
"""


@pytest.mark.parametrize("fill, body, lost", [
    ("type(K).__setitem__(K, 0, body)", "K[0]", ("no function it can find: what fills it is code it does not read",)),
    ("operator.setitem(K, 0, body)", "K[0]", None),  # followed: `K[0] = body`
    ("K.__setitem__(0, body)", "K[0]", None),  # followed too
    # a value it does not know handed to a launch helper: the project index reads the call as a launch
    # it cannot resolve and notes what it may run (`_maybe_launched`), so the link leaves it
    ("", "getattr(operator, 'x' + 'y')", None),
    ("K.insert(0, body)", "K[0]", None),  # followed
    ("", "K[0] or body", None),  # None, or a function: the function
])
def test_a_launch_whose_body_the_link_cannot_follow_says_what_it_may_be(fill: str, body: str, lost) -> None:
    """A launch helper's body holding no function as the link follows it (a list filled by
    `type(K).__setitem__`): the call that hands it the body is answered as lost, with why and through
    which launch (the rules say it there: never silent)."""
    answers = _answers({"launch": "from jax.experimental import pallas as pl\n"
                                  "def run(body, x):\n    return pl.pallas_call(body, out_shape=x)(x)\n",
                        "api": _RELAY.format(fill=fill, body=body)})
    assert answers.get("launch", NO_FLOW).lost == ()
    assert answers.get("api", NO_FLOW).lost == ((LostLaunch((9, 11), _LAUNCHER, PALLAS_BACKENDS, lost,
                                                             ("`launch.run` (launch:3)",)),) if lost else ())


@pytest.mark.parametrize("body, lost", [
    ("getattr(operator, 'x' + 'y')", ("getattr with a computed name",)),
    ("globals()['body']", ("globals()",)),
    ("K[0]", ("no function it can find: what fills it is code it does not read",)),
    ("{}['body']", ("no function it can find: what fills it is code it does not read",)),  # holds nothing
    ("run", None),  # a function: followed
])
def test_a_launch_whose_body_is_computed_in_a_launch_helper_is_lost_at_the_launch(body: str, lost) -> None:
    """Where the body does not come from the helper's parameters (`getattr(bodies, name)` in it), the
    launch itself is answered as lost, whoever calls the helper."""
    answers = _answers({"launch": "import operator\nfrom jax.experimental import pallas as pl\n"
                                  "K = [None]\ntype(K).__setitem__(K, 0, operator.add)\n"
                                  f"def run(name, x):\n    return pl.pallas_call({body}, out_shape=x)(x)\n"
                                  "def api(x):\n    return run('body', x)\n"})
    assert answers.get("launch", NO_FLOW).lost == ((LostLaunch((6, 11), _LAUNCHER, PALLAS_BACKENDS, lost),)
                                                   if lost else ())


def test_a_launch_helper_no_code_of_the_project_calls_has_no_lost_launch() -> None:
    """Its body is its callers' (outside the project): nothing known, nothing lost."""
    answers = _answers({"launch": "from jax.experimental import pallas as pl\n"
                                  "def run(body, x):\n    return pl.pallas_call(body, out_shape=x)(x)\n"})
    assert answers.get("launch", NO_FLOW).lost == ()


def test_a_lost_launch_moves_with_its_modules_code() -> None:
    """An edit that only moves code moves the kept answers: a lost launch's site too."""
    facts = FlowFacts(lost=(LostLaunch((3, 11), _LAUNCHER, PALLAS_BACKENDS, ("getattr (launch:3)",)),))
    moved = moved_answers({"launch": facts}, {"launch": {(3, 11): (5, 11)}})
    assert moved["launch"].lost == (LostLaunch((5, 11), _LAUNCHER, PALLAS_BACKENDS, ("getattr (launch:5)",)),)


def test_a_launch_whose_body_is_known_only_later_is_no_decorator_and_loses_nothing() -> None:
    """`call = pl.pallas_call(kernel, ...)` is evaluated before `kernel = functools.partial(...)` holds
    the partial: it was taken for a decorator (`@plgpu.kernel(...)`), and `call(x)` then launched the
    kernel's own argument, a body lost to the link (two real kernels of the trees got a note so)."""
    answers = _answers({"k": """
        import functools
        from jax.experimental import pallas as pl
        def body(x_ref, o_ref, n=1):
            o_ref[...] = x_ref[...] * n
        def run(x):
            kernel = functools.partial(body, n=2)
            call = pl.pallas_call(kernel, out_shape=x)
            return call(1.0)
    """})
    assert answers.get("k", NO_FLOW).lost == ()


def test_placed_names_a_notebooks_code_by_its_cell_in_every_note_and_leaves_the_rest() -> None:
    """`FlowFacts.placed`: a reach written in a notebook takes its cell and line; every note that names a
    notebook's module and line (who else reads a value, what is not known, through which helper, what
    lies beyond) names its cell instead; a note of a module of files, or of a notebook line `place`
    cannot place, is kept as it is. Nothing placed: the same answers."""
    notebook = "<notebook /p/nb.ipynb>"
    here, elsewhere = f"`print` ({notebook}:7)", f"`g` ({notebook}:99)"
    place = {(notebook, 7): "nb.ipynb:cell 2:3", (notebook, 5): "nb.ipynb:cell 2:1"}
    notes = (here, elsewhere, "`f` (m:3)")
    placed = ("`print` (nb.ipynb:cell 2:3)", elsewhere, "`f` (m:3)")
    written = Reach(notebook, (5, 4), MIXED, False, notes)
    plain = Reach("m", (5, 4), MIXED, False, notes)
    facts = FlowFacts((SinkAnswer((7, 11), DOT, frozenset(), (written, plain), notes, True, notes),),
                      (OriginAnswer((5, 7), (("k", (7, 11), DOT),), notes),), (),
                      (Handed((4, 8), "precision", written, (("k", (7, 11), DOT),)),),
                      (LostLaunch((9, 12), "pallas_call", frozenset(), notes, notes, notes),))
    assert facts.placed(lambda module, line: place.get((module, line))) == FlowFacts(
        (SinkAnswer((7, 11), DOT, frozenset(), (Reach(notebook, (5, 4), MIXED, False, placed, place="nb.ipynb:cell 2:1"),
                                                Reach("m", (5, 4), MIXED, False, placed)), placed, True, placed),),
        (OriginAnswer((5, 7), (("k", (7, 11), DOT),), placed),), (),
        (Handed((4, 8), "precision", Reach(notebook, (5, 4), MIXED, False, placed, place="nb.ipynb:cell 2:1"),
                (("k", (7, 11), DOT),)),),
        (LostLaunch((9, 12), "pallas_call", frozenset(), placed, placed, placed),))
    # a value written in a notebook, no note naming one; no value written in one, a note naming one
    only_written = FlowFacts((SinkAnswer((7, 11), DOT, frozenset(), (Reach(notebook, (5, 4), MIXED, False),), (), True),))
    assert only_written.placed(lambda module, line: place.get((module, line))) == FlowFacts((SinkAnswer(
        (7, 11), DOT, frozenset(), (Reach(notebook, (5, 4), MIXED, False, place="nb.ipynb:cell 2:1"),), (), True),))
    only_noted = FlowFacts(origins=(OriginAnswer((5, 7), (), (here,)),))
    assert only_noted.placed(lambda module, line: place.get((module, line))) == FlowFacts(
        origins=(OriginAnswer((5, 7), (), (placed[0],)),))
    untouched = FlowFacts(origins=(OriginAnswer((5, 7), (), ("`f` (m:3)", elsewhere)),))
    assert untouched.placed(lambda module, line: None) == untouched


@pytest.mark.parametrize("pair, unknown", [
    ("(LEVEL, lax.Precision.DEFAULT)", ("a pair (k:7) whose element may be getattr with a computed name",)),
    ("(lax.Precision.DEFAULT, LEVEL)", ("a pair (k:7) whose element may be getattr with a computed name",)),
    ("(LEVEL, LEVEL)", ("a pair (k:7) whose element may be getattr with a computed name",)),
    ("(lax.Precision.DEFAULT, LEVEL, LEVEL)", ()),  # not a pair: the kernel's op is not handed one
    ("[LEVEL]", ()),
    ("(lax.Precision.DEFAULT, None)", ()),  # read, not a pair: passed over as before
])
def test_a_two_element_literal_with_an_element_not_read_is_unknown_at_the_kernel(pair: str, unknown: tuple) -> None:
    """A pair whose first, second or both elements the link cannot read (`LEVEL` from getattr) may be a
    pair the kernel rejects: said at the kernel, whichever element it is; a literal of another length
    is not a pair."""
    sink = _sink({"k": textwrap.dedent(f"""
        import os
        import jax.numpy as jnp
        from jax import lax
        from jax.experimental import pallas as pl
        LEVEL = getattr(lax.Precision, os.environ["LEVEL"])
        THE_PAIR = {pair}
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=THE_PAIR)
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """)})
    assert (sink.pairs, sink.unknown) == ((), unknown)


def test_a_class_attribute_is_found_eight_bases_up() -> None:
    """A class's attribute looked up through its bases, as deep as the link follows them (8 bases up):
    the pair a kernel reads as `Leaf.PREC`, written on the eighth base up, is the one at its op."""
    chain = "".join(f"class C{n}(C{n - 1}):\n    pass\n" for n in range(1, 9))
    sink = _sink({"k": KERNELS.replace("PAIR = (", "class C0:\n    PREC = (").replace(
        "precision=PAIR", "precision=C8.PREC").replace("def mm", chain + "def mm")})
    assert [reach.levels for reach in sink.pairs] == [MIXED] and sink.unknown == ()


def test_a_classmethod_a_base_defines_makes_an_instance_of_the_subclass_it_is_called_on() -> None:
    """`Sub.with_precision(PAIR)`, the classmethod on `Base`: `cls` is `Sub`, so `cls(prec)` makes a `Sub`,
    whose kernel reads `self.prec` (a `Base` has no kernel: the pair would reach nothing)."""
    sink = _sink({"k": textwrap.dedent("""
        import jax.numpy as jnp
        from jax import lax
        from jax.experimental import pallas as pl
        class Base:
            def __init__(self, prec=None):
                self.prec = prec
            @classmethod
            def with_precision(cls, prec):
                return cls(prec)
        class Sub(Base):
            def _kernel(self, x_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=self.prec)
            def __call__(self, x):
                return pl.pallas_call(self._kernel, out_shape=x)(x)
        def run(x):
            return Sub.with_precision((lax.Precision.DEFAULT, lax.Precision.HIGHEST))(x)
    """)})
    assert [reach.levels for reach in sink.pairs] == [MIXED] and sink.unknown == ()
