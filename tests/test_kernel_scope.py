"""Which code runs in a Pallas kernel (codemods/analysis/kernel_scope.py), asked directly.

The goldens see the scope through the rules' fixes; a one-line bug that finds the same kernel by
another path, or that changes a reason no rule prints, leaves them unchanged. These tests pin what
`find_kernels` answers for small modules: every kernel with its reason, its backends, the launch
helpers, the shared helpers, the bodies left for the project index. Static analysis, no jax import.
Where a wrong answer shows as a duplicate finding, the CLI's output is pinned too (in process).
"""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codemods.analysis.kernel_scope import (
    BODY, FACTORY, HELPER, MOSAIC_GPU, MOSAIC_TPU, TRITON, KernelScope, ModuleFacts, default_value,
    describe_backends, find_kernels,
)
from codemods.analysis.value_flow import returned_values
from codemods.analysis.module import ModuleIndex
from codemods.cli import app

TPU, GPU = frozenset({MOSAIC_TPU}), frozenset({MOSAIC_GPU})
BOTH = frozenset({MOSAIC_TPU, TRITON})
HEAD = """\
import functools
from functools import partial
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import mosaic_gpu as plgpu
"""


def _scope(source: str, facts: ModuleFacts = ModuleFacts()) -> KernelScope:
    return find_kernels(ModuleIndex.parse(HEAD + textwrap.dedent(source)), facts)


def _label(function: ast.AST) -> str:
    return "lambda" if isinstance(function, ast.Lambda) else function.name  # type: ignore[attr-defined]


def _why(scope: KernelScope) -> dict[str, str]:
    return {_label(function): why for function, why in scope.kernels.items()}


def _backends(scope: KernelScope) -> dict[str, frozenset]:
    return {_label(function): backends for function, backends in scope.backends.items()}


def _names(functions) -> set[str]:
    return {_label(function) for function in functions}


@pytest.mark.parametrize("launch, why, backends", [
    ("pl.pallas_call(body, out_shape=x)", "passed to pallas_call", BOTH),
    ("pl.pallas_call(kernel=body, out_shape=x)", "passed to pallas_call", BOTH),
    ("pl.pallas_call(functools.partial(body, n=1), out_shape=x)", "passed to pallas_call", BOTH),
    ("pl.pallas_call(body, compiler_params=pltpu.CompilerParams())", "passed to pallas_call", TPU),
    ("pl.pallas_call(body, backend='triton')", "passed to pallas_call", frozenset({TRITON})),
    ("pl.kernel(body, mesh=plgpu.Mesh())", "passed to kernel", GPU),
    ("pl.kernel(body, out_shape=x)", "passed to kernel", frozenset({MOSAIC_TPU, MOSAIC_GPU})),
    ("functools.partial(pl.pallas_call, out_shape=x)(body)", "passed to pallas_call", BOTH),
    ("functools.partial(pl.pallas_call, body, out_shape=x)(x)", "passed to pallas_call", BOTH),
    ("partial(pl.pallas_call, compiler_params=pltpu.CompilerParams())(body)", "passed to pallas_call", TPU),
    ("partial(pl.kernel, out_shape=x, mesh=plgpu.Mesh())(body)", "passed to kernel", GPU),
    ("list(map(pl.pallas_call, (body,)))", "mapped by pallas_call", BOTH),
    ("list(map(partial(pl.pallas_call, backend='mosaic'), [body]))", "mapped by pallas_call", TPU),
    ("list(map(pl.pallas_call, {'a': body}.values()))", "mapped by pallas_call", BOTH),
    ("run(body)", "passed to pallas_call through run", TPU),
    ("run(kernel=body)", "passed to pallas_call through run", TPU),
    ("partial(run, body)()", "passed to pallas_call through run", TPU),
    ("list(map(run, [body]))", "passed to pallas_call through run", TPU),
])
def test_a_body_launched_each_way(launch: str, why: str, backends: frozenset) -> None:
    """The body, its reason and its backends; what it calls runs in the kernel too."""
    scope = _scope(f"""
        def helper(v):
            return v


        def body(x_ref, o_ref, n=0):
            o_ref[...] = helper(x_ref[...])


        def run(kernel, x=None):
            return pl.pallas_call(kernel, compiler_params=pltpu.CompilerParams())


        def go(x):
            return {launch}
        """)
    assert _why(scope)["body"] == why and _backends(scope)["body"] == backends
    assert _why(scope)["helper"] == "called from a kernel body (body)" and _backends(scope)["helper"] == backends
    assert "body" in _names(scope.direct) and "helper" not in _names(scope.direct)
    assert "go" not in _why(scope)


def test_a_helper_several_kernels_call_is_said_to_be_called_from_the_first_in_the_source() -> None:
    """The kernels are a set of nodes (ordered by address): the note must not change from run to run."""
    kernels = "".join(textwrap.dedent(f"""

        def body_{i}(x_ref, o_ref):
            o_ref[...] = helper(x_ref[...])


        go_{i} = pl.pallas_call(body_{i}, compiler_params=pltpu.CompilerParams())
        """) for i in range(8))
    scope = _scope("def helper(v):\n    return v\n" + kernels)
    assert _why(scope)["helper"] == "called from a kernel body (body_0)"


def test_a_launch_helper_and_its_parameter() -> None:
    scope = _scope("""
        def body(x_ref):
            pass


        def run(x, kernel):
            return pl.pallas_call(kernel, backend="triton")(x)


        def go(x):
            return run(x, body)
        """)
    ((helper, (param, launched)),) = scope.launch_helpers.items()
    assert (helper.name, param.arg, launched) == ("run", "kernel", frozenset({TRITON}))
    assert _why(scope) == {"body": "passed to pallas_call through run"}


@pytest.mark.parametrize("decorator, why, backends", [
    ("@pl.kernel(mesh=pltpu.create_tensorcore_mesh('x'))", "decorated with kernel", TPU),
    ("@functools.partial(pl.kernel, mesh=plgpu.Mesh())", "decorated with kernel", GPU),
    ("@pl.core_map(plgpu.Mesh())", "decorated with core_map", GPU),
    # (a partial's own arguments come after the launcher it binds: the mesh is its second)
    ("@functools.partial(pl.core_map, plgpu.Mesh())()", "decorated with core_map", GPU),
    ("@run", "passed to pallas_call through run", BOTH),  # a launch helper used as a decorator
])
def test_a_decorated_body(decorator: str, why: str, backends: frozenset) -> None:
    scope = _scope(f"""
        def run(body):
            return pl.pallas_call(body, out_shape=1)


        {decorator}
        def body(x_ref):
            pass
        """)
    assert _why(scope)["body"] == why and _backends(scope)["body"] == backends


@pytest.mark.parametrize("launch", [
    "pl.pallas_call(bodies[name])", "pl.pallas_call(k2)", "pl.pallas_call(make(2))",
    "pl.pallas_call(partial(k2, n=1))",
])
def test_bodies_through_names_dispatch_and_factories(launch: str) -> None:
    scope = _scope(f"""
        def body(x_ref, n=0):
            pass


        def other(x_ref):
            pass


        def make(n):
            def made(x_ref):
                pass
            if n:
                return made
            return body


        k = partial(body, n=1)
        k2 = k
        bodies = {{"a": body, "b": body}}


        def go(x, name):
            return {launch}
        """)
    assert "body" in _why(scope) and "other" not in _why(scope)


def test_a_factory_returns_its_own_returns_not_a_nested_defs() -> None:
    tree = ast.parse("def make():\n    def inner():\n        return 1\n    if x:\n        return a\n    return\n")
    assert [ast.unparse(v) for v in returned_values(tree.body[0])] == ["a"]


def test_a_body_the_module_does_not_define_is_left_for_the_project_index() -> None:
    scope = _scope("""
        import kernels


        def go(x):
            return pl.pallas_call(kernels.body, backend="mosaic_gpu")(x)
        """)
    ((expression, why, launched, role),) = scope.foreign_bodies
    assert (ast.unparse(expression), why, launched, role) == ("kernels.body", "passed to pallas_call", GPU, BODY)
    assert scope.kernels == {}


@pytest.mark.parametrize("name, role, kernels, direct", [
    ("body", BODY, {"body", "helper"}, {"body"}),
    ("helper", HELPER, {"helper"}, set()),  # called from a kernel elsewhere: a helper, never direct
    ("make", FACTORY, {"made", "helper"}, {"made"}),
])
def test_kernels_other_modules_launch(name: str, role: str, kernels: set, direct: set) -> None:
    facts = ModuleFacts(kernels=((name, TPU, "passed to pallas_call in api", role),))
    scope = _scope("""
        def helper(v):
            return v


        def body(x_ref):
            x_ref[...] = helper(x_ref[...])


        def make():
            def made(x_ref):
                return helper(x_ref)
            return made
        """, facts)
    assert set(_why(scope)) == kernels and _names(scope.direct) == direct
    assert all(backends == TPU for backends in scope.backends.values())


def test_a_value_kernels_elsewhere_call() -> None:
    facts = ModuleFacts(kernels=(("exp_hi", TPU, "called from a kernel body in api", HELPER),),
                        shared=frozenset({"exp_hi"}))
    scope = _scope("exp_hi = functools.partial(max, 1)\n", facts)
    ((binding, use),) = scope.foreign_uses.items()
    assert (binding.name, use) == ("exp_hi", (TPU, True))
    value = binding.value
    assert scope.backends_of(value) == TPU and scope.used_outside_kernels(value) == [value]


def test_helpers_shared_with_plain_code() -> None:
    scope = _scope("""
        def helper(v):
            return v


        def only_in_kernels(v):
            return v


        def body(x_ref):
            x_ref[...] = helper(only_in_kernels(x_ref[...]))


        def reference(x):
            return helper(x)


        run = pl.pallas_call(body, out_shape=1)
        """, ModuleFacts(shared=frozenset({"only_in_kernels"})))
    assert _names(scope.shared) == {"helper", "only_in_kernels"}
    assert _names(scope.direct) == {"body"}


def test_a_helper_of_a_tpu_and_a_triton_kernel_runs_on_both() -> None:
    scope = _scope("""
        def leaf(v):
            return v


        def helper(v):
            return leaf(v)


        def tpu_body(x_ref):
            helper(x_ref)


        def triton_body(x_ref):
            helper(x_ref)


        a = pl.pallas_call(tpu_body, backend="tpu")
        b = pl.pallas_call(triton_body, backend="triton")
        """)
    assert _backends(scope) == {"tpu_body": TPU, "triton_body": frozenset({TRITON}),
                                "helper": BOTH, "leaf": BOTH}


@pytest.mark.parametrize("params, is_dict, approx", [
    ("dict(mosaic=dict())", True, False),
    ("{'mosaic': {}}", True, False),
    ("PARAMS", True, False),
    ("plgpu.CompilerParams(approx_math=True)", False, True),
    ("plgpu.CompilerParams(approx_math=False)", False, False),
    ("plgpu.CompilerParams()", False, False),
    ("pltpu.CompilerParams(approx_math=True)", False, False),  # only Mosaic GPU approximates
    ("GpuParams(approx_math=True)", False, True),  # imported bare under another name: its module says GPU
])
def test_what_compiler_params_say_beyond_the_backend(params: str, is_dict: bool, approx: bool) -> None:
    scope = _scope(f"""
        from jax.experimental.pallas.mosaic_gpu import CompilerParams as GpuParams
        PARAMS = dict(mosaic=dict())


        def leaf(v):
            return v


        def body(x_ref):
            leaf(x_ref)


        def plain(x_ref):
            pass


        run = pl.pallas_call(body, compiler_params={params})
        other = pl.pallas_call(plain)
        """)
    assert _names(scope.dict_compiler_params) == ({"body"} if is_dict else set())
    assert _backends(scope)["body"] == (TPU if is_dict or params.startswith("pltpu") else GPU)
    assert _names(scope.approx_math) == ({"body", "leaf"} if approx else set())


def test_class_attributes_are_read_through_the_class_and_self() -> None:
    scope = _scope("""
        class Block:
            exp_hi = functools.partial(max, 1)

            def body(self, x_ref):
                return self.exp_hi(x_ref) + Block.exp_hi(x_ref)

            def launch(self):
                return pl.pallas_call(self.body, backend="triton")

            def plain(self, x):
                return self.exp_hi(x)
        """)
    assert _why(scope) == {"body": "passed to pallas_call"}
    value = next(node for node in ast.walk(scope.module.tree)
                 if isinstance(node, ast.Call) and ast.unparse(node) == "functools.partial(max, 1)")
    assert sorted(ast.unparse(use) for use in scope.uses_of(value)) == ["Block.exp_hi", "self.exp_hi", "self.exp_hi"]
    assert scope.backends_of(value) == frozenset({TRITON})
    assert [ast.unparse(use) for use in scope.used_outside_kernels(value)] == ["self.exp_hi"]


@pytest.mark.parametrize("source, param, default", [
    ("def f(a, b=1, c=2): pass", "a", None),
    ("def f(a, b=1, c=2): pass", "b", "1"),
    ("def f(a, b=1, c=2): pass", "c", "2"),
    ("def f(a, /, b=1): pass", "b", "1"),
    ("def f(a=0, /, b=1): pass", "a", "0"),
    ("def f(*, k=3, m): pass", "k", "3"),
    ("def f(*, k=3, m): pass", "m", None),
    ("def f(*args): pass", "args", None),
])
def test_the_default_of_a_parameter(source: str, param: str, default) -> None:
    function = ast.parse(source).body[0]
    (arg,) = [a for a in ast.walk(function) if isinstance(a, ast.arg) and a.arg == param]
    found = default_value(function, arg)  # type: ignore[arg-type]
    assert (ast.unparse(found) if found is not None else None) == default


@pytest.mark.parametrize("backends, said", [
    ({MOSAIC_TPU}, "Mosaic TPU"),
    ({TRITON, MOSAIC_TPU}, "Mosaic TPU and Triton"),
    ({MOSAIC_GPU, TRITON, MOSAIC_TPU}, "Mosaic GPU and Mosaic TPU and Triton"),
    ({"other"}, "other"),
])
def test_describe_backends(backends: set, said: str) -> None:
    assert describe_backends(frozenset(backends)) == said


def _chain(first: str, hops: int) -> str:
    """`a1 = first`, `a2 = a1`, ... `a{hops} = a{hops - 1}`."""
    return "\n".join(f"a{n} = {first if n == 1 else f'a{n - 1}'}" for n in range(1, hops + 1)) + "\n"


@pytest.mark.parametrize("hops", [7, 8, 200])
def test_a_loop_over_names_is_followed_however_long_the_chain(hops: int) -> None:
    """The value flow follows every alias: no chain is too long to reach the body."""
    scope = _scope(f"def body(x_ref):\n    pass\n\n\n{_chain('body', hops)}\nfor k in (a{hops},):\n    pl.pallas_call(k)\n")
    assert "body" in _why(scope)


@pytest.mark.parametrize("hops, backends", [(8, TPU), (9, BOTH)])
def test_compiler_params_are_followed_through_eight_names(hops: int, backends: frozenset) -> None:
    scope = _scope(f"def body(x_ref):\n    pass\n\n\n{_chain('pltpu.CompilerParams()', hops)}\n"
                   f"pl.pallas_call(body, compiler_params=a{hops})\n")
    assert _backends(scope)["body"] == backends


@pytest.mark.parametrize("uses, outside", [
    ("def body(x_ref):\n    return exp_hi(x_ref)\n\n\ndef plain(x):\n    return exp_hi(x)\n", ["exp_hi"]),
    ("def body(x_ref):\n    return exp_hi(x_ref)\n", []),
    ("def plain(x):\n    return exp_hi(x)\n", []),  # no kernel uses it: nothing is shared
])
def test_a_value_used_inside_and_outside_kernels(uses: str, outside: list) -> None:
    launched = "body" if "def body" in uses else "max"
    scope = _scope(f"exp_hi = functools.partial(max, 1)\n\n\n{uses}\n\nrun = pl.pallas_call({launched})\n")
    value = next(node for node in ast.walk(scope.module.tree)
                 if isinstance(node, ast.Call) and ast.unparse(node) == "functools.partial(max, 1)")
    assert [ast.unparse(use) for use in scope.used_outside_kernels(value)] == outside


def test_a_launch_helpers_default_body() -> None:
    """`def run(kernel=default_body)` called without one launches the default; a parameter without a
    default adds no body."""
    scope = _scope("""
        def default_body(x_ref):
            pass


        def run(x, kernel=default_body):
            return pl.pallas_call(kernel, backend="triton")(x)


        def bare(x, kernel):
            return pl.pallas_call(kernel)(x)


        go = run(1)
        pick = lambda: run  # named, not called: no launch
        """)
    assert _why(scope) == {"default_body": "passed to pallas_call through run"}
    assert _backends(scope) == {"default_body": frozenset({TRITON})}
    # Each helper's own launch of its parameter makes it a launch helper, for other modules' callers.
    assert {(_label(helper), param.arg, launched) for helper, (param, launched) in scope.launch_helpers.items()} \
        == {("run", "kernel", frozenset({TRITON})), ("bare", "kernel", BOTH)}
    assert scope.foreign_bodies == [] and scope.unresolved == []


@pytest.mark.parametrize("hops", [7, 8, 200])
def test_what_a_factory_returns_is_followed_however_long_the_chain(hops: int) -> None:
    scope = _scope(f"def body(x_ref):\n    pass\n\n\n{_chain('body', hops)}\n\ndef make():\n    return a{hops}\n\n\n"
                   "pl.pallas_call(make())\n")
    assert "body" in _why(scope)


# -- functions handed to a kernel (partial arguments, defaults) run where the kernel runs --


def test_functions_handed_to_a_kernel_run_in_it_and_are_no_plain_use() -> None:
    scope = _scope("""
        def finish(v):
            return v


        def start(v):
            return v


        def shared(v):
            return v


        def body(x_ref, *, epilogue, prologue=start, other=shared):
            x_ref[...] = epilogue(prologue(x_ref[...]))


        run = pl.pallas_call(functools.partial(body, epilogue=finish), compiler_params=pltpu.CompilerParams())
        plain = shared(1)
        """)
    assert _why(scope) == {"body": "passed to pallas_call", "finish": "passed to a kernel body (body)",
                           "start": "called from a kernel body (body)", "shared": "called from a kernel body (body)"}
    assert _backends(scope) == {"body": TPU, "finish": TPU, "start": TPU, "shared": TPU}
    assert _names(scope.shared) == {"shared"}  # `plain = shared(1)`; the partial and the defaults are no plain use
    assert {ast.unparse(value): backends for value, backends in scope.handed.items()} == {"finish": TPU}


def test_a_function_handed_to_another_modules_kernel_runs_where_that_kernel_runs() -> None:
    scope = _scope("""
        import kernels


        def finish(v):
            return v


        run = pl.pallas_call(functools.partial(kernels.body, 2, epilogue=finish, *rest), backend="mosaic_gpu")
        """)
    assert _why(scope) == {"finish": "passed to a kernel body"} and _backends(scope) == {"finish": GPU}
    assert {ast.unparse(value): backends for value, backends in scope.handed.items()} == {"2": GPU, "finish": GPU}
    assert scope.shared == set() and scope.direct == set()


def test_helpers_bound_to_names_run_in_the_kernel_and_aliases_are_no_plain_use() -> None:
    scope = _scope("""
        def matmul(v):
            return v


        project = lambda v: v
        mix = lambda v: v
        contract = project
        mm = matmul


        def body(x_ref):
            x_ref[...] = contract(mm(mix(x_ref[...])))


        run = pl.pallas_call(body, compiler_params=pltpu.CompilerParams())
        plain = mix(1)
        """)
    assert _why(scope) == {"body": "passed to pallas_call", "lambda": "called from a kernel body (body)",
                           "matmul": "called from a kernel body (body)"}
    lambdas = {scope.module.binding_of_value(f).name: f in scope.shared for f in scope.kernels
               if isinstance(f, ast.Lambda)}
    assert lambdas == {"project": False, "mix": True}
    assert _names(scope.shared) == {"lambda"} and _backends(scope)["matmul"] == TPU


@pytest.mark.parametrize("hops, shared", [(8, False), (9, True)])
def test_an_alias_chain_is_followed_eight_steps_then_taken_for_a_plain_use(hops: int, shared: bool) -> None:
    """Past eight aliases the tool stops following (a cycle must end) and errs on the safe side:
    the helper is taken to be shared with plain code, so it is reported, not rewritten."""
    aliases = "\n".join(f"a{i + 1} = a{i}" for i in range(hops))
    scope = _scope(f"def a0(v):\n    return v\n{aliases}\n"
                   f"def body(x_ref):\n    x_ref[...] = a0(a{hops}(x_ref[...]))\nrun = pl.pallas_call(body)\n")
    assert _names(scope.shared) == ({"a0"} if shared else set())


def test_a_helper_called_as_an_attribute_is_found_by_its_last_name() -> None:
    """`ops.scale(...)` in a kernel, where the module defines `scale`: the helper runs in the kernel
    (a namespace object or a re-export the module cannot see through; the name is what it has)."""
    scope = _scope("""
        def scale(v):
            return v


        def body(x_ref):
            x_ref[...] = ops.scale(x_ref[...])


        run = pl.pallas_call(body, compiler_params=pltpu.CompilerParams())
        """)
    assert _why(scope) == {"body": "passed to pallas_call", "scale": "called from a kernel body (body)"}
    assert _backends(scope)["scale"] == TPU


def test_a_value_rebound_from_itself_is_a_cycle_not_a_recursion() -> None:
    """jax's own flash_attention.py: `s = s if mask is None else s + ...` after the contraction made
    backends_of follow `s` into itself until RecursionError (the whole file got no fix)."""
    scope = _scope("""
        def body(x_ref, o_ref, mask=None):
            s = jnp.dot(x_ref[...], x_ref[...], precision=PAIR)
            s = s if mask is None else s + 1
            t = s if s is not None else t
            o_ref[...] = s

        run = pl.pallas_call(body, compiler_params=pltpu.CompilerParams())
    """)
    module = scope.module
    call = next(c for c in module.calls if getattr(c.func, "attr", None) == "dot")
    loads = [n for n in ast.walk(module.tree) if isinstance(n, ast.Name) and n.id in "st"
             and isinstance(n.ctx, ast.Load)]
    assert scope.backends_of(call) == TPU
    assert all(scope.backends_of(load) == TPU for load in loads)


@pytest.mark.parametrize("launch, reason", [
    ("pl.pallas_call(getattr(mod, name), out_shape=x)", "`getattr(...)`"),
    ("pl.pallas_call(bodies[0], out_shape=x)", "`*args` / `**kwargs`"),
    ("pl.pallas_call(cfg.body, out_shape=x)", "its body is not a value this analysis follows"),
])
def test_a_launch_the_analysis_cannot_resolve_is_recorded_with_what_it_may_run(launch: str, reason: str) -> None:
    """Never silent: the unresolved launch, and the functions it may run (kernel-shaped and never
    named, or passed around, with what they call), not those only ever called by name."""
    scope = _scope(f"""
        def _a_kernel(x_ref, o_ref):
            o_ref[...] = helper(x_ref[...])


        def helper(v):
            return v


        def entry(x):
            return reference(x)


        def reference(x):
            return x


        TABLE = [entry]


        def launch(mod, name, cfg, *bodies):
            return {launch}
        """)
    ((site, why, launched),) = scope.unresolved
    assert (ast.unparse(site).startswith("pl.pallas_call"), why, launched) == (True, reason, BOTH)
    # `entry` is passed around (stored in TABLE), so it and what it calls may run; `launch` is never
    # named and takes `*bodies`, as a kernel taking `*refs` does
    assert _names(scope.maybe_kernels) == {"_a_kernel", "helper", "entry", "reference", "launch"}
    assert scope.kernels == {}


def test_a_resolved_launch_leaves_nothing_unresolved() -> None:
    scope = _scope("""
        def _a_kernel(x_ref, o_ref):
            pass


        def launch(x):
            return pl.pallas_call(_a_kernel, out_shape=x)
        """)
    assert scope.unresolved == [] and scope.maybe_kernels == {}


# A loop variable that two launches take (the two arms of one conditional): each body, and each keyword
# a partial binds on another module's body, is reached from two launch sites.
TWO_LAUNCHES_OF_ONE_LOOP_VARIABLE = HEAD + """\
import jax.numpy as jnp
from jax import lax
import kernels

P = lax.Precision


def body_a(x_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=(P.DEFAULT, P.HIGHEST))


def body_b(x_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=(P.HIGHEST, P.DEFAULT))


def run(x, fast):
    outs = []
    for body in (body_a, body_b, functools.partial(kernels.body, precision=(P.HIGHEST, P.DEFAULT)),
                 kernels.make(accuracy=lax.AccuracyMode.HIGHEST)):
        outs.append(pl.pallas_call(body, out_shape=x, compiler_params=pltpu.CompilerParams())(x) if fast
                    else pl.pallas_call(body, out_shape=x, interpret=True)(x))
    return outs
"""


def test_what_two_launch_sites_of_one_loop_variable_reach_is_recorded_once_on_both_backends() -> None:
    """Another module's body and the keywords bound on it: one entry each, with the backends of both
    launches (not one entry per launch, which the rules reported twice)."""
    scope = find_kernels(ModuleIndex.parse(TWO_LAUNCHES_OF_ONE_LOOP_VARIABLE))
    assert sorted((ast.unparse(mention), why, launched, role) for mention, why, launched, role in scope.foreign_bodies) \
        == [("kernels.body", "passed to pallas_call", BOTH, BODY), ("kernels.make", "passed to pallas_call", BOTH, FACTORY)]
    assert sorted((keyword.arg, ast.unparse(mention), launched) for keyword, mention, launched, _ in scope.foreign_keywords) \
        == [("accuracy", "kernels.make", BOTH), ("precision", "kernels.body", BOTH)]
    assert _backends(scope) == {"body_a": BOTH, "body_b": BOTH}


def test_two_launch_sites_of_one_loop_variable_give_one_finding_and_one_fix_each(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the user sees: four findings (JAX001 in each body, JAX001 on the partial's precision, JAX002
    on the factory's accuracy), each listed once and counted once, and the file written with each edit
    once. (Reported per launch, the last two were listed twice, counted as 4 unsafe fixes, and with
    --unsafe-fixes the keyword dropped twice was an internal error and nothing was written.)"""
    monkeypatch.chdir(tmp_path)
    Path("loop.py").write_text(TWO_LAUNCHES_OF_ONE_LOOP_VARIABLE)
    common = ["--select", "JAX001,JAX002", "--jax-version", "0.12.0.1"]
    report = CliRunner().invoke(app, [*common, "--output-format", "json", "loop.py"], catch_exceptions=False)
    document = json.loads(report.stdout)
    assert [(finding["rule"], finding["start"]["line"]) for finding in document["findings"]] == [
        ("JAX001", 14), ("JAX001", 18), ("JAX001", 23), ("JAX002", 24)]
    summary = document["summary"]
    assert (summary["findings"], summary["fixes"], summary["errors"]) == (4, {"applied": 2, "unsafe_not_applied": 2}, 0)
    written = CliRunner().invoke(app, [*common, "--unsafe-fixes", "--write", "loop.py"], catch_exceptions=False)
    assert written.exit_code == 0, written.stderr
    assert "1 changed, 4 fixes, 0 need manual review, 0 errors" in written.stderr
    assert written.stderr.count("loop.py:23:76: JAX001 [fixed, unsafe]") == 1
    assert written.stderr.count("loop.py:24:31: JAX002 [dropped, unsafe]") == 1
    assert Path("loop.py").read_text() == TWO_LAUNCHES_OF_ONE_LOOP_VARIABLE \
        .replace("precision=(P.DEFAULT, P.HIGHEST)", "precision=P.HIGHEST") \
        .replace("precision=(P.HIGHEST, P.DEFAULT)", "precision=P.HIGHEST") \
        .replace("kernels.make(accuracy=lax.AccuracyMode.HIGHEST)", "kernels.make()")
