"""codemods/analysis/kernel_scope.py called in the test's process (issue 35, item 3: mutation testing).

What tests/test_kernel_scope.py leaves out: whether a module is analysed at all
(`_names_a_launcher`, `find_kernels`' cache), the kernels other modules name by `Class.member` or
launch through their own helpers (`ModuleFacts`), the keywords kernel code passes on to another
module's function, which classes `self` and `cls` read, the backends a launch's arguments select,
and the small predicates (`takes_refs`, `holds_kernels`). Static analysis, no jax import.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from codemods.analysis.kernel_scope import (
    BODY, FACTORY, HELPER, MOSAIC_GPU, MOSAIC_TPU, NO_LAUNCH_FOUND, PASSED, TRITON, KernelScope, ModuleFacts, _names_a_launcher,
    classes_read, defined_launchers, find_kernels, names_refs, passed_for, takes_refs,
)
from codemods.analysis.module import ModuleIndex
from tests.test_kernel_scope import _backends, _label, _why  # noqa: F401 (the kernel scope tests' readers)

TPU, GPU, TRI = frozenset({MOSAIC_TPU}), frozenset({MOSAIC_GPU}), frozenset({TRITON})
BOTH = frozenset({MOSAIC_TPU, TRITON})
HEAD = """\
import functools
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import triton as plt
"""


def _scope(source: str, facts: ModuleFacts = ModuleFacts()) -> KernelScope:
    return find_kernels(ModuleIndex.parse(HEAD + textwrap.dedent(source)), facts)


# -- whether a module is analysed --

@pytest.mark.parametrize(("source", "names"), [
    ("import os\nx = os.path\n", False),
    ("import jax\n", False),
    ("from jax.experimental.pallas import pallas_call as launch\n", True),
    ("from a import kernel as k\n", True),
    ("from . import core_map as c\n", True),
    ("from kernel import x as y\n", False),
    ("import kernel as k\n", True),
    ("x = foo.pallas_call\n", True),
    ("x = foo.emit_pipeline_with_allocations\n", True),
    ("x = pallas_call\n", True),
    ("x = foo.pallas_calls\n", False),
    ("def f(kernel_ref):\n    return kernel_ref\n", False),
    ("from a import *\n", False),
])
def test_names_a_launcher(source: str, names: bool) -> None:
    assert _names_a_launcher(ModuleIndex.parse(source)) is names


def test_a_module_that_launches_nothing_is_not_analysed() -> None:
    module = ModuleIndex.parse("def body(x, o):\n    pass\n")
    scope = find_kernels(module)
    assert scope.flow is None and scope.kernels == {}
    assert find_kernels(module) is scope
    assert list(module.kernel_scopes.values()) == [scope]


# A kernel calls `mm`; plain code here calls `plain` only (its facts say `mm` is called plainly elsewhere).
_SHARED_HELPER = """
def mm(a, b):
    return a @ b


def body(x_ref, o_ref):
    o_ref[...] = mm(x_ref[...], x_ref[...])


def run(x):
    return pl.pallas_call(body, out_shape=x)(x)
"""


def _builds(monkeypatch) -> list:
    """Each full search of a module's kernels (`_KernelFinder`), as it is made."""
    from codemods.analysis import kernel_scope

    built, finder = [], kernel_scope._KernelFinder
    monkeypatch.setattr(kernel_scope, "_KernelFinder", lambda module, facts: built.append(facts) or finder(module, facts))
    return built


def test_the_scope_is_searched_once_for_facts_it_does_not_read(monkeypatch) -> None:
    """The project index asks with no facts, the rules with the link's answers and the names plain
    code elsewhere uses (`shared`): one search serves both, `shared` worked out again for the rules
    as a search with their facts finds it; other kernels named by the facts search again."""
    built = _builds(monkeypatch)
    module = ModuleIndex.parse(HEAD + textwrap.dedent(_SHARED_HELPER))
    bare = find_kernels(module)
    assert {_label(f) for f in bare.kernels} == {"body", "mm"} and bare.shared == set()
    answers = ModuleFacts(x64_elsewhere=("pkg.conf", 3), through=(("lax", "jax.lax"),), read_elsewhere=(("P", ("m",)),))
    assert find_kernels(module, answers) is bare
    assert find_kernels(module, ModuleFacts(shared=frozenset({"other"}))) is bare  # no kernel of it named
    shared = find_kernels(module, ModuleFacts(shared=frozenset({"mm"})))
    assert {_label(f) for f in shared.shared} == {"mm"} and shared.kernels is bare.kernels
    assert len(built) == 1
    searched = find_kernels(ModuleIndex.parse(module.text), ModuleFacts(shared=frozenset({"mm"})))  # as before
    assert {_label(f) for f in searched.shared} == {"mm"}
    find_kernels(module, ModuleFacts(kernels=(("mm", TPU, "called", HELPER),), shared=frozenset({"mm"})))
    find_kernels(module, ModuleFacts(launchers=(("pkg.launch.go", 0, "body", TPU),)))
    assert len(built) == 4  # (the one of the module parsed again, and one for each of these)


def test_the_scope_of_an_edited_module_is_its_own(monkeypatch) -> None:
    """Kept on the parse: the same facts about the module's edited bytes search again and find what
    the edit says (a scope kept by the module, or by the facts alone, would be the old one)."""
    built = _builds(monkeypatch)
    facts = ModuleFacts(shared=frozenset({"mm"}))
    before = find_kernels(ModuleIndex.parse(HEAD + textwrap.dedent(_SHARED_HELPER)), facts)
    edited = HEAD + textwrap.dedent(_SHARED_HELPER).replace("o_ref[...] = mm(", "o_ref[...] = max(")
    after = find_kernels(ModuleIndex.parse(edited), facts)
    assert {_label(f) for f in before.kernels} == {"body", "mm"} and {_label(f) for f in before.shared} == {"mm"}
    assert {_label(f) for f in after.kernels} == {"body"} and after.shared == set()
    assert len(built) == 2


def test_a_function_that_takes_refs_and_is_launched_nowhere_may_run_in_a_mosaic_kernel() -> None:
    """`def body(x_ref, o_ref)` with no launch found (here or by the project's facts), in code that
    passes a precision or an accuracy by keyword: a launch the analysis does not follow may run it,
    and what it calls; a def without ref parameters, or one a known kernel calls, is not such a
    maybe; without such a keyword there is nothing to note, and the module is not analysed."""
    code = ("def body(x_ref, o_ref):\n    o_ref[...] = helper(x_ref[...], precision=P)\n\n\n"
            "def helper(x, precision=None):\n    return x\n\n\n"
            "def plain(x, o):\n    return x\n\n\ndef blocks(*in_refs):\n    return in_refs\n")
    assert find_kernels(ModuleIndex.parse(code.replace("precision", "p"))).flow is None
    module = ModuleIndex.parse(code)
    scope = find_kernels(module)
    found = {function.name: entry for function, entry in scope.maybe_kernels.items()}
    assert set(found) == {"body", "helper", "blocks"}
    assert found["helper"] == found["body"] == (None, f"`body` {NO_LAUNCH_FOUND}", frozenset({MOSAIC_TPU, MOSAIC_GPU}))
    assert found["blocks"][1] == f"`blocks` {NO_LAUNCH_FOUND}"
    launched = ModuleIndex.parse("from jax.experimental import pallas as pl\n\n\ndef body(x_ref, o_ref):\n    pass\n\n\n"
                                 "def run(x):\n    return pl.pallas_call(body, out_shape=x)(x)\n")
    assert find_kernels(launched).maybe_kernels == {}


@pytest.mark.parametrize("facts", [
    ModuleFacts(kernels=(("body", TPU, "passed to pallas_call in api", BODY),)),
    ModuleFacts(launchers=(("api.run", 0, "body", TPU),)),
])
def test_facts_from_other_modules_analyse_a_module_that_names_no_launcher(facts: ModuleFacts) -> None:
    module = ModuleIndex.parse("import api\n\n\ndef body(x_ref):\n    pass\n\n\ndef go():\n    return api.run(body)\n")
    scope = find_kernels(module, facts)
    assert scope.flow is not None
    assert _why(scope) == {"body": "passed to pallas_call in api" if facts.kernels else "passed to run"}
    assert _backends(scope) == {"body": TPU}
    assert find_kernels(module, facts) is scope
    assert find_kernels(module) is not scope and find_kernels(module).kernels == {}


@pytest.mark.parametrize(("facts", "holds"), [
    (ModuleFacts(), False),
    (ModuleFacts(shared=frozenset({"f"})), False),
    (ModuleFacts(kernels=(("f", TPU, "why", BODY),)), True),
    (ModuleFacts(launchers=(("m.run", 0, "body", TPU),)), True),
])
def test_holds_kernels(facts: ModuleFacts, holds: bool) -> None:
    assert facts.holds_kernels is holds


# -- what other modules say --

def test_a_launch_helper_of_another_module() -> None:
    facts = ModuleFacts(launchers=(("api.run", 1, "kernel", GPU),))
    scope = _scope("""
        from api import run


        def body(x_ref):
            pass


        def by_keyword(x_ref):
            pass


        def first(x_ref):
            pass


        run(1, body)
        run(1, kernel=by_keyword)
        run(first, 1)
        """, facts)
    assert _why(scope) == {"body": "passed to run", "by_keyword": "passed to run"}
    assert _backends(scope) == {"body": GPU, "by_keyword": GPU}


def test_a_launch_helper_of_another_module_ignores_the_launches_compiler_params() -> None:
    facts = ModuleFacts(launchers=(("api.run", 0, "kernel", GPU),))
    scope = _scope("""
        from api import run


        def body(x_ref):
            pass


        run(body, compiler_params=pltpu.CompilerParams())
        """, facts)
    assert _backends(scope) == {"body": GPU}


@pytest.mark.parametrize(("decorator", "kernels"), [
    ("@staticmethod", {"body", "helper"}),
    ("", {"body", "helper"}),
    ("@classmethod", {"body", "helper"}),
])
def test_a_member_of_a_class_other_modules_launch(decorator: str, kernels: set) -> None:
    facts = ModuleFacts(kernels=(("Holder.body", TRI, "passed to pallas_call in api", BODY),))
    scope = _scope(f"""
        def helper(v):
            return v


        def other(x_ref):
            pass


        class Holder:
            {decorator}
            def body(x_ref):
                helper(x_ref)

            def other(self):
                pass
        """, facts)
    assert set(_why(scope)) == kernels
    assert _why(scope)["body"] == "passed to pallas_call in api"
    assert _backends(scope)["body"] == TRI and _backends(scope)["helper"] == TRI
    assert {_label(f) for f in scope.direct} == {"body"}


def test_a_member_assigned_in_the_class_body() -> None:
    facts = ModuleFacts(kernels=(("Holder.bodies", GPU, "passed to kernel in api", BODY),))
    scope = _scope("""
        def a(x_ref):
            pass


        def b(x_ref):
            pass


        def c(x_ref):
            pass


        class Holder:
            bodies = [a, b]
        """, facts)
    assert _why(scope) == {"a": "passed to kernel in api", "b": "passed to kernel in api"}


def test_a_dotted_name_of_something_else_than_a_class_is_nothing() -> None:
    facts = ModuleFacts(kernels=(("holder.body", GPU, "why", BODY), ("Holder.missing", GPU, "why", BODY)))
    scope = _scope("""
        def body(x_ref):
            pass


        holder = body


        class Holder:
            pass
        """, facts)
    assert scope.kernels == {}


def test_a_value_other_modules_launch_and_what_a_factory_value_makes() -> None:
    facts = ModuleFacts(kernels=(("BODIES", TPU, "passed to pallas_call in api", BODY),
                                 ("make", GPU, "returned to pallas_call in api", FACTORY)))
    scope = _scope("""
        def a(x_ref):
            pass


        def b(x_ref):
            pass


        def made(x_ref):
            pass


        def factory():
            return made


        BODIES = {"a": a, "b": [b]}
        make = factory
        """, facts)
    assert _why(scope) == {"a": "passed to pallas_call in api", "b": "passed to pallas_call in api",
                           "made": "returned to pallas_call in api"}
    assert _backends(scope) == {"a": TPU, "b": TPU, "made": GPU}
    assert scope.foreign_uses == {}


def test_a_helper_value_other_modules_call_from_kernels() -> None:
    facts = ModuleFacts(kernels=(("exp_hi", GPU, "called from a kernel body in api", HELPER),))
    scope = _scope("""
        def inner(v):
            return v


        exp_hi = functools.partial(inner, 1)


        def plain(x):
            return exp_hi(x)
        """, facts)
    ((binding, (launched, shared)),) = scope.foreign_uses.items()
    assert (binding.name, launched, shared) == ("exp_hi", GPU, False)
    assert _why(scope) == {"inner": "called from a kernel body in api"}
    value = binding.value
    assert scope.backends_of(value) == GPU
    (use,) = scope.used_outside_kernels(value)
    assert ast.unparse(scope.module.parent[use]) == "exp_hi(x)"


def test_a_helper_value_used_only_by_other_modules_kernels_is_not_shared() -> None:
    facts = ModuleFacts(kernels=(("exp_hi", GPU, "called from a kernel body in api", HELPER),))
    scope = _scope("exp_hi = functools.partial(max, 1)\n", facts)
    (binding,) = scope.foreign_uses
    assert scope.used_outside_kernels(binding.value) == []


# -- keywords kernel code passes on to another module --

def test_keywords_a_kernel_passes_to_another_modules_function() -> None:
    scope = _scope("""
        import ops


        def body(x_ref, precision, **kw):
            ops.plain(x_ref)
            ops.mm(x_ref, x_ref, precision=precision, fixed=1, **kw)
            local(x_ref, precision=precision)
            ops.conv(x_ref, accuracy=precision)


        def local(x, precision=None):
            return x


        def outside(precision):
            return ops.mm(1, 2, precision=precision)


        run = pl.pallas_call(body, backend="triton")
        """)
    assert [(k.arg, ast.unparse(k.value), ast.unparse(m), launched, how) for k, m, launched, how in scope.foreign_keywords] \
        == [("precision", "precision", "ops.mm", TRI, PASSED), ("accuracy", "precision", "ops.conv", TRI, PASSED)]


def test_keywords_passed_to_the_result_of_another_modules_factory() -> None:
    scope = _scope("""
        import ops


        def body(x_ref, p):
            ops.make(1)(x_ref, precision=p, other=p)


        run = pl.pallas_call(body, backend="tpu")
        """)
    assert [(k.arg, ast.unparse(m), b, how) for k, m, b, how in scope.foreign_keywords] == [
        ("precision", "ops.make", TPU, PASSED), ("other", "ops.make", TPU, PASSED)]


# -- which backends a launch selects --

@pytest.mark.parametrize(("arguments", "backends"), [
    ("backend='TRITON'", TRI),
    ("backend='mosaic_tpu'", TPU),
    ("backend='mosaic_gpu'", GPU),  # not among pallas_call's defaults: said, so taken
    ("backend='cuda'", BOTH),
    ("backend=1", BOTH),
    ("compiler_params={'triton': {}}", TRI),
    ("compiler_params={'mosaic': {}, 'triton': {}}", BOTH),
    ("compiler_params={'other': {}}", BOTH),
    ("compiler_params={'mosaic_gpu': {}, 'triton': {}}", TRI),  # what pallas_call can reach of what is said
    ("compiler_params={**extra}", BOTH),
    ("compiler_params=dict(triton=dict())", TRI),
    ("compiler_params=dict(**extra)", BOTH),
    ("compiler_params=plt.CompilerParams()", TRI),
    ("compiler_params=plgpu.CompilerParams()", GPU),
    ("compiler_params=TRITON_PARAMS", TRI),
    ("compiler_params=EITHER", BOTH),
    ("compiler_params=UNKNOWN_THEN_TPU", BOTH),
    ("compiler_params=PARAM_CLASS()", TPU),
    ("compiler_params=other.CompilerParams()", BOTH),
    ("compiler_params=None, backend='triton'", TRI),
])
def test_the_backends_a_pallas_call_selects(arguments: str, backends: frozenset) -> None:
    scope = _scope(f"""
        import other

        TRITON_PARAMS = plt.CompilerParams()
        if cond:
            EITHER = plt.CompilerParams()
        else:
            EITHER = pltpu.CompilerParams()
        UNKNOWN_THEN_TPU = make()
        PARAM_CLASS = pltpu.CompilerParams


        def body(x_ref):
            pass


        run = pl.pallas_call(body, {arguments})
        """)
    assert _backends(scope) == {"body": backends}


def test_a_dict_named_dict_is_not_the_builtin() -> None:
    scope = _scope("""
        from mylib import dict


        def body(x_ref):
            pass


        run = pl.pallas_call(body, compiler_params=dict(triton=1))
        """)
    assert _backends(scope) == {"body": BOTH}
    assert scope.dict_compiler_params == set()


@pytest.mark.parametrize(("launch", "backends"), [
    ("pl.core_map(plgpu.Mesh())", GPU),
    ("pl.core_map(mesh=pltpu.create_tensorcore_mesh('x'))", TPU),
    ("pl.core_map(other_mesh)", frozenset({MOSAIC_TPU, MOSAIC_GPU})),
    ("pl.kernel(mesh=plgpu.Mesh(), compiler_params=pltpu.CompilerParams())", GPU),
    ("pl.kernel(out_shape=1, compiler_params=pltpu.CompilerParams())", TPU),
])
def test_the_backends_a_decorator_selects(launch: str, backends: frozenset) -> None:
    scope = _scope(f"""
        @{launch}
        def body():
            pass
        """)
    assert _backends(scope) == {"body": backends}


def test_a_partial_launcher_binds_its_body_position() -> None:
    scope = _scope("""
        tpu_call = functools.partial(pl.pallas_call, compiler_params=pltpu.CompilerParams())
        bound = functools.partial(pl.pallas_call, body)
        too_many = functools.partial(pl.pallas_call, body, 1)
        not_a_launcher = functools.partial(max, 1)
        core = functools.partial(pl.core_map, plgpu.Mesh())
        called = pl.pallas_call(body)
        gpu_call = functools.partial(pl.kernel, mesh=plgpu.Mesh())
        last = functools.partial(max, 2)


        def body(x_ref):
            pass
        """)
    assert scope.partial_launchers == {"tpu_call": (0, "kernel", TPU), "gpu_call": (0, "body", GPU)}


# -- what `self` and `cls` read, and kernel signatures --

def test_classes_read() -> None:
    module = ModuleIndex.parse(textwrap.dedent("""
        class C:
            def method(self, other):
                return self, other

            @classmethod
            def make(cls):
                return cls

            def only(self, /):
                return self


        def plain(self):
            return self


        alias = C
        use = (C, alias)
        """))
    loads = {(node.id, node.lineno): node for node in ast.walk(module.tree)
             if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}

    def read(name: str, line: int) -> list[str]:
        return [c.name for c in classes_read(module, loads[(name, line)])]

    assert read("self", 4) == ["C"]
    assert read("other", 4) == []
    assert read("cls", 8) == ["C"]
    assert read("self", 11) == ["C"]
    assert read("self", 15) == []
    assert read("C", 19) == ["C"]
    assert read("alias", 19) == []


@pytest.mark.parametrize(("signature", "refs"), [
    ("x_ref, o_ref", True),
    ("*refs", True),
    ("a, *rest", True),
    ("a, b", False),
    ("a, **kw", False),
    ("", False),
    ("*, O_REF", True),
    ("a_ref, /", True),
    ("a, /, b, *, c_Ref=None", True),
    ("prefetch, x", True),  # a substring test: any name holding `ref`
])
def test_takes_refs(signature: str, refs: bool) -> None:
    function = ast.parse(f"def f({signature}): pass").body[0]
    assert takes_refs(function) is refs


def test_kernel_of_an_attribute_and_outside_kernels() -> None:
    scope = _scope("""
        import jax


        def body(x_ref):
            def unused():  # never named: no kernel of its own
                return jax.numpy.exp(x_ref)


        def plain(x):
            return jax.numpy.exp(x)


        run = pl.pallas_call(body)
        """)
    inside, outside = [node for node in ast.walk(scope.module.tree)
                       if isinstance(node, ast.Attribute) and ast.unparse(node) == "jax.numpy.exp"]
    if inside.lineno > outside.lineno:
        inside, outside = outside, inside
    assert _label(scope.kernel_of(inside)) == "body"
    assert scope.kernel_of(outside) is None
    assert scope.backends_of(inside) == BOTH and scope.backends_of(outside) == frozenset()
    assert scope.kernel_of(scope.module.tree) is None


def test_a_value_two_kernels_use_runs_on_both_backends() -> None:
    scope = _scope("""
        exp_hi = functools.partial(max, 1)


        def tpu_body(x_ref):
            exp_hi(x_ref)


        def triton_body(x_ref):
            exp_hi(x_ref)


        a = pl.pallas_call(tpu_body, backend="tpu")
        b = pl.pallas_call(triton_body, backend="triton")
        """)
    value = next(node for node in ast.walk(scope.module.tree)
                 if isinstance(node, ast.Call) and ast.unparse(node) == "functools.partial(max, 1)")
    assert scope.backends_of(value) == BOTH
    assert scope.used_outside_kernels(value) == []


def test_a_launch_helper_launching_twice_reaches_both_backends() -> None:
    scope = _scope("""
        def run(k, fast):
            if fast:
                return pl.pallas_call(k, backend="tpu")
            return pl.pallas_call(k, backend="triton")
        """)
    ((helper, (param, launched)),) = scope.launch_helpers.items()
    assert (helper.name, param.arg, launched) == ("run", "k", BOTH)


def test_a_value_other_modules_launch_that_this_analysis_cannot_follow_is_theirs_to_report() -> None:
    facts = ModuleFacts(kernels=(("BODIES", TPU, "passed to pallas_call in api", BODY),))
    scope = _scope("BODIES = getattr(registry, 'bodies')\n", facts)
    assert scope.kernels == {} and scope.unresolved == []


def test_a_partial_a_kernel_calls_binds_the_helpers_arguments() -> None:
    """`partial_bindings`: the rules read the values a partial binds to a kernel's helper (JAX001's
    precision, JAX002's accuracy) under the helper, whether the body is launched or calls it."""
    scope = _scope("""
        def helper(x, precision=None):
            return x


        fast = functools.partial(helper, precision="highest")


        def body(x_ref):
            fast(x_ref)


        run = pl.pallas_call(body)
        """)
    bindings = {_label(function): [ast.unparse(p) for p in partials] for function, partials in scope.partial_bindings.items()}
    assert bindings == {"helper": ["functools.partial(helper, precision='highest')"], "body": []}


def test_a_lambda_default_a_kernel_calls_is_a_kernel_helper_and_not_shared() -> None:
    scope = _scope("""
        def body(x_ref, f=lambda v: v):
            f(x_ref)


        run = pl.pallas_call(body)
        """)
    assert _why(scope) == {"body": "passed to pallas_call", "lambda": "called from a kernel body (body)"}
    assert scope.shared == set()


def test_an_unresolved_launch_may_run_no_lambda() -> None:
    scope = _scope("""
        shaped = lambda x_ref: x_ref


        def body_like(x_ref, o_ref):
            pass


        run = pl.pallas_call(getattr(registry, "body"))
        """)
    assert [why for _, why, _ in scope.unresolved] == ["`getattr(...)`"]
    assert {_label(f) for f in scope.maybe_kernels} == {"body_like"}


def test_a_kernel_other_modules_launch_on_no_known_backend() -> None:
    facts = ModuleFacts(kernels=(("body", frozenset(), "passed to pallas_call in api", BODY),))
    scope = _scope("""
        def helper(v):
            return max(v)


        def body(x_ref):
            helper(x_ref)
        """, facts)
    assert set(_why(scope)) == {"body", "helper"}
    call = next(node for node in ast.walk(scope.module.tree) if isinstance(node, ast.Call) and ast.unparse(node) == "max(v)")
    assert _label(scope.kernel_of(call)) == "helper"
    assert scope.backends_of(call) == frozenset()


def test_what_a_lambda_body_calls_says_so() -> None:
    scope = _scope("""
        def helper(v):
            return v


        run = pl.pallas_call(lambda x_ref: helper(x_ref))
        """)
    assert _why(scope) == {"lambda": "passed to pallas_call", "helper": "called from a kernel body (lambda)"}


def test_a_scope_without_launches_still_answers_for_its_module() -> None:
    module = ModuleIndex.parse("def f(x):\n    return g(x)\n")
    scope = find_kernels(module)
    call = module.calls[0]
    assert scope.module is module and scope.kernel_of(call) is None and scope.backends_of(call) == frozenset()


def test_a_member_of_a_name_the_module_does_not_bind_is_nothing() -> None:
    facts = ModuleFacts(kernels=(("Missing.body", TPU, "why", BODY),))
    scope = _scope("def body(x_ref):\n    pass\n", facts)
    assert scope.kernels == {}


def test_keywords_passed_on_from_a_kernel_on_no_known_backend() -> None:
    facts = ModuleFacts(kernels=(("body", frozenset(), "passed to pallas_call in api", BODY),))
    scope = _scope("import ops\n\n\ndef body(x_ref, p):\n    ops.mm(x_ref, precision=p)\n", facts)
    assert [(k.arg, launched) for k, _, launched, _ in scope.foreign_keywords] == [("precision", frozenset())]


# -- mutation testing, 2026-12-05: the survivors left killable --

def _within(seconds: int):
    """Fail, rather than hang, where a loop over what a kernel reaches would not end."""
    import contextlib
    import signal

    def expired(signum, frame):
        raise TimeoutError(f"did not end within {seconds} s")

    @contextlib.contextmanager
    def limit():
        previous = signal.signal(signal.SIGALRM, expired)
        signal.alarm(seconds)
        try:
            yield
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
    return limit()


def test_what_an_approx_math_kernel_calls_is_approx_math_a_recursive_helper_once() -> None:
    """A recursive helper, and a nested def that mentions nothing: each is spread to once."""
    with _within(10):
        scope = _scope("""
            def leaf(v):
                return leaf(v - 1) if v else v


            def body(x_ref):
                def nothing():
                    pass
                leaf(x_ref)


            run = pl.pallas_call(body, compiler_params=plgpu.CompilerParams(approx_math=True))
            """)
    assert {_label(f) for f in scope.approx_math} == {"body", "leaf"}


def test_a_helper_named_only_in_a_def_nested_in_a_kernel_is_not_shared() -> None:
    """`helper` is named in `unused`, a def inside the kernel that nothing calls: inside the kernel
    still (its enclosing function is), so no plain use."""
    scope = _scope("""
        def helper(v):
            return v


        def body(x_ref):
            def unused(v):
                return helper(v)
            x_ref[...] = x_ref[...]


        run = pl.pallas_call(body)
        """)
    assert _why(scope)["helper"] == "called from a kernel body (body)"
    assert scope.shared == set()


def test_keywords_a_helper_passes_on_from_a_kernel_on_no_known_backend() -> None:
    facts = ModuleFacts(kernels=(("body", frozenset(), "passed to pallas_call in api", BODY),))
    scope = _scope("import ops\n\n\ndef helper(x, p):\n    return ops.mm(x, precision=p)\n\n\n"
                   "def body(x_ref, p):\n    helper(x_ref, p)\n", facts)
    assert [(k.arg, launched) for k, _, launched, _ in scope.foreign_keywords] == [("precision", frozenset())]


def test_a_launch_in_a_function_inside_a_launch_helper_is_through_the_helper() -> None:
    scope = _scope("""
        def run(body, x):
            def go():
                return pl.pallas_call(body, out_shape=x)(x)
            return go()


        def kernel(x_ref, o_ref):
            pass


        out = run(kernel, 1)
        """)
    assert _why(scope)["kernel"] == "passed to pallas_call through run"


def test_an_unresolved_launch_may_run_what_follows_a_known_kernel_and_what_that_calls() -> None:
    """Known kernels first and last (whichever order the functions are looked at in): every other
    function is still weighed; `body_like` takes refs and `helper` is what it calls; `lone`, called
    only by `caller`, which only plain code calls, is neither."""
    scope = _scope("""
        def body(x_ref):
            pass


        def helper(v):
            return v


        def body_like(x_ref, o_ref):
            helper(x_ref)


        def lone(v):
            return v


        def caller(v):
            return lone(v)


        def last(x_ref):
            pass


        y = caller(1)
        known = pl.pallas_call(body)
        again = pl.pallas_call(last)
        run = pl.pallas_call(getattr(registry, "body"))
        """)
    assert {_label(f) for f in scope.maybe_kernels} == {"body_like", "helper"}


def test_a_list_of_bodies_that_holds_itself_is_read_once() -> None:
    facts = ModuleFacts(kernels=(("BODIES", TPU, "passed to pallas_call in api", BODY),))
    with _within(10):
        scope = _scope("""
            def body(x_ref):
                pass


            BODIES = [body]
            BODIES.append(BODIES)
            """, facts)
    assert _backends(scope) == {"body": TPU}


def test_a_function_handed_to_two_kernels_of_another_module_runs_on_the_backends_of_both() -> None:
    scope = _scope("""
        import kernels


        def finish(v):
            return v


        tpu = pl.pallas_call(functools.partial(kernels.body, epilogue=finish), compiler_params=pltpu.CompilerParams())
        gpu = pl.pallas_call(functools.partial(kernels.other, epilogue=finish), backend="mosaic_gpu")
        """)
    assert _backends(scope) == {"finish": TPU | GPU}


# -- session 10's changed functions (the mutation run of session 11, docs/testing.md) --

LAUNCHERS_DEFINED = '''
def run(body, x):
    return pl.pallas_call(body, out_shape=x)(x)


def run_late(x, body):
    return pl.pallas_call(body, out_shape=x)(x)


run_lambda = lambda body, x: pl.pallas_call(body, out_shape=x)(x)
annotated: object = lambda body, x: pl.pallas_call(body, out_shape=x)(x)
run_one = functools.partial(run_late, 1)
call = pl.pallas_call
again = run


class Runner:
    def __init__(self, body):
        self.body = body
        pl.pallas_call(body, out_shape=1)


class Ops:
    @staticmethod
    def static(x, body):
        return pl.pallas_call(body, out_shape=x)(x)

    @classmethod
    def klass(cls, x, body):
        return pl.pallas_call(body, out_shape=x)(x)

    def method(self, x, body):
        return pl.pallas_call(body, out_shape=x)(x)

    def keyword(self, x, *, body):
        return pl.pallas_call(body, out_shape=x)(x)


OPS = Ops()
OTHER = dict()
NOT_OPS = Runner(None)


def with_grid(grid):
    def deco(body):
        return pl.pallas_call(body, grid=grid)
    return deco


def not_a_factory(x):
    def launch(body):
        return pl.pallas_call(body, out_shape=x)(x)
    return launch(KERNEL)


grid_one = functools.partial(with_grid, (8,))
body_bound = functools.partial(run, body=KERNEL)
'''


def test_the_launchers_a_module_defines_and_where_each_takes_its_body() -> None:
    """`defined_launchers` (what importers call by name, with the body's position and keyword) and
    the module-level partials and other names of launchers: a static method takes the body where
    the def has it, a class method and an instance's method one place before (`cls`, `self`); only
    the names bound to an instance of the class (`OPS`, not `OTHER` nor `NOT_OPS`) carry its
    methods; a partial that binds the first argument moves the body one place, one of a decorator
    factory is configured first too, one that binds the body is no launcher; a lambda bound by an
    annotated assignment is one (`annotated`); a def that calls the launcher it defines within
    instead of returning it is not (`not_a_factory`)."""
    scope = _scope(LAUNCHERS_DEFINED)
    both = frozenset({MOSAIC_TPU, TRITON})
    assert defined_launchers(scope) == {
        "run": (0, "body", both), "run_late": (1, "body", both), "run_lambda": (0, "body", both),
        "Runner": (0, "body", both), "Ops.static": (1, "body", both), "Ops.klass": (1, "body", both),
        "OPS.method": (1, "body", both), "OPS.keyword": (None, "body", both), "with_grid": (None, "", both),
        "annotated": (0, "body", both)}
    assert scope.partial_launchers == {"again": (0, "body", both), "call": (0, "kernel", both), "run_one": (0, "body", both),
                                       "grid_one": (None, "", both)}  # not `body_bound`: its body is bound


def test_partials_and_other_names_of_another_modules_launcher_are_launchers_too() -> None:
    """`_launch_spec` of an imported launch helper: a partial that binds its first argument moves
    the body one place; another name for it takes the body where it does."""
    scope = _scope("""
        import api
        from api import run


        run_one = functools.partial(run, 1)
        call = api.run
        """, ModuleFacts(launchers=(("api.run", 1, "kernel", GPU),)))
    assert scope.partial_launchers == {"run_one": (0, "kernel", GPU), "call": (1, "kernel", GPU)}


def test_what_plain_code_calls_through_a_table_is_not_kernel_code() -> None:
    """A kernel reaches what it calls through a container (`OPS["mm"](a)`); what plain code calls
    that way, in the same module, stays plain code."""
    scope = _scope("""
        def mm(a):
            return a


        def add(a):
            return a


        OPS = {"add": add}
        PLAIN = {"mm": mm}


        def body(x_ref, o_ref):
            o_ref[...] = OPS["add"](x_ref[...])


        def plain(a):
            return PLAIN["mm"](a)


        pl.pallas_call(body, out_shape=1)
        """)
    assert _why(scope) == {"body": "passed to pallas_call", "add": "called from a kernel body (body)"}


def test_a_def_inside_a_kernel_that_takes_refs_is_not_an_unlaunched_body() -> None:
    """`_MaybeKernels.find_unlaunched_bodies`: a def written inside a kernel (here never called) is within kernel
    code, not a body whose launch was not found: no [manual] note's reason for it."""
    scope = _scope("""
        def body(x_ref, o_ref):
            def unused(a_ref):
                return a_ref
            o_ref[...] = x_ref[...]


        pl.pallas_call(body, out_shape=1)
        """)
    assert _why(scope) == {"body": "passed to pallas_call"} and scope.maybe_kernels == {}


@pytest.mark.parametrize("fallback", ["None", "fallback", "functools.partial(print, 1)"])
def test_a_partial_launcher_bound_in_one_branch_and_something_else_in_another_is_a_launcher(fallback: str) -> None:
    """`try: call = functools.partial(pl.pallas_call, ...)` / `except ...: call = None` (or another
    name, or a partial of something else): the name's other binding, no launcher, does not hide the partial."""
    scope = _scope(f"""
        try:
            call = functools.partial(pl.pallas_call, compiler_params=pltpu.CompilerParams())
        except AttributeError:
            call = {fallback}
        """)
    assert scope.partial_launchers == {"call": (0, "kernel", TPU)}


@pytest.mark.parametrize(("signature", "refs"), [
    ("x_ref", True), ("o_refs", True), ("x, *, acc_ref", True), ("*in_refs", True), ("**out_refs", True),
    ("x, /, y_ref", True), ("_ref", False), ("_refs", False), ("x_reference", False), ("ref", False), ("x", False),
])
def test_names_refs(signature: str, refs: bool) -> None:
    """A parameter named as kernel bodies name their refs: `<name>_ref` or `<name>_refs`, not the bare suffix."""
    function = ast.parse(f"def f({signature}):\n    pass\n").body[0]
    assert names_refs(function) is refs


def test_passed_for_is_what_this_modules_calls_by_name_pass() -> None:
    """The one answer JAX001, JAX002 and JAX006 ask for a parameter's callers in the module: each call
    naming the def passes its argument (by position or keyword); a call leaving it out, a reference
    that is no call (`[helper]`), a partial and another def's calls pass nothing."""
    module = ModuleIndex.parse(textwrap.dedent("""
        import functools

        def helper(x, p=None):
            return p

        def other(x, p):
            return p

        helper(1, "high")
        helper(2, p=HIGHEST)
        helper(3)
        KEEP = [helper]
        BOUND = functools.partial(helper, p=BOUND)
        other(4, "default")
    """))
    helper = next(node for node in module.tree.body if isinstance(node, ast.FunctionDef))
    assert sorted(ast.unparse(value) for value in passed_for(module, helper, helper.args.args[1])) == ["'high'", "HIGHEST"]
    assert sorted(ast.unparse(value) for value in passed_for(module, helper, helper.args.args[0])) == ["1", "2", "3"]
