"""One module's summary (codemods/analysis/flow/summary.py), field by field, in the test's process: each
test pins what one field holds for a small module (a dropped or wrong field fails it), and the
summary's data round trip that the project state keeps."""

from __future__ import annotations

import ast
import marshal
import textwrap

import pytest

from codemods.analysis.flow import summary as summary_module
from codemods.analysis.flow.summary import Call, Class, Function, ModuleSummary, as_data, from_data, summarise

M = "pkg.sub.mod"


def _summary(code: str, name: str = M, is_package: bool = False) -> ModuleSummary:
    found = summarise(textwrap.dedent(code), name, is_package)
    assert found is not None
    return found


def _assigned(code: str, name: str = M, is_package: bool = False) -> dict:
    return dict(_summary(code, name, is_package).assigns)


def test_imports_are_absolute_names_and_re_exports() -> None:
    """Each import binds a module-level name to the absolute name it reads (what other modules see
    as this one's names); a relative import counts from the module's package, or from the module
    itself for a package's `__init__`."""
    code = """
        import jax.numpy
        import numpy as np
        from . import sibling
        from ..up import thing as alias
        from .... import too_far
        from jax import lax
    """
    assert _assigned(code) == {
        ("var", M, "jax"): ("dotted", "jax"), ("var", M, "np"): ("dotted", "numpy"),
        ("var", M, "sibling"): ("dotted", "pkg.sub.sibling"), ("var", M, "alias"): ("dotted", "pkg.up.thing"),
        ("var", M, "lax"): ("dotted", "jax.lax")}
    assert _assigned("from . import sibling\nfrom .. import up\n", "pkg.sub", is_package=True) == {
        ("var", "pkg.sub", "sibling"): ("dotted", "pkg.sub.sibling"), ("var", "pkg.sub", "up"): ("dotted", "pkg.up")}
    assert _assigned("from .. import up\n", "pkg.sub", is_package=False) == {}  # above the root
    assert _assigned("from . import x\n", "top") == {}
    assert _assigned("from .. import x\n", "pkg.sub", is_package=True) == {("var", "pkg.sub", "x"): ("dotted", "pkg.x")}


def test_an_import_inside_a_function_binds_the_functions_name() -> None:
    found = _summary("def f():\n    from jax import lax\n    return lax.Precision.HIGHEST\n")
    assert found.assigns[-1] == (("var", f"{M}.f", "lax"), ("dotted", "jax.lax"))
    assert found.returns == ((f"{M}.f", ("attr", ("attr", ("var", f"{M}.f", "lax"), "Precision"), "HIGHEST")),)


def test_a_name_imported_in_one_function_is_that_import_in_another() -> None:
    """The imports are one table for the module: `lax` imported in `f` and read in `g` is jax's."""
    found = _summary("def f():\n    from jax import lax\ndef g():\n    return lax\n")
    assert dict(found.returns)[f"{M}.g"] == ("dotted", "jax.lax")


def test_a_module_name_is_its_module_level_import_not_a_function_s() -> None:
    """`import numpy as jnp` in one function does not make the module's `jnp` numpy's elsewhere; in that
    function it is the function's name, bound to numpy."""
    found = _summary("import jax.numpy as jnp\ndef kernel():\n    return jnp.dot\n"
                     "def reference():\n    import numpy as jnp\n    return jnp.dot\n")
    assert dict(found.returns) == {f"{M}.kernel": ("attr", ("dotted", "jax.numpy"), "dot"),
                                   f"{M}.reference": ("attr", ("var", f"{M}.reference", "jnp"), "dot")}


def test_a_module_level_read_between_two_imports_of_a_name_is_the_first() -> None:
    """Module code runs in order: a name read between two imports of it is the first; a function (run
    later) reads the second."""
    found = _summary("from .a import f\nFIRST = f\nfrom .b import f\ndef g():\n    return f\n")
    assert dict(found.assigns)[("var", M, "FIRST")] == ("dotted", "pkg.sub.a.f")
    assert dict(found.returns)[f"{M}.g"] == ("dotted", "pkg.sub.b.f")


def test_star_imports_in_order() -> None:
    assert _summary("from .a import *\nfrom pkg.b import *\nfrom ..... import *\n").star_imports == (
        "pkg.sub.a", "pkg.b")


def test_function_parameters_kinds_and_defaults() -> None:
    found = _summary("""
        import numpy as np
        def f(a, /, b, c=np.x, *rest, d, e=1.5, f="s", **kw):
            pass
        def g(*, only=None):
            pass
    """)
    assert found.functions[f"{M}.f"] == Function((
        ("a", "positional", None), ("b", "positional", None), ("c", "positional", ("attr", ("dotted", "numpy"), "x")),
        ("rest", "*", None), ("d", "keyword", None), ("e", "keyword", ("lit", None)), ("f", "keyword", ("lit", "s")),
        ("kw", "**", None)), None)
    assert found.functions[f"{M}.g"] == Function((("only", "keyword", ("lit", None)),), None)


def test_nested_functions_lambdas_and_defaults_read_in_the_enclosing_scope() -> None:
    found = _summary("""
        def f(c):
            def inner(z=c):
                return lambda q: q
            return inner
        g = lambda: 1
    """)
    inner, lam = f"{M}.f.<locals>.inner", f"{M}.f.<locals>.inner.<lambda1>"
    assert found.functions == {f"{M}.f": Function((("c", "positional", None),)),
                               inner: Function((("z", "positional", ("var", f"{M}.f", "c")),)),
                               lam: Function((("q", "positional", None),)), f"{M}.<lambda2>": Function(())}
    assert found.returns == ((lam, ("var", lam, "q")), (inner, ("def", lam)), (f"{M}.f", ("var", f"{M}.f", "inner")),
                             (f"{M}.<lambda2>", ("lit", 1)))
    assert (("var", f"{M}.f", "inner"), ("def", inner)) in found.assigns
    assert (("var", M, "g"), ("def", f"{M}.<lambda2>")) in found.assigns


def test_decorators_are_calls_applied_innermost_first() -> None:
    found = _summary("@outer\n@other.deco(1)\ndef g():\n    pass\n")
    assert found.calls == (
        Call((2, 1), M, ("attr", ("var", M, "other"), "deco"), ((False, ("lit", 1)),), ()),
        Call((2, 1), M, ("call", 0), ((False, ("def", f"{M}.g")),), ()),
        Call((1, 1), M, ("var", M, "outer"), ((False, ("call", 1)),), ()))
    assert found.assigns == ((("var", M, "g"), ("call", 2)),)


def test_a_class_its_bases_attributes_methods_and_dataclass_fields() -> None:
    found = _summary("""
        import dataclasses
        class K(Base):
            size: int = 128
            name: str
            table = {"a": f, 1: g, **extra}
            def method(self, x):
                return self.size
            @staticmethod
            def s():
                return K
            print(size)

        @dataclasses.dataclass(frozen=True)
        class D:
            block: int = 8
            dtype: str
            other = 3
    """)
    k = found.classes[f"{M}.K"]
    assert k.bases == (("var", M, "Base"),)
    assert k.attributes[:3] == (
        ("size", ("lit", 128)),
        ("table", ("map", (6, 12), (("a", ("var", M, "f")), (1, ("var", M, "g")), (None, ("var", M, "extra"))))),
        ("method", ("def", f"{M}.K.method")))
    assert k.attributes[3][0] == "s" and found.calls[k.attributes[3][1][1]].callee == ("dotted", "builtins.staticmethod")
    assert k.fields is None  # not a dataclass
    assert found.functions[f"{M}.K.method"] == Function((("self", "positional", None), ("x", "positional", None)), f"{M}.K")
    assert found.functions[f"{M}.K.s"].owner == f"{M}.K"
    # A class's names are not a method's: `self.size` is read through `self`, `K` is the module's.
    assert dict(found.returns) == {f"{M}.K.method": ("attr", ("var", f"{M}.K.method", "self"), "size"),
                                   f"{M}.K.s": ("var", M, "K")}
    assert any(call.callee == ("dotted", "builtins.print") and call.scope == M for call in found.calls)
    assert found.classes[f"{M}.D"] == Class((), (("block", ("lit", 8)), ("other", ("lit", 3))),
                                            (("block", ("lit", 8)), ("dtype", None)))
    assert (("var", M, "K"), ("class", f"{M}.K")) in found.assigns and (("var", M, "D"), ("class", f"{M}.D")) in found.assigns


@pytest.mark.parametrize("decorator", ["dataclass", "dataclasses.dataclass", "dataclasses.dataclass(frozen=True)",
                                       "flax.struct.dataclass"])
def test_each_spelling_of_a_dataclass_has_fields(decorator: str) -> None:
    found = _summary(f"@{decorator}\nclass D:\n    x: int\n")
    assert found.classes[f"{M}.D"].fields == (("x", None),)


def test_a_nested_class_and_a_method_of_it_are_qualified_inside_their_function() -> None:
    found = _summary("def make():\n    class Inner:\n        def go(self):\n            return 1\n    return Inner\n")
    assert set(found.classes) == {f"{M}.make.<locals>.Inner"}
    assert f"{M}.make.<locals>.Inner.go" in found.functions
    assert found.returns[-1] == (f"{M}.make", ("var", f"{M}.make", "Inner"))


def test_assignment_targets_names_attributes_items_and_unpacking() -> None:
    found = _summary("""
        x, [y, *z] = f()
        obj.attr = [1, *more]
        box["k"] = box[-1]
        box[i] = 2
        for i in items:
            with ctx() as c:
                v = i if c else None
        n = (m := 3) + 1
        w = [t for t in range(3)]
        p: int
        q: int = 4
        r += 1
    """)
    assert found.assigns == (
        (("var", M, "x"), ("item", ("call", 0), 0)),
        (("var", M, "y"), ("item", ("item", ("call", 0), 1), 0)),
        (("var", M, "z"), ("unknown", "a starred assignment")),
        (("attr", ("var", M, "obj"), "attr"), ("seq", (3, 11), (("lit", 1), ("unknown", "a starred element")))),
        (("item", ("var", M, "box"), "k"), ("item", ("var", M, "box"), -1)),
        (("item", ("var", M, "box"), None), ("lit", 2)),
        (("var", M, "i"), ("item", ("var", M, "items"), None)),
        (("var", M, "c"), ("unknown", "a with statement's value")),
        (("var", M, "v"), ("either", (("var", M, "i"), ("lit", None)))),
        (("var", M, "m"), ("lit", 3)),
        (("var", M, "n"), ("lit", None)),
        (("var", M, "t"), ("item", ("call", 2), None)),
        (("var", M, "w"), ("comp", (10, 4), ("var", M, "t"))),
        (("var", M, "q"), ("lit", 4)),
        (("var", M, "r"), ("lit", 1)))


@pytest.mark.parametrize("augmented", ["KERNELS += [body]", "KERNELS |= TABLE"])
def test_a_container_grown_in_place_is_stored_into_as_well_as_bound(augmented: str) -> None:
    """`KERNELS += [body]` grows the list every name of it sees (another module's too): its elements
    stored at a key not known, besides the name bound; `n += 1` is no container's."""
    found = _summary(f"{augmented}\nn += 1\n")
    value = ("seq", (1, 11), (("var", M, "body"),)) if "[" in augmented else ("var", M, "TABLE")
    assert found.assigns == ((("var", M, "KERNELS"), value), (("item", ("var", M, "KERNELS"), None), ("item", value, None)),
                             (("var", M, "n"), ("lit", 1)))


def test_statements_nested_in_blocks_are_summarised() -> None:
    found = _summary("""
        if flag:
            a = 1
        else:
            b = 2
        while go:
            c = 3
        try:
            d = 4
        except E as error:
            e = 5
        finally:
            f = 6
        match x:
            case 1:
                g = 7
        for i in y:
            pass
        else:
            h = 8
    """)
    assert [target[2] for target, _ in found.assigns] == ["a", "b", "c", "d", "e", "f", "g", "i", "h"]


def test_expressions() -> None:
    found = _summary("""
        a = x or y or None
        b = (1.5, None, True, "s", 3, b"bytes")
        c = {k: 1, "k": 2, 0: 3}
        d = [t for t in s if t]
        e = {t for t in s}
        f = (t for t in s)
        g = {t: t for t in s}
        h = -x
        i = lambda: 0
        j = print(*args)
    """)
    values = dict(found.assigns)
    assert values[("var", M, "a")] == ("either", (("var", M, "x"), ("var", M, "y"), ("lit", None)))
    assert values[("var", M, "b")] == ("seq", (3, 4), (("lit", None), ("lit", None), ("lit", True), ("lit", "s"),
                                                       ("lit", 3), ("lit", None)))
    assert values[("var", M, "c")] == ("map", (4, 4), ((None, ("lit", 1)), ("k", ("lit", 2)), (0, ("lit", 3))))
    # a comprehension: its variable takes what the iterable holds; it holds what its element may be
    assert [values[("var", M, name)] for name in "defg"] == [
        ("comp", (5, 4), ("var", M, "t")), ("comp", (6, 4), ("var", M, "t")), ("comp", (7, 4), ("var", M, "t")),
        ("comp", (8, 4), ("var", M, "t"))]
    assert found.assigns.count((("var", M, "t"), ("item", ("var", M, "s"), None))) == 4
    assert values[("var", M, "h")] == ("lit", None)
    assert values[("var", M, "i")] == ("def", f"{M}.<lambda1>")
    assert found.calls[-1] == Call((11, 4), M, ("dotted", "builtins.print"), ((True, ("var", M, "args")),), ())


def test_calls_made_inside_expressions_the_flow_does_not_follow_are_still_recorded() -> None:
    found = _summary("n = len(a) + f(b)\nk = [h(t) for t in src() if pred(t)]\n")
    assert [call.callee[-1] for call in found.calls] == ["builtins.len", "f", "src", "pred", "h"]


def test_calls_sites_scopes_arguments_and_keywords() -> None:
    found = _summary("""
        def f(x):
            return g(1, *xs, key=x, **opts)
        class C:
            y = h(2)
    """)
    assert found.calls == (
        Call((3, 11), f"{M}.f", ("var", M, "g"), ((False, ("lit", 1)), (True, ("var", M, "xs"))),
             (("key", ("var", f"{M}.f", "x")), (None, ("var", M, "opts")))),
        Call((5, 8), M, ("var", M, "h"), ((False, ("lit", 2)),), ()))


@pytest.mark.parametrize("call, why", [("getattr(obj, name)", "getattr with a computed name"), ("globals()", "globals()"),
                                       ("vars(obj)", "vars()"), ("__import__(name)", "__import__"),
                                       ("eval(text)", "eval"), ("getattr(obj)", "getattr with a computed name")])
def test_dynamic_lookups_are_unknown_values_that_name_themselves(call: str, why: str) -> None:
    found = _summary(f"v = {call}\n")
    assert dict(found.assigns)[("var", M, "v")] == ("unknown", why)
    assert found.calls == ()


def test_getattr_with_a_literal_name_and_a_shadowed_builtin_are_calls() -> None:
    found = _summary("a = getattr(obj, 'known')\ndef f(getattr):\n    return getattr(o, n)\n")
    assert dict(found.assigns)[("var", M, "a")] == ("call", 0)
    assert found.calls[0] == Call((1, 4), M, ("dotted", "builtins.getattr"),
                                  ((False, ("var", M, "obj")), (False, ("lit", "known"))), ())
    assert found.returns == ((f"{M}.f", ("call", 1)),)
    assert found.calls[1].callee == ("var", f"{M}.f", "getattr")


def test_arguments_of_a_dynamic_lookup_are_still_read_for_their_calls() -> None:
    found = _summary("v = getattr(make(), name)\n")
    assert [call.callee for call in found.calls] == [("var", M, "make")]


def test_names_resolve_to_their_scope() -> None:
    """A function's own names and parameters are its; a name it declares global, or only reads, is
    the module's (or an import's, or a builtin's); a class body's names are not its methods'."""
    found = _summary("""
        import numpy as np
        G = 1
        def f(p):
            global G
            G = p
            local = np
            return local, G, len, undefined
        class C:
            k = 1
            def m(self):
                return k
        def outer():
            v = 1
            def inner():
                return v
            return inner
        def shadows(np):
            return np
        def sets_a_new_global():
            global NEW, new_helper
            NEW = 2
            def new_helper():
                pass
        del gone
        try:
            pass
        except E as err:
            pass
    """)
    returns = dict(found.returns)
    assert returns[f"{M}.f"] == ("seq", (8, 11), (("var", f"{M}.f", "local"), ("var", M, "G"), ("dotted", "builtins.len"),
                                                  ("var", M, "undefined")))
    assert (("var", M, "G"), ("var", f"{M}.f", "p")) in found.assigns
    assert (("var", f"{M}.f", "local"), ("dotted", "numpy")) in found.assigns
    assert returns[f"{M}.C.m"] == ("var", M, "k")
    assert returns[f"{M}.outer.<locals>.inner"] == ("var", f"{M}.outer", "v")
    assert returns[f"{M}.shadows"] == ("var", f"{M}.shadows", "np")
    assert (("var", M, "NEW"), ("lit", 2)) in found.assigns  # bound nowhere at module level: still the module's
    assert (("var", M, "new_helper"), ("def", f"{M}.sets_a_new_global.<locals>.new_helper")) in found.assigns


def test_a_name_bound_only_by_del_except_or_a_nested_def_is_the_functions() -> None:
    found = _summary("""
        def f():
            try:
                pass
            except E as err:
                pass
            def g():
                pass
            class H:
                pass
            import os.path
            del gone
            return err, g, H, os, gone, (lambda inside: inside)
    """)
    [(_, value)] = [item for item in found.returns if item[0] == f"{M}.f"]
    assert value[2][:5] == tuple(("var", f"{M}.f", name) for name in ("err", "g", "H", "os", "gone"))


def test_a_lambdas_parameters_and_a_decorators_names_are_not_the_enclosing_functions() -> None:
    found = _summary("def f():\n    g = lambda inside: inside\n    @deco\n    def h():\n        pass\n    return inside, deco\n")
    assert dict(found.returns)[f"{M}.f"] == ("seq", (6, 11), (("var", M, "inside"), ("var", M, "deco")))


def test_subscript_keys() -> None:
    found = _summary("a = t[0]\nb = t['k']\nc = t[-2]\nd = t[i]\ne = t[-i]\nf = t[1.5]\ng = t[-1.5]\nh = t[not 1]\n")
    assert [value[2] for _, value in found.assigns] == [0, "k", -2, None, None, None, None, None]


def test_a_dicts_keys_are_literals_or_none() -> None:
    found = _summary("d = {'a': 1, 2: 2, 1.5: 3, k: 4, -1: 5}\n")
    assert [key for key, _ in found.assigns[0][1][2]] == ["a", 2, None, None, None]


def test_a_module_that_does_not_parse_has_no_summary_and_one_nested_too_deep_says_nothing() -> None:
    assert summarise("def (:\n", M) is None
    assert summarise("x = 1\x00\n", M) is None  # a NUL byte: ValueError
    assert summary_module.summarise_tree(ast.parse("x = 1\n"), M) == ModuleSummary(M, assigns=((("var", M, "x"), ("lit", 1)),))
    # An expression nested deeper than Python's stack (generated code): the module says nothing.
    deep = ast.parse("y = 2\nx = " + "+".join(["f(a)"] * 1500) + "\n")
    assert summary_module.summarise_tree(deep, M) == ModuleSummary(M)


def test_the_summarys_data_round_trips_and_other_data_is_refused() -> None:
    found = _summary("""
        import dataclasses
        from .a import *
        @dataclasses.dataclass
        class D(Base):
            x: int = 1
            def m(self, y=2):
                return g(y, *z, k=1, **w)
    """)
    data = as_data(found)
    assert from_data(data) == found
    assert data[0] == M and data[6] == ("pkg.sub.a",)
    assert data[1] == {q: (f.params, f.owner) for q, f in found.functions.items()} and data[1]
    assert data[2] == {q: (c.bases, c.attributes, c.fields) for q, c in found.classes.items()} and data[2]
    assert data[3] == found.assigns and data[4] == found.returns and data[3] and data[4]
    assert data[5] == tuple((c.site, c.scope, c.callee, c.args, c.keywords) for c in found.calls) and data[5]
    assert from_data(marshal.loads(marshal.dumps(data))) == found  # as the project state keeps it
    for other in (None, (), (1, 2), data[:-1], (M, [], {}, (), (), (), ()), (M, {"f": 1}, {}, (), (), (), ()),
                  (M, {}, {}, (), (), ((1,),), ())):
        with pytest.raises(ValueError, match="not a module summary"):
            from_data(other)


def test_a_negative_int_is_a_literal_and_another_unary_operation_still_records_its_calls() -> None:
    """`-1` is the literal -1 (a position: `operator.setitem(OPTS, -1, PAIR)`); `-mm(a, b)` or `not g(b)`
    computes what the flow does not follow, but the calls in it are still calls (a kernel's
    `o_ref[...] = -mm(...)` calls `mm`)."""
    found = _summary("a = f(-1, -2.5, +3)\nb = -mm(x, y)\nc = not g(body)\n")
    assert found.calls[0].args == ((False, ("lit", -1)), (False, ("lit", None)), (False, ("lit", None)))
    assert [call.callee for call in found.calls[1:]] == [("var", M, "mm"), ("var", M, "g")]
    assert [value for _, value in found.assigns][1:] == [("lit", None), ("lit", None)]
