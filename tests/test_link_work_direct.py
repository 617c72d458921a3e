"""The link's work (codemods/analysis/flow/link*.py), counted: what it need not work out again is
not, and what it keeps changes no answer. Behaviour is test_link_direct.py's; here the linker's
lookups are counted, and its answers compared with a linker that keeps nothing."""

from __future__ import annotations

import textwrap

from hypothesis import HealthCheck, given, settings

from codemods.analysis.flow import link_binding, link_heap, link_values
from codemods.analysis.flow.link import Linker, link
from codemods.analysis.flow.summary import summarise
from codemods.rules.per_operand_precision import OPS
from tests.flow_programs import strategies

FOLLOWS = {name: (op.precision_position, "precision") for name, op in OPS.items()}
HEADER = textwrap.dedent("""
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental import pallas as pl
    P = lax.Precision
""")
KERNELS = 12


def _summaries(modules: dict[str, str]) -> list:
    return [summarise(HEADER + textwrap.dedent(text), name) for name, text in modules.items()]


def _config_project(writer: str = "") -> dict[str, str]:
    """`KERNELS` kernels, each reading the precision of one config instance whose class inherits it;
    `writer`: a module linked after the kernels' (`z`) that may set the instance's own attribute."""
    kernels = "".join(f"""
        def body_{index}(x_ref, o_ref):
            o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=cfg.CFG.precision)
        def run_{index}(x):
            return pl.pallas_call(body_{index}, out_shape=x)(x)
    """ for index in range(KERNELS))
    return {
        "cfg": """
            class Base:
                precision = P.HIGHEST
            class Config(Base):
                block = 128
            CFG = Config()
        """,
        "k": "import cfg\n" + textwrap.dedent(kernels),
        **({"z": writer} if writer else {}),
    }


def test_an_attribute_looked_up_again_while_nothing_it_read_grew_is_not_worked_out_again(monkeypatch) -> None:
    """Twelve kernels read `CFG.precision` (through the instance, its class and its base): the
    lookup is worked out once, not once a read (the trees' config classes read by attribute in
    hundreds of statements: a fifth of the link's CPU)."""
    looked_up = []
    real = link_values.Values._attribute_of
    monkeypatch.setattr(link_values.Values, "_attribute_of",
                        lambda linker, value, name: looked_up.append((value, name)) or real(linker, value, name))
    flow, _ = link(_summaries(_config_project()), FOLLOWS)
    assert [sink.unknown or sink.pairs for sink in flow["k"].sinks] == [()] * KERNELS  # (a scalar: no pair)
    assert len(flow["k"].sinks) == KERNELS and all(sink.reached for sink in flow["k"].sinks)
    assert looked_up.count((("inst", "cfg.Config"), "precision")) == 1


def test_an_imported_name_is_resolved_once_while_nothing_it_read_grew(monkeypatch) -> None:
    """Twelve kernels call `jnp.dot` and read `cfg.CFG`: each imported name is resolved (its module found
    among the prefixes of its dotted name, then its attributes) once, not once a read."""
    resolved = []
    real = link_values.Values._resolved
    monkeypatch.setattr(link_values.Values, "_resolved",
                        lambda linker, dotted: resolved.append(dotted) or real(linker, dotted))
    flow, _ = link(_summaries(_config_project()), FOLLOWS)
    assert len(flow["k"].sinks) == KERNELS
    assert resolved.count("jax.numpy.dot") == 1 and resolved.count("cfg") == 1


def test_a_kept_lookup_is_worked_out_again_when_what_it_read_grows() -> None:
    """The kernels read `CFG.precision` before another module sets the instance's own (a pair):
    each kernel's call then holds the pair, as without the kept lookup."""
    flow, _ = link(_summaries(_config_project("""
        import cfg
        cfg.CFG.precision = (P.DEFAULT, P.HIGHEST)
    """)), FOLLOWS)
    assert [[(reach.module, reach.levels) for reach in sink.pairs] for sink in flow["k"].sinks] == \
        [[("z", (("DEFAULT",), ("HIGHEST",)))]] * KERNELS


def _package_summaries(files: dict[str, str]) -> list:
    """The summaries of a generated package `p` (tests/flow_programs.py) by module name."""
    summaries = []
    for file, text in sorted(files.items()):
        stem = file.removesuffix(".py").replace("/", ".")
        package = stem == "__init__" or stem.endswith(".__init__")
        name = "p" if stem == "__init__" else f"p.{stem.removesuffix('.__init__')}"
        summaries.append(summarise(text, name, package))
    return [summary for summary in summaries if summary is not None]


@settings(max_examples=60, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(strategies((0, 12, 0)))
def test_the_kept_lookups_change_no_answer(program) -> None:
    """Generated packages (kernels reached through partials, containers, classes, re-exports) linked
    with the lookups kept and with none kept: the same answers, the same modules read."""
    summaries = _package_summaries(program.render("p"))
    kept = link(summaries, FOLLOWS)
    with_nothing_kept = link_heap.Heap._memoized
    try:
        link_heap.Heap._memoized = lambda heap, lookup, work: work()
        assert link(summaries, FOLLOWS) == kept
    finally:
        link_heap.Heap._memoized = with_nothing_kept


def _decorated_project(count: int, wraps: bool) -> dict[str, str]:
    """`count` functions of `k`, each decorated by `deco.traced` (a wrapper forwarding `*args, **kwargs`,
    through `functools.wraps` or not) and called by `use` with a keyword of its own."""
    functions = "".join(f"""
        @traced
        def op_{index}(x, **kwargs):
            return jnp.dot(x, x, **kwargs)
    """ for index in range(count))
    calls = "".join(f"    k.op_{index}(x, option_{index}=P.HIGHEST)\n" for index in range(count))
    return {
        "deco": f"""
            import functools
            def traced(fn):
                {"@functools.wraps(fn)" if wraps else ""}
                def wrapper(*args, **kwargs):
                    return fn(*args, **kwargs)
                return wrapper
        """,
        "k": "from deco import traced\n" + textwrap.dedent(functions),
        "use": "import k\n\ndef run(x):\n" + calls,
    }


def test_decorating_more_functions_binds_each_ones_arguments_to_it_alone(monkeypatch) -> None:
    """Each decoration runs the decorator's code for itself (the wrapper it makes calls that function
    only): the binds grow with the functions decorated, where one wrapper for all made each call bind
    every decorated function (a registry decorator on hundreds of kernels: the link past 20 times its
    CPU), and each function's `**kwargs` holds its own caller's keyword alone."""
    binds = []
    real = link_binding.Binding._bind
    monkeypatch.setattr(link_binding.Binding, "_bind", lambda linker, function, *args, **kwargs: binds.append(
        function) or real(linker, function, *args, **kwargs))
    for wraps in (False, True):
        counts = []
        for count in (8, 32):
            binds.clear()
            linker = Linker({summary.name: summary for summary in _summaries(_decorated_project(count, wraps))},
                            FOLLOWS).solve()
            counts.append(len(binds))
            held = {key for key in linker.keys if key[0] == "kwargs" and key[1] == "k.op_3"}
            assert [sorted(map(str, linker.keys[key])) for key in held] == [["option_3"]], held
        assert counts[1] < 5 * counts[0], (wraps, counts)


def test_a_wrapper_one_kernel_calls_runs_only_the_function_it_wraps_in_kernels() -> None:
    """`@traced` on a helper a kernel body calls and on XLA code: the wrapper made for the helper runs
    in the kernel, the one made for the XLA function does not (read by the wrapper's name, every
    decorated function ran in kernels, its pair taken for a kernel's)."""
    flow, _ = link(_summaries({"deco": _decorated_project(0, True)["deco"], "k": """
        from deco import traced

        @traced
        def helper(x):
            return jnp.dot(x, x, precision=P.HIGHEST)

        @traced
        def reference(x):
            return jnp.dot(x, x, precision=(P.DEFAULT, P.HIGHEST))

        def body(x_ref, o_ref):
            o_ref[...] = helper(x_ref[...])

        def run(x):
            return pl.pallas_call(body, out_shape=x)(x) + reference(x)
    """}), FOLLOWS)
    assert [bool(sink.backends) for sink in flow["k"].sinks] == [True, False], flow["k"].sinks
