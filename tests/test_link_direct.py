"""What the whole-program value flow follows (codemods/analysis/flow/link.py), through its entry point
`link` on small projects summarised in the test's process: each test is a spelling by which a
precision pair, or a kernel body, travels to a followed call, and checks the answer at the call
(the pair that reaches it, where it is written, the backends its kernel lowers for). Behaviour
only: nothing of the linker's insides is read. No jax is executed (test_link.py lowers projects)."""

from __future__ import annotations

import textwrap

import pytest

from codemods.analysis.flow.flow_facts import SinkAnswer
from codemods.analysis.flow.link import link
from codemods.analysis.flow.summary import summarise
from codemods.rules.per_operand_precision import OPS

FOLLOWS = {name: (op.precision_position, "precision") for name, op in OPS.items()}
PALLAS_BACKENDS = frozenset({"mosaic_tpu", "triton"})
HEADER = textwrap.dedent("""
    import functools
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental import pallas as pl
    P = lax.Precision
""")


def _answers(modules: dict[str, str]) -> dict:
    summaries = [summarise(HEADER + textwrap.dedent(text), name) for name, text in modules.items()]
    assert all(summary is not None for summary in summaries)
    return link(summaries, FOLLOWS)[0]


def _sink(modules: dict[str, str], module: str = "k") -> SinkAnswer:
    [sink] = _answers(modules)[module].sinks
    return sink


def _reached(modules: dict[str, str], module: str = "k") -> tuple[list[tuple], frozenset]:
    """The pairs that reach the one followed call of `module` ((module, line) where written, levels),
    and the backends its kernel lowers for."""
    sink = _sink(modules, module)
    return [((reach.module, reach.site[0]), reach.levels) for reach in sink.pairs], sink.backends


MIXED = (("DEFAULT",), ("HIGHEST",))
LINE = len(HEADER.splitlines())  # the line before a module's own first line


@pytest.mark.parametrize("launch", ["jax.named_call(body, name='mm')", "jax.jit(body)", "jax.checkpoint(body)"])
def test_a_body_wrapped_by_an_installed_identity_is_still_the_kernel(launch: str) -> None:
    sink = _sink({"k": f"""
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=(P.DEFAULT, P.HIGHEST))
        def run(x):
            return pl.pallas_call({launch}, out_shape=x)(x)
    """})
    assert sink.backends == PALLAS_BACKENDS and [reach.levels for reach in sink.pairs] == [MIXED]


def test_a_function_handed_to_an_installed_loop_from_kernel_code_runs_in_the_kernel() -> None:
    """`lax.fori_loop(0, n, step, x)` in a body: `step` runs in the kernel, its pair is the kernel's."""
    sink = _sink({"k": """
        def step(i, acc):
            return jnp.dot(acc, acc, precision=(P.DEFAULT, P.HIGHEST))
        def body(x_ref, o_ref):
            o_ref[...] = lax.fori_loop(0, 2, step, x_ref[...])
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """})
    assert sink.backends == PALLAS_BACKENDS and sink.pairs[0].fixable


def test_a_partial_binds_its_positional_arguments_in_order() -> None:
    """`partial(body, PAIR)` binds the first parameter; `partial(body, None, PAIR)` the second."""
    code = """
        PAIR = (P.DEFAULT, P.HIGHEST)
        def body(first, second, x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=PRECISION)
        def run(x):
            return pl.pallas_call(functools.partial(body, ARGS), out_shape=x)(x)
    """
    assert _reached({"k": code.replace("PRECISION", "first").replace("ARGS", "PAIR")}) == (
        [(("k", LINE + 2), MIXED)], PALLAS_BACKENDS)
    assert _reached({"k": code.replace("PRECISION", "second").replace("ARGS", "None, PAIR")}) == (
        [(("k", LINE + 2), MIXED)], PALLAS_BACKENDS)
    assert _reached({"k": code.replace("PRECISION", "first").replace("ARGS", "None, PAIR")}) == ([], PALLAS_BACKENDS)


@pytest.mark.parametrize("read", ['getattr(cfg, "PAIR")', 'getattr(cfg, "PAIR", None)'])
def test_getattr_with_a_literal_name_reads_the_attribute(read: str) -> None:
    """With a default too: three arguments of an installed function are no `operator.setitem`."""
    assert _reached({
        "cfg": "PAIR = (P.DEFAULT, P.HIGHEST)\n",
        "k": f"""
            import cfg
            def body(x_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision={read})
            def run(x):
                return pl.pallas_call(body, out_shape=x)(x)
        """}) == ([(("cfg", LINE + 1), MIXED)], PALLAS_BACKENDS)


@pytest.mark.parametrize("handed", ["body", "functools.partial(body, precision=PAIR)", "Body()"])
def test_a_launcher_the_flow_cannot_see_still_makes_its_body_maybe_kernel_code(handed: str) -> None:
    """`getattr(pl, name)(body, ...)` may be a launch: a def, a partial or a callable instance handed
    to it may run in a kernel (`maybe`), and its pair is reported there, never silently left."""
    sink = _sink({"k": f"""
        PAIR = (P.DEFAULT, P.HIGHEST)
        def body(x_ref, o_ref, precision=PAIR):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=precision)
        class Body:
            def __call__(self, x_ref, o_ref):
                return body(x_ref, o_ref)
        def run(x, name):
            return getattr(pl, name)({handed}, out_shape=x)(x)
    """})
    assert sink.maybe == (f"getattr with a computed name (k:{LINE + 9})",)
    assert sink.backends == frozenset() and [reach.levels for reach in sink.pairs] == [MIXED]


@pytest.mark.parametrize("index, site", [("1", 3), ("-1", 3), ("0", None), ("-2", None), ("mode", 3)])
def test_an_element_of_a_tuple_by_index_is_that_element(index: str, site) -> None:
    """`PRECISIONS[1]` is the second element only: the first, the same level twice, is no pair;
    `PRECISIONS[mode]` may be either."""
    found = _reached({"k": f"""
        mode = 1
        PRECISIONS = ((P.HIGHEST, P.HIGHEST),
                      (P.DEFAULT, P.HIGHEST))
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=PRECISIONS[{index}])
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """})
    assert found == ([(("k", LINE + 1 + site), MIXED)] if site else [], PALLAS_BACKENDS)


def test_a_helper_called_from_a_body_before_the_body_is_launched_runs_in_the_kernel() -> None:
    """The body's call of `mm` is evaluated before the launch makes the body kernel code (it comes
    first): when the body's backends grow, the call is evaluated again and `mm` runs there too."""
    sink = _sink({"k": """
        def mm(a, b):
            return jnp.dot(a, b, precision=(P.DEFAULT, P.HIGHEST))
        def body(x_ref, o_ref):
            o_ref[...] = mm(x_ref[...], x_ref[...])
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """})
    assert sink.backends == PALLAS_BACKENDS and sink.pairs[0].fixable


def test_a_module_attribute_set_from_another_module_is_read() -> None:
    assert _reached({
        "cfg": "PRECISION = None\n",
        "setup": "import cfg\ncfg.PRECISION = (P.DEFAULT, P.HIGHEST)\n",
        "k": """
            import cfg
            def body(x_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=cfg.PRECISION)
            def run(x):
                return pl.pallas_call(body, out_shape=x)(x)
        """}) == ([(("setup", LINE + 2), MIXED)], PALLAS_BACKENDS)


@pytest.mark.parametrize("options", [
    "OPTS = {}\nOPTS['precision'] = PAIR",  # a dict filled by item
    "OPTS = dict()\nOPTS['precision'] = PAIR",
    "OPTS = [None]\nOPTS[0] = PAIR",  # a list's element set (read by index below)
])
def test_a_container_filled_by_item_assignment_hands_on_what_it_holds(options: str) -> None:
    read = "precision=OPTS[0]" if "[None]" in options else "**OPTS"
    code = f"""
        PAIR = (P.DEFAULT, P.HIGHEST)
        {options.replace(chr(10), chr(10) + '        ')}
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], {read})
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """
    assert _reached({"k": code}) == ([(("k", LINE + 2), MIXED)], PALLAS_BACKENDS)


@pytest.mark.parametrize("made, keys, read", [
    ("{}", ("'precision'", "'other'"), "OPTS['precision']"),
    ("[None, None]", ("1", "0"), "OPTS[1]"),
])
@pytest.mark.parametrize("store", ["operator.setitem(OPTS, {key}, {value})", "OPTS[{key}] = {value}"])
def test_an_item_stored_by_key_is_read_at_that_key_only(made: str, keys: tuple, read: str, store: str) -> None:
    """`operator.setitem(OPTS, key, value)` is `OPTS[key] = value`: the read of one key gets what was
    stored there, not what another key holds (a key taken for unknown would hand on both pairs)."""
    assert _reached({"k": f"""
        import operator
        PAIR = (P.DEFAULT, P.HIGHEST)
        OTHER = (P.HIGHEST, P.DEFAULT)
        OPTS = {made}
        {store.format(key=keys[0], value="PAIR")}
        {store.format(key=keys[1], value="OTHER")}
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision={read})
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """}) == ([(("k", LINE + 3), MIXED)], PALLAS_BACKENDS)


@pytest.mark.parametrize("pair_at, other_at, read", [("-1", "-2", "1"), ("-2", "-1", "0")])
@pytest.mark.parametrize("store", ["OPTS[{key}] = {value}", "operator.setitem(OPTS, {key}, {value})",
                                   "OPTS.__setitem__({key}, {value})"])
def test_an_item_stored_at_a_negative_position_is_counted_from_the_end(pair_at: str, other_at: str, read: str,
                                                                       store: str) -> None:
    """`OPTS[-1] = PAIR` in a list of two stores at position 1 (`-1 % 2`), and only there; so does
    `operator.setitem(OPTS, -1, PAIR)`, whose `-1` is an argument, not a subscript."""
    assert _reached({"k": f"""
        import operator
        PAIR = (P.DEFAULT, P.HIGHEST)
        OTHER = (P.HIGHEST, P.DEFAULT)
        OPTS = [None, None]
        {store.format(key=pair_at, value="PAIR")}
        {store.format(key=other_at, value="OTHER")}
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=OPTS[{read}])
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """}) == ([(("k", LINE + 3), MIXED)], PALLAS_BACKENDS)


def test_keyword_arguments_set_by_item_inside_a_wrapper_reach_the_body() -> None:
    """`def matmul(x, **opts): opts["precision"] = PAIR; launch(partial(body, **opts))`."""
    assert _reached({"k": """
        def body(x_ref, o_ref, precision=None):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=precision)
        def matmul(x, **opts):
            opts["precision"] = (P.DEFAULT, P.HIGHEST)
            return pl.pallas_call(functools.partial(body, **opts), out_shape=x)(x)
        def run(x):
            return matmul(x, block=8)
    """}) == ([(("k", LINE + 5), MIXED)], PALLAS_BACKENDS)


def test_a_tuple_spread_past_the_named_parameters_lands_in_star_args() -> None:
    """`mm(a, b, *(PAIR,))` into `def mm(a, b, *rest)`: `rest[0]` is the pair."""
    assert _reached({"k": """
        PAIR = (P.DEFAULT, P.HIGHEST)
        def mm(a, b, *rest):
            return jnp.dot(a, b, precision=rest[0])
        def body(x_ref, o_ref):
            o_ref[...] = mm(x_ref[...], x_ref[...], *(PAIR,))
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """}) == ([(("k", LINE + 2), MIXED)], PALLAS_BACKENDS)


def test_containers_that_hold_each_other_end_and_what_they_hold_is_read_by_who_reads_them() -> None:
    """`a[0] = b` with `b = [a, PAIR]`: handed to an installed function, the cycle is walked once;
    the pair inside is read there, so the kernel's use of it is reported, not fixed."""
    sink = _sink({"k": """
        import logging
        PAIR = (P.DEFAULT, P.HIGHEST)
        a = [None]
        b = [a, PAIR]
        a[0] = b
        logging.info(a)
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=PAIR)
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """})
    [reach] = sink.pairs
    assert not reach.fixable and reach.readers == (f"`logging.info` (k:{LINE + 7})",)


def test_a_dataclass_built_with_positional_arguments_holds_them_as_fields() -> None:
    assert _reached({
        "config": "import dataclasses\n@dataclasses.dataclass\nclass Cfg:\n    block: int = 8\n    precision: tuple = None\n",
        "k": """
            from config import Cfg
            CFG = Cfg(128, (P.DEFAULT, P.HIGHEST))
            def body(x_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=CFG.precision)
            def run(x):
                return pl.pallas_call(body, out_shape=x)(x)
        """}) == ([(("k", LINE + 3), MIXED)], PALLAS_BACKENDS)


def test_a_partial_with_named_keywords_and_a_spread_binds_both() -> None:
    assert _reached({"k": """
        def body(x_ref, o_ref, block=1, precision=None):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=precision)
        def matmul(x, **opts):
            return pl.pallas_call(functools.partial(body, block=8, **opts), out_shape=x)(x)
        def run(x):
            return matmul(x, precision=(P.DEFAULT, P.HIGHEST))
    """}) == ([(("k", LINE + 7), MIXED)], PALLAS_BACKENDS)


def test_a_method_of_an_instance_called_from_a_kernel_runs_in_the_kernel() -> None:
    sink = _sink({"k": """
        class Helper:
            def mm(self, a, b):
                return jnp.dot(a, b, precision=(P.DEFAULT, P.HIGHEST))
        HELPER = Helper()
        def body(x_ref, o_ref):
            o_ref[...] = HELPER.mm(x_ref[...], x_ref[...])
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """})
    assert sink.backends == PALLAS_BACKENDS and [reach.fixable for reach in sink.pairs] == [True]


def test_star_imports_that_import_each_other_end_and_find_the_name() -> None:
    assert _reached({
        "a": "from b import *\n",
        "b": "from a import *\nPAIR = (P.DEFAULT, P.HIGHEST)\n",
        "k": """
            import a
            def body(x_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=a.PAIR)
            def run(x):
                return pl.pallas_call(body, out_shape=x)(x)
        """}) == ([(("b", LINE + 2), MIXED)], PALLAS_BACKENDS)


def test_an_installed_packages_name_is_followed_to_a_bound_then_is_what_it_gives() -> None:
    """`lib.a1. ... .a8` is an installed name; one attribute more is read from what it gives (a name
    chain longer than any module path is something computed, `x = x.parent` in a loop)."""
    chain = "lib." + ".".join(f"a{i}" for i in range(1, 9))
    code = f"""
        import lib
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=PRECISION)
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """
    assert _sink({"k": code.replace("PRECISION", chain)}).unknown == (f"`{chain}`, an installed package's value",)
    assert _sink({"k": code.replace("PRECISION", f"{chain}.a9")}).unknown == (
        f"what `{chain}` gives (an installed package's code)",)


def test_a_dicts_get_reads_what_it_holds() -> None:
    assert _reached({"k": """
        OPTS = {"precision": (P.DEFAULT, P.HIGHEST)}
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=OPTS.get("precision"))
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """}) == ([(("k", LINE + 2), MIXED)], PALLAS_BACKENDS)



def test_a_dicts_get_reads_the_entry_of_its_key_only() -> None:
    """`OPTS.get("fast")` is not the pair under "mixed": a fix there would change what the kernel never
    reads (and a note would name every reader of the dict's other entries, `float(d.get("eps"))`)."""
    assert _reached({"k": """
        OPTS = {"fast": P.DEFAULT, "mixed": (P.DEFAULT, P.HIGHEST)}
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=OPTS.get("fast"))
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """})[0] == []


def test_a_dicts_get_gives_its_default_too() -> None:
    """The dict may not hold the key: `.get(key, default)` is then the default, a pair here."""
    assert _reached({"k": """
        OPTS = {"block": 8}
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=OPTS.get("precision", (P.DEFAULT, P.HIGHEST)))
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """}) == ([(("k", LINE + 4), MIXED)], PALLAS_BACKENDS)

@pytest.mark.parametrize("options, backends", [
    ("compiler_params=None", PALLAS_BACKENDS),  # says nothing: either
    ("compiler_params=pltpu.CompilerParams(vmem_limit_bytes=1)", frozenset({"mosaic_tpu"})),
    ("compiler_params={'triton': {'num_warps': 4}}", frozenset({"triton"})),
    ("compiler_params=dict(mosaic=dict(vmem_limit_bytes=1))", frozenset({"mosaic_tpu"})),
    ("backend='triton'", frozenset({"triton"})),
])
def test_a_launchs_compiler_params_or_backend_select_what_it_lowers_for(options: str, backends: frozenset) -> None:
    sink = _sink({"k": f"""
        from jax.experimental.pallas import tpu as pltpu
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=(P.DEFAULT, P.HIGHEST))
        def run(x):
            return pl.pallas_call(body, out_shape=x, {options})(x)
    """})
    assert sink.backends == backends


def test_a_class_attribute_read_through_the_class() -> None:
    assert _reached({"k": """
        class Cfg:
            PRECISION = (P.DEFAULT, P.HIGHEST)
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=Cfg.PRECISION)
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """}) == ([(("k", LINE + 3), MIXED)], PALLAS_BACKENDS)


def test_a_wrappers_kwargs_get_reads_what_its_callers_pass() -> None:
    assert _reached({"k": """
        def body(x_ref, o_ref, precision=None):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=precision)
        def matmul(x, **opts):
            kernel = functools.partial(body, precision=opts.get("precision"))
            return pl.pallas_call(kernel, out_shape=x)(x)
        def run(x):
            return matmul(x, precision=(P.DEFAULT, P.HIGHEST))
    """}) == ([(("k", LINE + 8), MIXED)], PALLAS_BACKENDS)


def test_a_methods_arguments_bind_after_self() -> None:
    assert _reached({"k": """
        class Helper:
            def mm(self, a, b, precision=None):
                return jnp.dot(a, b, precision=precision)
        HELPER = Helper()
        def body(x_ref, o_ref):
            o_ref[...] = HELPER.mm(x_ref[...], x_ref[...], (P.DEFAULT, P.HIGHEST))
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """}) == ([(("k", LINE + 7), MIXED)], PALLAS_BACKENDS)


def test_a_dataclass_built_with_keywords_holds_them_as_fields() -> None:
    assert _reached({
        "config": "import dataclasses\n@dataclasses.dataclass\nclass Cfg:\n    block: int = 8\n    precision: tuple = None\n",
        "k": """
            from config import Cfg
            CFG = Cfg(precision=(P.DEFAULT, P.HIGHEST))
            def body(x_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=CFG.precision)
            def run(x):
                return pl.pallas_call(body, out_shape=x)(x)
        """}) == ([(("k", LINE + 3), MIXED)], PALLAS_BACKENDS)


def test_star_imports_are_followed_through_a_chain_of_them() -> None:
    assert _reached({
        "a": "from b import *\n", "b": "from c import *\n", "c": "PAIR = (P.DEFAULT, P.HIGHEST)\n",
        "k": """
            from a import PAIR
            def body(x_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=PAIR)
            def run(x):
                return pl.pallas_call(body, out_shape=x)(x)
        """}) == ([(("c", LINE + 1), MIXED)], PALLAS_BACKENDS)


def test_star_args_handed_to_an_installed_function_are_read_there() -> None:
    """`print(rest)` reads the pair `rest` holds: the kernel's use of it is reported, not fixed."""
    sink = _sink({"k": """
        PAIR = (P.DEFAULT, P.HIGHEST)
        def mm(a, b, *rest):
            print(rest)
            return jnp.dot(a, b, precision=rest[0])
        def body(x_ref, o_ref):
            o_ref[...] = mm(x_ref[...], x_ref[...], PAIR)
        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """})
    [reach] = sink.pairs
    assert not reach.fixable and reach.readers == (f"`print` (k:{LINE + 4})",)



@pytest.mark.parametrize("kept, read", [("global LAST; LAST = kw", "LAST"), ("STATE['last'] = kw", "STATE['last']")])
def test_a_launch_helper_that_keeps_its_keywords_in_a_module_value_hands_them_on(kept: str, read: str) -> None:
    """A launch helper runs once per call of it: its statements that write a name or container of the
    module from its own keywords are its own too, so a kernel reading that module value gets them."""
    assert _reached({"k": f"""
        STATE = {{}}
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision={read}['precision'])
        def _launch(b, x, **kw):
            {kept}
            return pl.pallas_call(b, out_shape=x)(x)
        def run(x):
            return _launch(body, x, precision=(P.DEFAULT, P.HIGHEST))
    """})[0] == [(("k", LINE + 9), MIXED)]


def test_what_a_launch_helper_returns_to_a_call_is_what_it_returns_for_that_call() -> None:
    """A launch helper runs per call of it, its return too: the pair it hands back to the caller is
    read by plain XLA code there, so it is not rewritten where it is written (the kernel reads it too)."""
    [sink, _] = sorted(_answers({"k": """
        def body(x_ref, o_ref, precision=None):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=precision)
        def _launch(b, x, precision=None):
            pl.pallas_call(functools.partial(b, precision=precision), out_shape=x)(x)
            return precision
        def run(x):
            p = _launch(body, x, precision=(P.DEFAULT, P.HIGHEST))
            return jnp.dot(x, x, precision=p)
    """})["k"].sinks, key=lambda sink: sink.site)
    [reach] = sink.pairs
    assert sink.backends == PALLAS_BACKENDS and not reach.fixable, reach
    assert reach.readers == (f"`jax.numpy.dot` outside kernels (k:{LINE + 9})",)



@pytest.mark.parametrize("kernel", ["functools.partial(b, **kw)", "functools.partial(jax.named_call(b), **kw)"])
def test_a_launch_helper_hands_each_body_only_what_its_own_callers_pass(kernel: str) -> None:
    """Two wrappers launch two bodies through one helper, one passing a pair: the pair reaches that
    body only, however the helper builds the kernel (what a call in it gives is its own too)."""
    answers = _answers({"k": f"""
        def body_a(x_ref, o_ref, precision=None):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=precision)
        def body_b(x_ref, o_ref, precision=None):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=precision)
        def _launch(b, x, **kw):
            return pl.pallas_call({kernel}, out_shape=x)(x)
        def a(x):
            return _launch(body_a, x, precision=(P.DEFAULT, P.HIGHEST))
        def b(x):
            return _launch(body_b, x, precision=P.HIGHEST)
    """})
    sinks = sorted(answers["k"].sinks, key=lambda sink: sink.site)
    assert [[reach.levels for reach in sink.pairs] for sink in sinks] == [[MIXED], []]


@pytest.mark.parametrize("copy", ["opts = dict(kw)", "opts = dict(**kw)", "opts = dict({}, **kw)",
                                  "opts = {}\n            opts.update(kw)", "opts = {}\n            opts.update(**kw)",
                                  "opts = {'block': 8}\n            opts.update(precision=kw['precision'])",
                                  "opts = dict(kw.items())", "opts = {k: v for k, v in kw.items() if k != 'block'}"])
def test_a_mapping_built_or_updated_from_another_holds_its_entries(copy: str) -> None:
    """`dict(options)`, `dict(**options)`, `d.update(...)` write the entries they are given, and a
    comprehension's entries (keys not known) may land on any parameter (each was nothing: the pair
    reached the body through them silently)."""
    assert _reached({"k": f"""
        def body(x_ref, o_ref, precision=None):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=precision)
        def matmul(x, **kw):
            {copy}
            return pl.pallas_call(functools.partial(body, **opts), out_shape=x)(x)
        def run(x):
            return matmul(x, precision=(P.DEFAULT, P.HIGHEST))
    """})[0] == [(("k", LINE + 8 + copy.count("\n")), MIXED)]


def test_the_entries_of_a_dict_built_from_pairs_are_named_at_the_kernel_call() -> None:
    """`dict(zip(names, values))`: entries the link does not follow, never nothing at the site."""
    sink = _sink({"k": """
        def body(x_ref, o_ref, precision=None):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=precision)
        def matmul(x, precision):
            opts = dict([("precision", precision)])
            return pl.pallas_call(functools.partial(body, **opts), out_shape=x)(x)
    """})
    assert sink.unknown == ("the entries of `dict(...)` or `.update(...)` of an iterable",)


@pytest.mark.parametrize("fill, read", [
    ("KERNELS.append(body)", "KERNELS[-1]"),
    ("KERNELS.insert(0, body)", "KERNELS[0]"),
    ("KERNELS.extend([body])", "KERNELS[1]"),
    ("KERNELS.extend((body,))", "KERNELS[0]"),
    ("KERNELS += [body]", "KERNELS[1]"),
    ("KERNELS[mode] = body", "KERNELS[0]"),
    ("KERNELS[0] = body; KERNELS.reverse()", "KERNELS[1]"),  # what the list holds moves
    ("TABLE['main'] = body", "TABLE['main']"),
    ("TABLE.setdefault('main', body)", "TABLE['main']"),
    ("TABLE.update(main=body)", "TABLE['main']"),
    ("TABLE |= {'main': body}", "TABLE['main']"),
    ("KERNELS.append(body)", "KERNELS.pop()"),
    ("KERNELS.append(body)", "KERNELS.copy()[1]"),
    ("KERNELS.append(body)", "KERNELS.__getitem__(2)"),  # (the operator's method, called by name)
    ("TABLE['main'] = body", "TABLE.__getitem__('main')"),
])
def test_a_container_another_module_fills_after_it_is_built_hands_on_what_is_stored(fill: str, read: str) -> None:
    """A list or dict written in `registry`, filled in `setup` (`append`, `insert`, `extend`, `+=`, an
    item stored, `setdefault`, `update`), launched from it in `k`: the body stored is launched (it was
    unknown to the link, and its pair silent)."""
    assert _reached({
        "registry": "mode = 0\nKERNELS = [None, None]\nTABLE = {'other': None}\n",
        "setup": f"""
            from registry import KERNELS, TABLE, mode
            def body(x_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=(P.DEFAULT, P.HIGHEST))
            {fill}
        """,
        "k": f"""
            from registry import KERNELS, TABLE
            def run(x):
                return pl.pallas_call({read}, out_shape=x)(x)
        """}, module="setup") == ([(("setup", LINE + 4), MIXED)], PALLAS_BACKENDS)


@pytest.mark.parametrize("made, fill", [
    ("BODIES = set()", "BODIES.add(body)"),
    ("BODIES = {None}", "BODIES.add(body)"),  # a set display
    ("BODIES = []", "BODIES.append(body)"),
])
def test_a_body_another_module_adds_is_launched_by_next_of_iter(made: str, fill: str) -> None:
    """A set (or list) made in `registry`, filled in `setup`, launched as `next(iter(BODIES))` in `k`:
    the link read no `next`, no `set()` and no set display, so the body was unknown and its pair silent."""
    assert _reached({
        "registry": f"{made}\n",
        "setup": f"""
            import registry
            def body(x_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=(P.DEFAULT, P.HIGHEST))
            {fill.replace("BODIES", "registry.BODIES")}
        """,
        "k": """
            from registry import BODIES
            def run(x):
                return pl.pallas_call(next(iter(BODIES)), out_shape=x)(x)
        """}, module="setup") == ([(("setup", LINE + 4), MIXED)], PALLAS_BACKENDS)


@pytest.mark.parametrize("launched", [
    "next(iter(BODIES))",
    "next(iter(EMPTY), body)",  # the default, where what it iterates holds nothing
])
@pytest.mark.parametrize("made", ["frozenset([body])", "set((body,))", "{body}"])
def test_a_set_made_from_a_body_launches_it_by_next(made: str, launched: str) -> None:
    """`set(x)`/`frozenset(x)` holds what `x` holds (not a new empty set), and `next(it, default)` may
    be its default: either way the body is launched, its pair reached."""
    assert _reached({"k": f"""
        def body(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=(P.DEFAULT, P.HIGHEST))
        BODIES = {made}
        EMPTY = []
        def run(x):
            return pl.pallas_call({launched}, out_shape=x)(x)
    """}) == ([(("k", LINE + 3), MIXED)], PALLAS_BACKENDS)


def test_a_list_spread_after_it_grew_may_land_on_any_parameter() -> None:
    """`mm(a, b, *EXTRA)` where `EXTRA = []` grew by `append` in another module: its length is no
    longer the literal's, so what it holds may land on `precision` (it bound nothing before)."""
    assert _reached({
        "registry": "EXTRA = []\n",
        "setup": "from registry import EXTRA\nEXTRA.append((P.DEFAULT, P.HIGHEST))\n",
        "k": """
            from registry import EXTRA
            def mm(a, b, precision=None):
                return jnp.dot(a, b, precision=precision)
            def body(x_ref, o_ref):
                o_ref[...] = mm(x_ref[...], x_ref[...], *EXTRA)
            def run(x):
                return pl.pallas_call(body, out_shape=x)(x)
        """})[0] == [(("setup", LINE + 2), MIXED)]
