"""The project index (codemods/analysis/project/), function by function, on small trees in tmp_path.

tests/test_packages.py runs the whole tool over realistic packages; a one-line bug in the index
often leaves those goldens unchanged (another path finds the same kernel, or the bug only loses a
fact no golden needs). These tests ask the index itself and pin exact answers: which functions,
which backends, which role and why, which modules are kernel code, what a name resolves to. Static
analysis only: no jax import, the file runs in a few seconds.
"""

from __future__ import annotations

import ast
import hashlib
import random
import re
import textwrap
from pathlib import Path

import pytest

from codemods.analysis.project import base, modules, scan
from codemods.analysis.names import root_name
from codemods.analysis.kernel_scope import BODY, FACTORY, HELPER, MOSAIC_TPU, TRITON, ModuleFacts, find_kernels
from codemods.analysis.module import ModuleIndex
from codemods.analysis.project import ProjectIndex, Usage, module_name
from codemods.analysis.project.modules import _Module

TPU = frozenset({MOSAIC_TPU})
BOTH = frozenset({MOSAIC_TPU, TRITON})
PALLAS = "from jax.experimental import pallas as pl\n"

# A module of numerics: `mm` and `exp_hi` need a kernel context (a precision, an accuracy), `plain` not.
OPS = """\
import functools
import jax.numpy as jnp
from jax import lax


def mm(a, b):
    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


def plain(a):
    return jnp.dot(a, a)


exp_hi = functools.partial(lax.exp, accuracy=(1e-6, 1e-6))


def body(x_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision="highest")


def make():
    def kernel(x_ref, o_ref):
        o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision="highest")
    return kernel
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(textwrap.dedent(text).encode("utf-8", "surrogateescape"))  # "\udce9": the byte 0xe9


def read_bytes(path: "Path | str") -> bytes:
    """What the index is given to read a file (it names files by their paths as strs)."""
    return Path(path).read_bytes()


def _index(root: Path, files: dict[str, str], **options) -> ProjectIndex:
    """The index of a tree of `files` (relative path -> source) written under `root`."""
    _write(root, files)
    return ProjectIndex(sorted(root.rglob("*.py")), read_bytes, **options)


def _facts(root: Path, files: dict[str, str], module: str = "pkg/ops.py") -> ModuleFacts:
    return _index(root, files).facts(root / module)


def _kernels(facts: ModuleFacts) -> dict[str, tuple]:
    return {name: (backends, why, role) for name, backends, why, role in facts.kernels}


# -- names and paths --

@pytest.mark.parametrize("path, packages, expected", [
    ("src/pkg/sub/mod.py", {"src/pkg", "src/pkg/sub"}, ("pkg.sub.mod", False)),
    ("src/pkg/__init__.py", {"src/pkg"}, ("pkg", True)),
    ("src/pkg/sub/__init__.py", {"src/pkg", "src/pkg/sub"}, ("pkg.sub", True)),
    ("src/pkg/sub/mod.py", {"src/pkg/sub"}, ("sub.mod", False)),  # the chain of packages stops at src/pkg's gap
    ("tools/mod.py", set(), ("mod", False)),
    ("mod.py", {""}, ("mod", False)),  # the current folder has no name: never a package part
    ("./pkg/mod.py", {"pkg"}, ("pkg.mod", False)),  # spelled as the index spells package folders
    ("/pkg/mod.py", {"/pkg", "/"}, ("pkg.mod", False)),  # nor has the root
])
def test_module_name(path: str, packages: set[str], expected: tuple[str, bool]) -> None:
    assert module_name(Path(path), packages) == module_name(path, packages) == expected


@pytest.mark.parametrize("left, right, expected", [
    (Usage(TPU, HELPER), Usage(frozenset({TRITON}), BODY), Usage(BOTH, BODY)),
    (Usage(role=BODY), Usage(role=FACTORY), Usage(role=FACTORY)),
    (Usage(role=FACTORY), Usage(role=HELPER), Usage(role=FACTORY)),
    (Usage(role=HELPER), Usage(role=BODY), Usage(role=BODY)),
    (Usage(), Usage(), Usage()),
    (Usage(plain=True), Usage(), Usage(plain=True)),
    (Usage(), Usage(plain=True), Usage(plain=True)),
    (Usage(why="first"), Usage(why="second"), Usage(why="first")),
    (Usage(), Usage(why="second"), Usage(why="second")),
])
def test_usages_combine(left: Usage, right: Usage, expected: Usage) -> None:
    """A factory is launched whatever else happens to it; a body over a helper; plain anywhere is plain."""
    assert left | right == expected


@pytest.mark.parametrize("module, is_package, name, expected", [
    ("pkg.sub.mod", False, ".x", "pkg.sub.x"),
    ("pkg.sub.mod", False, "..x.y", "pkg.x.y"),
    ("pkg.sub.mod", False, "...x", "x"),
    ("pkg.sub.mod", False, "....x", None),  # above the root
    ("pkg.sub.mod", False, ".", "pkg.sub"),
    ("pkg.sub.mod", False, "..", "pkg"),
    ("pkg.sub.mod", False, "...", None),
    ("pkg.sub", True, ".x", "pkg.sub.x"),  # a package's own dot is itself
    ("pkg.sub", True, "..x", "pkg.x"),
    ("pkg.sub", True, "...x", "x"),
    ("pkg.sub", True, "....x", None),
    ("pkg.sub.mod", False, "abs.name", "abs.name"),
])
def test_relative_names_are_made_absolute(module: str, is_package: bool, name: str, expected) -> None:
    assert _Module(Path("m.py"), module, is_package).absolute(name) == expected


# -- what the index says about a module --

API = """\
import functools
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from pkg import ops, helpers


def kern(x_ref, o_ref):
    o_ref[...] = helpers.helper(x_ref[...])


def go(x):
    pl.pallas_call(ops.body, out_shape=x)(x)
    pl.pallas_call(functools.partial(ops.body), out_shape=x)(x)
    pl.pallas_call(ops.make(), out_shape=x)(x)
    return pl.pallas_call(kern, out_shape=x, compiler_params=pltpu.CompilerParams())(x)
"""
# Called from a kernel in api, two hops from ops: through an alias and an attribute.
HELPERS = """\
from pkg import ops
from pkg.ops import mm as matmul


def helper(x):
    return matmul(x, x) + ops.exp_hi(x)
"""
BASE = {"pkg/__init__.py": "", "pkg/ops.py": OPS}
PACKAGE = {**BASE, "pkg/helpers.py": HELPERS, "pkg/api.py": API}


def test_bodies_factories_and_helpers_of_kernels_in_other_modules(tmp_path: Path) -> None:
    """Each needy name of ops with the backends of the launch that reaches it, its role and why;
    `plain` needs no kernel context and is not reported whoever calls it."""
    index = _index(tmp_path, PACKAGE)
    via_helper = "called from pkg.helpers.helper, which kernels run"
    assert index.facts(tmp_path / "pkg/ops.py") == ModuleFacts((
        ("body", BOTH, "passed to pallas_call in pkg.api", BODY),
        ("exp_hi", TPU, via_helper, HELPER),
        ("make", BOTH, "passed to pallas_call in pkg.api", FACTORY),
        ("mm", TPU, via_helper, HELPER),
    ))
    for module in ("pkg/api.py", "pkg/helpers.py", "pkg/__init__.py"):  # nothing in them needs a context
        assert index.facts(tmp_path / module) == ModuleFacts(), module


def test_a_helper_called_from_a_kernel_body_directly(tmp_path: Path) -> None:
    facts = _facts(tmp_path, {**BASE, "pkg/api.py": PALLAS + textwrap.dedent("""\
        from jax.experimental.pallas import triton as pltriton
        from pkg.ops import mm
        from ... import above_the_root


        def kern(x_ref, o_ref):
            o_ref[...] = mm(x_ref[...], x_ref[...])


        def go(x):
            return pl.pallas_call(kern, out_shape=x, compiler_params=pltriton.CompilerParams())(x)
        """)})
    assert _kernels(facts) == {"mm": (frozenset({TRITON}), "called from a kernel body in pkg.api", HELPER)}
    assert facts.shared == frozenset()


# Where a kernel module's plain code calls `mm`: each is plain XLA code, so `mm` is shared.
@pytest.mark.parametrize("plain_use", [
    "def go(x):\n    return ops.mm(x, x)\n",  # a function no kernel runs
    "VALUE = ops.mm(1, 2)\n",  # module level
    "f = lambda x: ops.mm(x, x)\n",  # a lambda at module level
], ids=["function", "module-level", "lambda"])
def test_a_use_in_a_kernel_modules_plain_code_shares_the_helper(tmp_path: Path, plain_use: str) -> None:
    api = PALLAS + "from pkg import ops\n\n\ndef kern(x_ref, o_ref):\n    o_ref[...] = ops.mm(x_ref[...], 1)\n\n\n" \
        + "def launch(x):\n    return pl.pallas_call(kern, out_shape=x)(x)\n\n\n" + plain_use
    facts = _facts(tmp_path, {**BASE, "pkg/api.py": api})
    (name, backends, _, role), = facts.kernels
    assert (name, backends, role, facts.shared) == ("mm", BOTH, HELPER, {"mm"})


def test_a_helper_bound_by_assignment_in_the_kernel_module(tmp_path: Path) -> None:
    """`mm = ops.mm`: the kernel's `mm` starts from a name bound to the project."""
    api = PALLAS + "from pkg import ops\n\nmm = ops.mm\n\n\ndef kern(x_ref, o_ref):\n    o_ref[...] = mm(x_ref[...], 1)\n" \
        "\n\ndef launch(x):\n    return pl.pallas_call(kern, out_shape=x)(x)\n"
    facts = _facts(tmp_path, {**BASE, "pkg/api.py": api})
    assert _kernels(facts) == {"mm": (BOTH, "called from a kernel body in pkg.api", HELPER)}


@pytest.mark.parametrize("bound, launched", [
    ("chosen = ops.body\n", "chosen"),
    ("chosen = functools.partial(ops.body, scale=2)\n", "chosen"),
    ("chosen = ops.body\nagain = chosen\n", "again"),
    ("a0 = ops.body\n" + "".join(f"a{i + 1} = a{i}\n" for i in range(7)), "a7"),  # eight names: followed
], ids=["alias", "partial", "alias-of-alias", "eight-aliases"])
def test_a_body_bound_to_a_name_before_its_launch(tmp_path: Path, bound: str, launched: str) -> None:
    """`chosen = ops.body`, then `pl.pallas_call(chosen, ...)`: the body runs where the name is launched."""
    api = PALLAS + "import functools\nfrom pkg import ops\n\n" + bound + f"run = pl.pallas_call({launched}, out_shape=None)\n"
    facts = _facts(tmp_path, {**BASE, "pkg/api.py": api})
    assert _kernels(facts)["body"] == (BOTH, "passed to pallas_call in pkg.api", BODY)
    assert facts.shared == frozenset()


@pytest.mark.parametrize("hops", [8, 300])
def test_a_body_bound_to_any_number_of_names_is_followed(tmp_path: Path, hops: int) -> None:
    """The value flow follows every alias (and a cycle of assignments cannot loop it)."""
    chain = "a0 = ops.body\n" + "".join(f"a{i + 1} = a{i}\n" for i in range(hops)) + f"a0 = a{hops}\n"
    api = PALLAS + "from pkg import ops\n\n" + chain + f"run = pl.pallas_call(a{hops}, out_shape=None)\n"
    assert _kernels(_facts(tmp_path, {**BASE, "pkg/api.py": api}))["body"] == (BOTH, "passed to pallas_call in pkg.api", BODY)


@pytest.mark.parametrize("plain_use, shared", [("", frozenset()), ("VALUE = chosen(1, 2)\n", {"mm"})])
def test_a_helper_bound_to_a_name_is_used_where_the_name_is(tmp_path: Path, plain_use: str, shared) -> None:
    """`chosen = ops.mm` at module level is no plain use of `mm`: the uses of `chosen` are."""
    api = PALLAS + "from pkg import ops\n\nchosen = ops.mm\n" + plain_use \
        + "\n\ndef kern(x_ref, o_ref):\n    o_ref[...] = chosen(x_ref[...], 1)\n\n\nrun = pl.pallas_call(kern, out_shape=None)\n"
    facts = _facts(tmp_path, {**BASE, "pkg/api.py": api})
    assert (_kernels(facts), facts.shared) == ({"mm": (BOTH, "called from a kernel body in pkg.api", HELPER)}, shared)


def test_a_helper_nested_in_a_function_kernels_run(tmp_path: Path) -> None:
    """The use sits in `inner`, within `helper`: `helper` is the module's function kernels run."""
    helpers = "from pkg import ops\n\n\ndef helper(x):\n    def inner(y):\n        return ops.mm(y, y)\n    return inner(x)\n"
    facts = _facts(tmp_path, {**PACKAGE, "pkg/helpers.py": helpers})
    assert _kernels(facts)["mm"] == (TPU, "called from pkg.helpers.helper, which kernels run", HELPER)
    assert facts.shared == frozenset()


def test_a_helper_of_a_helper_that_plain_code_also_calls_is_shared(tmp_path: Path) -> None:
    helpers = HELPERS + "\n\ndef reference(x):\n    return helper(x)\n"
    facts = _facts(tmp_path, {**PACKAGE, "pkg/helpers.py": helpers})
    assert {name for name, *_ in facts.kernels} == {"mm", "exp_hi", "body", "make"}
    assert facts.shared == {"mm", "exp_hi"}


def test_a_helper_of_a_function_no_kernel_runs_is_plain_code(tmp_path: Path) -> None:
    """helpers.helper lives in kernel code (api imports it) but no kernel calls it."""
    api = API.replace("helpers.helper(x_ref[...])", "x_ref[...]")
    facts = _facts(tmp_path, {**PACKAGE, "pkg/api.py": api})
    assert _kernels(facts) == {"body": (BOTH, "passed to pallas_call in pkg.api", BODY),
                               "make": (BOTH, "passed to pallas_call in pkg.api", FACTORY)}
    assert facts.shared == {"mm", "exp_hi"}


# -- plain code outside kernel modules (read from the import lines and the bare tree) --

@pytest.mark.parametrize("reference, shared", [
    ("from pkg.ops import mm\n\n\ndef ref(a):\n    return mm(a, a)\n", True),
    ("from pkg import mm\n\n\ndef ref(a):\n    return mm(a, a)\n", True),  # re-exported by the package
    ("from pkg.ops import mm as m2\n\n\ndef ref(a):\n    return m2(a, a)\n", True),
    ("from .ops import mm\n\n\ndef ref(a):\n    return mm(a, a)\n", True),
    ("import pkg.ops\n\n\ndef ref(a):\n    return pkg.ops.mm(a, a)\n", True),
    ("from pkg import ops as o\n\n\ndef ref(a):\n    return o.mm(a, a)\n", True),
    ("from pkg import ops\n\nops.mm = None\n", False),  # a store is no use
    ("from pkg import other\n\n\ndef ref(a):\n    return other.mm(a, a)\n", False),  # another module's mm
    ("from pkg import ops\n\n\ndef mm(a):\n    return a\n\n\nmm(1)\n", False),  # its own mm
    ("from pkg import ops\n\n\ndef ref(a):\n    return ops.mmx(a)  # mm\n", False),
], ids=["from-import", "reexported", "as", "relative", "import-dotted", "module-as", "store", "other-module", "own-def", "other-name"])
def test_plain_code_elsewhere_shares_the_helper(tmp_path: Path, reference: str, shared: bool) -> None:
    # a_reference.py sorts before the kernel modules: it is met first, and the search goes on after it.
    files = {**PACKAGE, "pkg/__init__.py": "from .ops import mm\n", "pkg/other.py": "def mm(a, b):\n    return a\n",
             "pkg/a_reference.py": reference}
    facts = _facts(tmp_path, files)
    assert facts.shared == ({"mm"} if shared else set())
    assert _kernels(facts)["mm"] == (TPU, "called from pkg.helpers.helper, which kernels run", HELPER)


@pytest.mark.parametrize("broken", [
    "from pkg.ops import mm\ndef (:\n    mm(1, 2)\n",  # plain code
    PALLAS + "from pkg import ops\ndef (:\n    ops.mm(1, 2)\n",  # kernel code, met before api and helpers
])
def test_a_module_that_does_not_parse_adds_nothing(tmp_path: Path, broken: str) -> None:
    index = _index(tmp_path, {**PACKAGE, "pkg/a_broken.py": broken})
    assert index.facts(tmp_path / "pkg/a_broken.py") == ModuleFacts()
    facts = index.facts(tmp_path / "pkg/ops.py")
    assert _kernels(facts)["mm"] == (TPU, "called from pkg.helpers.helper, which kernels run", HELPER)
    assert facts.shared == frozenset()


def test_each_module_is_parsed_at_most_once(tmp_path: Path, monkeypatch) -> None:
    """One parse per module whatever the search asks of it, and one try for a module that does not parse."""
    files = {**PACKAGE, "pkg/a_broken.py": PALLAS + "from pkg import ops\ndef (:\n    ops.mm(1, 2)\n",
             "pkg/reference.py": "from pkg.ops import mm\n\n\ndef ref(a):\n    return mm(a, a)\n"}
    index = _index(tmp_path, files)
    parse, parsed = ast.parse, []
    monkeypatch.setattr(ast, "parse", lambda source, *a, **k: parsed.append(source) or parse(source, *a, **k))
    for path in sorted(tmp_path.rglob("*.py")):
        index.facts(path)
    # (by text: two empty `__init__.py` files are two modules with one text)
    whole = [source for source in parsed if source.strip() and source in {textwrap.dedent(text) for text in files.values()}]
    assert sorted(whole) == sorted(set(whole)) and len(whole) >= 4, whole


@pytest.mark.parametrize("use, shared", [("x_ref[...]", set()), ("", {"mm", "exp_hi"})])
def test_a_helper_its_own_module_names(tmp_path: Path, use: str, shared: set) -> None:
    """helpers.helper, run by api's kernel, beside a kernel of helpers' own that does not call it, or
    called by helpers' plain code (then what it calls is shared)."""
    local = f"def local(x_ref, o_ref):\n    o_ref[...] = {use}\n\n\nrun = pl.pallas_call(local, out_shape=1)\n" \
        if use else "VALUE = helper(1)\n"
    facts = _facts(tmp_path, {**PACKAGE, "pkg/helpers.py": PALLAS + HELPERS + "\n\n" + local})
    assert _kernels(facts)["mm"] == (TPU, "called from pkg.helpers.helper, which kernels run", HELPER)
    assert facts.shared == shared


def test_helpers_calling_each_other_across_modules(tmp_path: Path) -> None:
    """helpers.helper calls cyc.g, which calls helpers.helper: the cycle adds nothing and ends."""
    helpers = HELPERS.replace("from pkg import ops", "from pkg import ops, cyc").replace("ops.exp_hi(x)", "cyc.g(x)")
    files = {**PACKAGE, "pkg/helpers.py": helpers,
             "pkg/cyc.py": "from pkg import helpers\n\n\ndef g(x):\n    return helpers.helper(x)\n"}
    facts = _facts(tmp_path, files)
    assert _kernels(facts)["mm"] == (TPU, "called from pkg.helpers.helper, which kernels run", HELPER)


def test_an_import_that_may_bind_above_the_root(tmp_path: Path) -> None:
    """`ops` is the package's module or a name above the root: the first is followed, the second ignored."""
    api = PALLAS + "try:\n    from . import ops\nexcept ImportError:\n    from .... import ops\n\n\n" \
        "def kern(x_ref, o_ref):\n    o_ref[...] = ops.mm(x_ref[...], 1)\n\n\nrun = pl.pallas_call(kern, out_shape=1)\n"
    facts = _facts(tmp_path, {**BASE, "pkg/api.py": api})
    assert _kernels(facts) == {"mm": (BOTH, "called from a kernel body in pkg.api", HELPER)}


def test_a_kernels_module_that_does_not_parse_has_no_facts(tmp_path: Path) -> None:
    facts = _facts(tmp_path, {**PACKAGE, "pkg/ops.py": OPS + "\ndef (:\n"})
    assert facts == ModuleFacts()


# -- launch helpers defined in another module --

LAUNCH = """\
from jax.experimental import pallas as pl


def run(body, x):
    return pl.pallas_call(body, out_shape=x)(x)


def run_kw(x, *, kernel):
    return pl.pallas_call(kernel, out_shape=x)(x)


def outer(x):
    def nested(body):
        return pl.pallas_call(body, out_shape=x)(x)
    return nested
"""


def test_a_body_passed_to_a_launch_helper_of_another_module(tmp_path: Path) -> None:
    """The launching module's facts carry the helpers it imports (top-level defs, and a def that
    returns a nested one launching its first parameter: `outer(x)(body)`, configured first), positional
    or keyword; the body passed to one is a body for the helper's backends."""
    api = """\
        from pkg.launch import run, run_kw, outer
        from pkg import ops
        import jax.numpy as jnp
        from jax.experimental import pallas as pl


        def go(x):
            run(ops.body, x)
            return run_kw(x, kernel=ops.make())


        def needy(a):
            return jnp.dot(a, a, precision="highest")
        """
    index = _index(tmp_path, {**PACKAGE, "pkg/launch.py": LAUNCH, "pkg/api.py": api})
    assert _kernels(index.facts(tmp_path / "pkg/ops.py")) == {
        "body": (BOTH, "passed to run in pkg.api", BODY),
        "make": (BOTH, "passed to run_kw in pkg.api", FACTORY),
    }
    assert index.facts(tmp_path / "pkg/api.py").launchers == (
        ("pkg.launch.outer", None, "", BOTH), ("pkg.launch.run", 0, "body", BOTH),
        ("pkg.launch.run_kw", None, "kernel", BOTH))


def test_only_a_module_another_imports_is_analysed_for_the_launchers_it_defines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Kernel land asks each module that says pallas what it defines to launch with, for the modules
    that never say it: only one whose name another module's imports say can lend one. A script that
    defines the same launcher and that nothing imports (a benchmark, a test's kernel) is not analysed."""
    uses = "from pkg.launch import run\nfrom pkg import ops\n\n\ndef go(x):\n    return run(ops.body, x)\n"
    index = _index(tmp_path, {**BASE, "pkg/launch.py": LAUNCH, "pkg/uses.py": uses, "scripts/bench_launch.py": LAUNCH})
    analysed = []
    find = ProjectIndex._find_launch_helpers
    monkeypatch.setattr(ProjectIndex, "_find_launch_helpers",
                        lambda self, module: analysed.append(module.name) or find(self, module))
    assert _kernels(index.facts(tmp_path / "pkg/ops.py"))["body"] == (BOTH, "passed to run in pkg.uses", BODY)
    assert "pkg.launch" in analysed and not [name for name in analysed if name.endswith("bench_launch")]


def test_a_module_that_imports_no_project_module_imports_no_launchers(tmp_path: Path) -> None:
    files = {**PACKAGE, "pkg/launch.py": LAUNCH,
             "pkg/solo.py": PALLAS + "import jax.numpy as jnp\n\n\ndef needy(x_ref):\n    return jnp.dot(x_ref, x_ref, precision='highest')\n"}
    index = _index(tmp_path, files)
    assert index.facts(tmp_path / "pkg/solo.py") == ModuleFacts()
    assert index._imported_launchers(index._modules["pkg.solo"]) == ()


@pytest.mark.parametrize("passed", ["kernel=body", "functools.partial(body, n=1)", "body"])
def test_a_launch_helper_passing_its_body_by_keyword_or_partial(tmp_path: Path, passed: str) -> None:
    launch = f"import functools\n{PALLAS}\n\ndef run(body, x):\n    return pl.pallas_call({passed}, out_shape=x)(x)\n"
    api = PALLAS + "from pkg.launch import run\nfrom pkg import ops\n\n\ndef go(x):\n    return run(ops.body, x)\n"
    facts = _facts(tmp_path, {**BASE, "pkg/launch.py": launch, "pkg/api.py": api})
    assert _kernels(facts) == {"body": (BOTH, "passed to run in pkg.api", BODY)}


# -- re-exports --

@pytest.mark.parametrize("spelling", [
    "import pkg\n\n\ndef kern(x_ref, o_ref):\n    o_ref[...] = pkg.mm(x_ref[...], 1)\n",
    "from pkg import mm\n\n\ndef kern(x_ref, o_ref):\n    o_ref[...] = mm(x_ref[...], 1)\n",
    "from pkg import mm as m\n\n\ndef kern(x_ref, o_ref):\n    o_ref[...] = m(x_ref[...], 1)\n",
])
def test_a_helper_reexported_by_its_package(tmp_path: Path, spelling: str) -> None:
    kern = PALLAS + spelling + "\n\ndef go(x):\n    return pl.pallas_call(kern, out_shape=x)(x)\n"
    files = {"pkg/__init__.py": "from .ops import mm\n", "pkg/ops.py": OPS, "pkg/kern.py": kern}
    assert _kernels(_facts(tmp_path, files)) == {"mm": (BOTH, "called from a kernel body in pkg.kern", HELPER)}


@pytest.mark.parametrize("hops, followed", [(8, True), (9, False)])
def test_reexport_chains_are_followed_eight_steps(tmp_path: Path, hops: int, followed: bool) -> None:
    """r1 re-exports ops.mm, r2 re-exports r1's, ...; the kernel imports it from the last one."""
    files = {"pkg/__init__.py": "", "pkg/ops.py": OPS, "pkg/r1.py": "from pkg.ops import mm\n"}
    for hop in range(2, hops + 1):
        files[f"pkg/r{hop}.py"] = f"from pkg.r{hop - 1} import mm\n"
    files["pkg/kern.py"] = PALLAS + f"from pkg.r{hops} import mm\n\n\ndef kern(x_ref, o_ref):\n    o_ref[...] = mm(x_ref, 1)\n" \
        "\n\ndef go(x):\n    return pl.pallas_call(kern, out_shape=x)(x)\n"
    index = _index(tmp_path, files)
    expected = (index._modules["pkg.ops"], "mm") if followed else None
    assert index._function(f"pkg.r{hops}.mm", modules._MAX_REEXPORTS) == expected
    assert bool(index.facts(tmp_path / "pkg/ops.py").kernels) is followed


def test_a_name_that_reexports_itself_resolves_to_nothing(tmp_path: Path) -> None:
    index = _index(tmp_path, {"pkg/__init__.py": "from pkg import loop\nfrom ... import above\n",
                              "pkg/a.py": "from pkg.b import x\n",
                              "pkg/b.py": "from pkg.a import x\n"})
    assert index._function("pkg.loop", 8) is None and index._function("pkg.above", 8) is None
    assert index._function("pkg.a.x", 8) is None
    assert index._function("pkg.a.missing", 8) is None and index._function("nowhere.x", 8) is None


# -- the referrers: who may use a name --

def _library(root: Path, plain_users: int, word: str = "ops.mm(a, b)") -> ProjectIndex:
    """ops.mm, used in one kernel module and in `plain_users` plain modules that say `word`; ops
    imports the package too, and sorts between the kernel module and the plain ones."""
    files = {"pkg/__init__.py": "", "pkg/consts.py": "", "pkg/ops.py": "from pkg import consts\n" + OPS,
             "pkg/kern.py": PALLAS + "from pkg import ops\n\n\ndef kern(x_ref, o_ref):\n    o_ref[...] = ops.mm(x_ref, 1)\n"
             "\n\ndef go(x):\n    return pl.pallas_call(kern, out_shape=x)(x)\n"}
    for number in range(plain_users):
        files[f"pkg/user_{number}.py"] = f"from pkg import ops\n\n\ndef f(a, b):\n    return {word}\n"
    return _index(root, files)


@pytest.mark.parametrize("plain_users, kernels", [(15, {"mm"}), (16, set())])
def test_a_name_more_than_sixteen_modules_use_is_a_library_api(tmp_path: Path, plain_users: int,
                                                              kernels: set[str]) -> None:
    """16 users are followed; a 17th and the index stops following the name (no facts at all)."""
    index = _library(tmp_path, plain_users)
    facts = index.facts(tmp_path / "pkg/ops.py")
    assert {name for name, *_ in facts.kernels} == kernels and facts.shared == kernels
    assert len(index._referrers(index._modules["pkg.ops"], "mm")) == (16 if kernels else 0)


def test_a_module_that_only_contains_the_word_inside_another_is_no_user(tmp_path: Path) -> None:
    """Twenty modules say `ops.mmx`, not `mm`: the kernel module alone is `mm`'s user."""
    index = _library(tmp_path, 20, word="ops.mmx(a, b)")
    assert [m.name for m in index._referrers(index._modules["pkg.ops"], "mm")] == ["pkg.kern"]
    assert _kernels(index.facts(tmp_path / "pkg/ops.py")) == {
        "mm": (BOTH, "called from a kernel body in pkg.kern", HELPER)}


# -- the index as a whole: files, digest, cache --

def test_a_path_outside_the_project_has_no_facts(tmp_path: Path) -> None:
    index = _index(tmp_path, PACKAGE)
    assert index.facts(tmp_path / "elsewhere.py") == ModuleFacts()


def test_a_relative_path_finds_its_module(tmp_path: Path, monkeypatch) -> None:
    index = _index(tmp_path, PACKAGE)
    monkeypatch.chdir(tmp_path)
    assert index.facts(Path("pkg/ops.py")).kernels == index.facts(tmp_path / "pkg/ops.py").kernels != ()


def test_facts_are_computed_once(tmp_path: Path) -> None:
    index = _index(tmp_path, PACKAGE)
    first = index.facts(tmp_path / "pkg/ops.py")
    assert index.facts(tmp_path / "pkg/ops.py") is first
    assert {name: facts for name, (facts, _) in index.state().facts.items()} == {"pkg.ops": first}


def _recording(files: list[Path], reads: list) -> ProjectIndex:
    """A ProjectIndex that records the files it reads (hashes as a warm run knows them: from the
    file memo, without reading)."""
    def read(path: Path) -> bytes:
        reads.append(Path(path).name)
        return Path(path).read_bytes()
    return ProjectIndex(files, read, content_hash=lambda path: hashlib.sha256(Path(path).read_bytes()).digest())


def test_the_state_of_an_unchanged_project_is_taken_over_without_reading_a_module(tmp_path: Path) -> None:
    _write(tmp_path, PACKAGE)
    files = sorted(tmp_path.rglob("*.py"))
    cold = ProjectIndex(files, read_bytes)
    facts = cold.facts(tmp_path / "pkg/ops.py")
    assert facts.kernels
    reads: list = []
    warm = _recording(files, reads)
    assert warm.restore(cold.state()) == set()
    assert warm.facts(tmp_path / "pkg/ops.py") == facts and reads == []


def test_without_a_state_every_module_is_new(tmp_path: Path) -> None:
    index = _index(tmp_path, PACKAGE)
    assert index.restore(None) == set(index._modules)


def test_the_layout_follows_names_and_paths_not_bytes(tmp_path: Path) -> None:
    def layout(files: dict[str, str], order=sorted, root: Optional[Path] = None) -> str:
        root = root or tmp_path / str(len(list(tmp_path.iterdir())))
        _write(root, files)
        return ProjectIndex(order(root.rglob("*.py")), read_bytes).layout()

    base = layout(PACKAGE, root=tmp_path / "base")
    assert layout(PACKAGE, order=lambda paths: sorted(paths, reverse=True), root=tmp_path / "base") == base
    assert layout({**PACKAGE, "pkg/ops.py": OPS + "\n"}, root=tmp_path / "base") == base  # a byte: the state's job
    assert layout(PACKAGE) != base  # the same modules elsewhere
    renamed = {**PACKAGE, "pkg/ops2.py": OPS}
    del renamed["pkg/ops.py"]
    assert layout(renamed, root=tmp_path / "renamed") != layout(PACKAGE, root=tmp_path / "renamed")  # a name
    assert layout({**PACKAGE, "not-a-module/__init__.py": "", "not-a-module/x.py": "a = 1\n", "pkg/my-mod.py": ""},
                  root=tmp_path / "base") == base  # no module there


def test_two_files_with_one_module_name_the_first_is_kept(tmp_path: Path) -> None:
    _write(tmp_path, {"a/mod.py": "x = 1\n", "b/mod.py": "x = 2\n"})
    index = ProjectIndex([tmp_path / "a/mod.py", tmp_path / "b/mod.py"], read_bytes)
    assert [(m.name, m.path) for m in index._modules.values()] == [("mod", str(tmp_path / "a/mod.py"))]
    assert index.parsed(tmp_path / "b/mod.py", "x = 2\n") is None


def test_an_unreadable_module_reads_as_empty(tmp_path: Path) -> None:
    index = ProjectIndex([tmp_path / "gone.py"], read_bytes)
    assert index.facts(tmp_path / "gone.py") == ModuleFacts() and index._bytes(index._modules["gone"]) == b""


def test_parsed_returns_the_index_only_for_the_same_text(tmp_path: Path) -> None:
    index = _index(tmp_path, PACKAGE)
    ops = tmp_path / "pkg/ops.py"
    assert index.parsed(ops, OPS) is None  # not parsed yet
    index.facts(ops)
    assert index.parsed(ops, OPS).text == OPS
    assert index.parsed(ops, OPS + "\n") is None
    assert index.parsed(tmp_path / "pkg/nothing.py", OPS) is None


def _users(count: int) -> dict[str, str]:
    """`count` kernel modules, each calling ops' needy helper from its own kernel."""
    return {f"pkg/user{number}.py": PALLAS + f"from pkg import ops\n\n\ndef kern{number}(x_ref, o_ref):\n"
            f"    o_ref[...] = ops.mm(x_ref[...], x_ref[...])\n\n\nrun = pl.pallas_call(kern{number}, out_shape=1)\n"
            for number in range(count)}


def test_the_index_keeps_the_parses_of_a_few_modules(tmp_path: Path, monkeypatch) -> None:
    """A bare syntax tree is some 35 times its source: the index keeps those of the TREES_KEPT
    modules read last, and forgets a module's index once it hands it to the file's analysis
    (`parsed`), its tree kept as one read last. Kept, they were most of the main process's peak memory on a large tree (the
    parses of thousands of modules the facts and the link read once: docs/speed.md)."""
    monkeypatch.setattr(base, "TREES_KEPT", 2, raising=False)
    index = _index(tmp_path, {**PACKAGE, **_users(6)})
    assert sum(1 for _ in index.flow_summaries()) >= 6  # each module the link starts from, parsed
    assert sum(module.tree is not None for module in index._modules.values()) == 2
    for path in sorted(tmp_path.rglob("*.py")):
        index.facts(path)
    ops = tmp_path / "pkg/ops.py"
    assert index.parsed(ops, OPS).text == OPS
    assert index._modules["pkg.ops"].index is None  # its tree is one of the TREES_KEPT, read last
    assert sum(module.tree is not None for module in index._modules.values()) <= 2
    assert index._modules["pkg.ops"].tree is not None


def test_a_parse_dropped_and_read_again_changes_no_fact(tmp_path: Path, monkeypatch) -> None:
    """With one tree kept, modules are parsed again as they are read again: the same facts."""
    files = {**PACKAGE, **_users(4)}
    paths = [tmp_path / relative for relative in sorted(files)]
    kept = _index(tmp_path, files)
    everything = [kept.facts(path) for path in paths]
    assert "mm" in _kernels(everything[paths.index(tmp_path / "pkg/ops.py")])
    monkeypatch.setattr(base, "TREES_KEPT", 1, raising=False)
    parse, parsed = ast.parse, []
    monkeypatch.setattr(ast, "parse", lambda source, *a, **k: parsed.append(source) or parse(source, *a, **k))
    dropping = _index(tmp_path, files)
    assert [dropping.facts(path) for path in paths] == everything
    whole = [source for source in parsed if source in {textwrap.dedent(text) for text in files.values()}]
    assert len(whole) > len(set(whole))  # (a module read again after its tree was dropped)


def test_irrelevant_and_unreached_modules_have_no_facts(tmp_path: Path) -> None:
    """`relevant` says no rule has anything to do in it; a module no kernel module imports is never kernel code."""
    index = _index(tmp_path, PACKAGE, relevant=lambda code: b"exp_hi" not in code)
    assert index.facts(tmp_path / "pkg/ops.py") == ModuleFacts()
    # Plain code uses mm, but no kernel module reaches ops: it is never kernel code, nothing to say.
    alone = _index(tmp_path / "alone", {**BASE, "pkg/ref.py": "from pkg.ops import mm\n\nmm(1, 2)\n"})
    assert alone.facts(tmp_path / "alone/pkg/ops.py") == ModuleFacts()


# -- which modules are kernel code --

def test_kernel_land_follows_imports_from_pallas_modules(tmp_path: Path) -> None:
    """api (pallas) imports helpers, which imports ops; `pkg` is entered for what is imported from it,
    and only its own re-exports (`from .ops`), not its other imports (`import other`)."""
    files = {**PACKAGE, "pkg/__init__.py": "import other.far\nfrom .reexported import thing\n",
             "pkg/reexported.py": "thing = 1\n", "other/__init__.py": "", "other/far.py": "",
             "plain.py": "import pkg.ops\n"}
    index = _index(tmp_path, files)
    assert index._kernel_land() == {"pkg.api", "pkg", "pkg.ops", "pkg.helpers", "pkg.reexported"}


@pytest.mark.parametrize("imports, expected", [
    ("import pkg.ops\n", {"pkg.ops"}),
    ("import pkg.ops, pkg.missing, numpy\n", {"pkg.ops"}),
    ("from pkg import ops, helpers\n", {"pkg", "pkg.ops", "pkg.helpers"}),
    ("from pkg import mm\n", {"pkg", "pkg.ops"}),  # a name the package re-exports: its module
    ("from pkg import nothing\n", {"pkg"}),
    ("from .ops import mm\n", {"pkg.ops"}),
    ("from . import ops\n", {"pkg", "pkg.ops"}),
    ("from .. import above\n", set()),
    ("from pkg.ops import mm\n", {"pkg.ops"}),  # a module's name, not a package's: not looked into
    ("from numpy import dot\n", set()),
    # A docstring's line reads as an import line: the others are parsed one by one, every one kept.
    ('"""\nfrom here on, words\n"""\nfrom pkg import ops\nimport pkg.helpers\n', {"pkg", "pkg.ops", "pkg.helpers"}),
    ("from pkg import ops  # caf\udce9\n", {"pkg", "pkg.ops"}),  # a byte that is not UTF-8 in an import line
])
def test_the_project_modules_import_lines_name(tmp_path: Path, imports: str, expected: set[str]) -> None:
    files = {"pkg/__init__.py": "from .ops import mm\n", "pkg/ops.py": OPS, "pkg/helpers.py": "",
             "pkg/kern.py": imports}
    index = _index(tmp_path, files)
    assert index._imported_names(index._modules["pkg.kern"], shallow=False) == expected


def test_a_module_does_not_name_itself(tmp_path: Path) -> None:
    index = _index(tmp_path, {"pkg/__init__.py": "from . import ops\nfrom pkg import helpers\n",
                              "pkg/ops.py": "", "pkg/helpers.py": ""})
    assert index._imported_names(index._modules["pkg"], shallow=True) == {"pkg.ops", "pkg.helpers"}


@pytest.mark.parametrize("statement, within", [
    ("from . import a", True),
    ("from .sub import a", True),
    ("from pkg import a", True),
    ("from pkg.sub import a", True),
    ("from pkgx import a", False),
    ("from other import a", False),
    ("import pkg.sub", True),
    ("import pkg", True),
    ("import other, pkg", True),
    ("import pkgx", False),
    ("x = 1", False),
])
def test_imports_within_a_package(statement: str, within: bool) -> None:
    assert scan._imports_within(ast.parse(statement).body[0], "pkg") is within


@pytest.mark.parametrize("raw, imports", [
    (b"from . import a\n", True),
    (b"  from .a import b\n", True),
    (b"import pkg\n", True),
    (b"\tfrom pkg.ops import mm\n", True),
    (b"import numpy\nfrom jax import lax\n", False),
    (b"x = 1  # import pkg\n", False),
    (b"import pkgx\n", False),
    (b"", False),
    (b"import numpy\nfrom . import a\n", True),  # on any line
    (b"import numpy\nimport Pkg.sub\n", True),
    (b"from pkg import (\n    a,\n)\n", True),
    (b"import numpy, pkg\n", False),  # the first module decides (a line importing several is rare)
])
def test_whether_a_module_imports_the_project(tmp_path: Path, raw: bytes, imports: bool) -> None:
    index = _index(tmp_path, {"pkg/__init__.py": "", "Pkg/__init__.py": "", "probe.py": raw.decode()})
    assert index._imports_project(index._modules["probe"]) is imports


@pytest.mark.parametrize("source, expected", [
    ("def f(): pass\nasync def g(): pass\n", {"f": "def", "g": "def"}),
    # every name assigned at the top is a value of the module (an alias or a container of bodies too)
    ("a = b = f()\nc = 1\nd: int = f()\ne.x = f()\n", {"a": "def", "b": "def", "c": "def"}),
    ("from . import x\nfrom .. import y as z\n", {"x": ".x", "z": "..y"}),
    ("from .m import x\nfrom pkg.m import y\nfrom star import *\n", {"x": ".m.x", "y": "pkg.m.y"}),
    ("import a.b\nimport c.d as e\nimport f\n", {"a": "a", "e": "c.d", "f": "f"}),
    ("class C: pass\nif x:\n    def g(): pass\n", {"C": "def"}),
    ("g = f() if c else h\nk = h if c else (h if d else f())\nm = h if c else h\nn = h if f() else h\n",
     {"g": "def", "k": "def", "m": "def", "n": "def"}),
])
def test_what_a_module_binds_at_its_top_level(tmp_path: Path, source: str, expected: dict) -> None:
    index = _index(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": source})
    assert index._top_level(index._modules["pkg.m"]) == expected


# -- which names need a kernel context --

NEEDY = """\
import functools
import jax.numpy as jnp
from jax import lax


def plain(x):
    return x


def hi(a, b):
    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


def passes_on(a, precision):
    return jnp.dot(a, a, precision=precision)


def unpacked(a, opts):
    return jnp.dot(a, a, **opts)


def unpacks_a_constant(a):
    return jnp.dot(a, a, **OPTIONS)


class Model:
    def __call__(self, a):
        return jnp.dot(a, a, precision="highest")


hi_dot = functools.partial(jnp.dot, precision="highest")
a = b = functools.partial(jnp.dot, precision="highest")
annotated: object = functools.partial(jnp.dot, precision="highest")
plain_value = functools.partial(jnp.dot)
guarded = functools.partial(jnp.dot, precision="highest") if NEW else jnp.dot
nested_guard = jnp.dot if OLD else (jnp.matmul if NEW else functools.partial(jnp.dot, precision="highest"))
plain_guard = jnp.dot if functools.partial(jnp.dot, precision="highest") else jnp.matmul
mentions = "precision='highest'"


async def later(a):
    return jnp.dot(a, a, precision="highest")"""


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_the_needy_names_of_a_module(tmp_path: Path, newline: str) -> None:
    """Top-level defs, single-name values and classes whose attributes (not methods: `Model`) write
    a precision or pass one on from their parameters (a value or a class member may be launched from
    another module, a helper called from one); the last statement has no newline after it."""
    (tmp_path / "m.py").write_bytes(NEEDY.replace("\n", newline).encode())
    index = ProjectIndex([tmp_path / "m.py"], read_bytes)
    assert index._needy_names(index._modules["m"]) == ["hi", "passes_on", "unpacked", "unpacks_a_constant", "hi_dot",
                                                       "guarded", "nested_guard", "plain_guard", "later"]


def test_a_needy_def_on_the_first_line(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def hi(a):\n    return jnp.dot(a, a, precision=HIGHEST)\n\n\nlast = 1\n")
    index = ProjectIndex([tmp_path / "m.py"], read_bytes)
    assert index._needy_names(index._modules["m"]) == ["hi"]


def test_a_module_without_a_hint_needs_nothing(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("import jax.numpy as jnp\n\n\ndef f(a):\n    return jnp.dot(a, a)\n")
    index = ProjectIndex([tmp_path / "m.py"], read_bytes)
    assert index._needy_names(index._modules["m"]) == []


def _call(source: str) -> ast.Call:
    return ast.parse(source).body[0].value  # type: ignore[attr-defined]


@pytest.mark.parametrize("source, fails", [
    ("jnp.dot(a, b, precision=HIGHEST)", True),
    ("jnp.dot(a, b, precision=None)", False),
    ("jnp.dot(a, b, precision=p)", True),  # passed on from the function's parameter: its callers' value
    ("jnp.dot(a, b, precision=canon(p))", True),  # passed on from the function's parameter: its callers' value
    ("lax.exp(x, accuracy=tol)", True),
    ("anything(x, precision='highest')", True),
    ("nn.lstm(x)", True),
    ("lstm(x)", True),
    ("jnp.dot(*args)", True),
    ("jnp.matmul(*args)", False),  # takes no positional precision
    ("jnp.matmul(a, b, **opts)", True),
    ("jnp.matmul(a, b, **None)", False),
    ("lax.dot_general(a, b, dims, HIGHEST)", True),
    ("lax.dot_general(a, b, dims, None)", False),
    ("lax.dot_general(a, b, dims)", False),
    ("lax.dot_general(a, b, dims, p)", True),  # passed on from the function's parameter: its callers' value
    ("lax.dot_general(a, b, dims, None, HIGHEST)", False),  # its fourth argument is the precision
    ("functools.partial(lax.dot_general, a, b, dims, HIGHEST)", True),
    ("partial(lax.dot_general, a, b, dims)", False),
    ("partial(lax.dot_general, a, b, dims, None)", False),  # the partial's own first argument shifts it
    ("partial(jnp.dot, **opts)", True),
    ("partial()", False),
    ("jnp.dot(a, b, c, d, e, HIGHEST)", True),
    ("other(a, b, c, d, e, HIGHEST)", False),
    ("other(*args, **kwargs)", False),
    ("partial(body, p=(P.DEFAULT, P.HIGHEST))", True),  # a pair of members handed on under any name
    ("run(x, [HIGH, HIGHEST])", True),
    ("run(x, (P.DEFAULT, 'float32'))", False),  # not two members
    ("run(x, (P.DEFAULT, P.HIGH, P.HIGHEST))", False),
])
def test_which_calls_may_fail_in_a_kernel(source: str, fails: bool) -> None:
    assert scan._may_fail_in_a_kernel(_call(source)) is fails


@pytest.mark.parametrize("code, fails", [
    (b"jnp.dot(a, b, precision=HIGHEST)", True),
    (b"f(a, precision=None)", False),
    (b"f(precision=precision)", True),  # a helper passing on its caller's value: see _may_fail_in_a_kernel
    (b"jnp.dot(a, b, precision=precision)", True),
    (b"f(accuracy=accuracy)", True),
    (b"lax.exp(x, accuracy=tol)", True),
    (b"nn.lstm(x)", True),
    (b"jnp.matmul(a, b, **opts)", True),
    (b"jnp.matmul(*args)", True),
    (b"functools.partial(jnp.dot, **opts)", True),
    (b"jnp.matmul(a, b)", False),
    (b"lax.dot_general(a, b, dims, lax.Precision.HIGHEST)", True),
    (b"lax.dot_general(a, b, dims)", True),  # an op taking it positionally: the parse counts its arguments
    (b"HIGHEST = 1", False),
    # Each substring the patterns are guarded by, alone:
    (b"f(accuracy=tol)", True),
    (b"lax.conv(x, w, s, pad, Precision.HIGH)", True),
    (b"lax.batch_matmul(a, b, 'highest')", True),
    (b"lax.batch_matmul(a, b)", True),
    (b"lax.dot_general(x, w, dims, p)", True),  # a helper passing its caller's precision on by position
    (b"jnp.dot(a, b, c, d, e, 'bfloat16')", True),
    (b"jnp.dot(a, b, c, d, e, jnp.float32)", True),
    (b"jnp.exp(\n  *xs)", True),
    (b"Runner(partial(body, p=(P.DEFAULT, P.HIGHEST)))", True),
    (b"f(p=(DEFAULT,DEFAULT))", True),
    (b"LEVELS = (P.DEFAULT,)", False),
])
def test_which_bytes_may_fail_in_a_kernel(code: bytes, fails: bool) -> None:
    assert scan._may_fail_bytes(code) is fails


def test_hint_offsets_are_every_match_start_sorted() -> None:
    raw = b"x = 1\nlax.dot_general(a, precision=P)\njnp.dot(*xs)\n"
    # dot_general( at 10, precision= at 25, dot(*xs) at 42 for both patterns
    assert scan._hint_offsets(raw) == [10, 25, 42, 42]
    raw = b"f(accuracy=t)\nnn.lstm(x)\nlax.batch_matmul(a, b)\nf(*a)\njnp.exp(*a)\nconv(x)\n"
    # accuracy= at 2, lstm at 17, batch_matmul( at 29, exp(*a) at 58, conv( at 66 (the pattern, not the test)
    assert scan._hint_offsets(raw) == [2, 17, 29, 58, 66]


@pytest.mark.parametrize("op", sorted(scan._OP_NAMES))
def test_an_unpacked_call_of_each_op_is_found_whole_words_only(op: str) -> None:
    """`_UNPACKED` opens with a lookahead for the first bytes of its ops (docs/speed.md: the pattern
    is then tried only where one is): a call of every op, or a partial of it, that unpacks
    arguments is found where it starts, and never the op as the tail of another word."""
    raw = f"y = {op}(a, *xs)\nz = partial(jnp.{op}, **kw)\nw = my{op}(*xs)\nv = x.{op}(b, f(c), **o)\n".encode()
    starts = [match.start() for match in scan._UNPACKED.finditer(raw)]
    assert starts == [4, raw.index(b"partial"), raw.index(f".{op}(b".encode()) + 1]


# -- small syntax helpers --

@pytest.mark.parametrize("raw, defines", [
    (b"from jax.experimental import pallas as pl\ndef run(body):\n    return pl.pallas_call(body)\n", True),
    (b"from jax.experimental import pallas as pl\ndef run(x, *, kernel):\n    return pl.kernel(kernel, mesh=m)\n", True),
    (b"from jax.experimental import pallas as pl\ndef run(x):\n    return pl.pallas_call(body)\n", False),
    (b"def run(body):\n    return pallas_call(body)\n", True),
    (b"def run(body):\n    return pl.pallas_call(body)\n".replace(b"pallas", b"Pallas"), False),
    (b"import pallas\ndef run(bodies):\n    return pallas_call(body)\n", False),  # `bodies` is not `body`
])
def test_may_define_launch_helpers(raw: bytes, defines: bool) -> None:
    assert scan._may_define_launch_helpers(raw) is defines


@pytest.mark.parametrize("source, named, role", [
    ("kernels.body", "kernels.body", BODY),
    ("functools.partial(kernels.body, n=1)", "kernels.body", BODY),
    ("functools.partial(functools.partial(kernels.body, n=1), m=2)", "kernels.body", BODY),
    ("kernels.make(n=1)", "kernels.make", FACTORY),
    ("made", "kernels.make", FACTORY),
    ("picked", "kernels.body", BODY),
])
def test_what_a_launch_runs_from_another_module(source: str, named: str, role: str) -> None:
    """The mention of another module's value a launch runs, and whether it runs it or what it returns."""
    module = ModuleIndex.parse("import functools\nfrom jax.experimental import pallas as pl\nimport kernels\n"
                               "made = kernels.make(1)\nfor picked, _ in zip((kernels.body,), (1,)):\n    pass\n"
                               f"run = pl.pallas_call({source})\n")
    ((mention, _, _, found),) = find_kernels(module).foreign_bodies
    assert (ast.unparse(mention), found) == (named, role)


@pytest.mark.parametrize("source, terminal", [("jnp.dot", "dot"), ("dot", "dot"), ("f()", ""), ("x[0]", "")])
def test_terminal_names(source: str, terminal: str) -> None:
    assert scan._terminal_name(ast.parse(source, mode="eval").body) == terminal


@pytest.mark.parametrize("source, last, root", [
    ("a.b.c", "c", "a"),
    ("a", "a", "a"),
    ("f().b", "b", None),
    ("1", None, None),
])
def test_last_and_root_names(source: str, last, root) -> None:
    node = ast.parse(source, mode="eval").body
    assert (scan._last_name(node), getattr(root_name(node), "id", None)) == (last, root)



@pytest.mark.parametrize("word", [b"pkg", b"ops", b"api", b"mm", b"pallas", b"nothing"])
def test_the_first_lookup_of_a_word_answers_for_that_word(tmp_path: Path, word: bytes) -> None:
    """The word table is built by the first lookup, whichever word it asks: that lookup answers for
    its own word (a loop variable once shadowed it, so the first answer was another word's, and
    which one depended on the hash seed)."""
    index = _index(tmp_path, {**PACKAGE, "pkg/user.py": "import numpy\nfrom pkg import ops\nfrom pkg.api import mm\n"})
    expected = [name for name, module in index._modules.items()
                if index._imports_project(module) and word in index._import_words(module)]
    assert index._importers_of(word) == expected
    assert ProjectIndex(sorted(tmp_path.rglob("*.py")), read_bytes)._importers_of(word) == expected


RENAMED_OPS = "import jax.numpy as jnp\nfrom jax import lax\n\n\ndef fused_mm(a, b):\n" \
              "    return jnp.dot(a, b, precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))\n"


@pytest.mark.parametrize("use, shared", [
    ("import mylib\n\n\ndef body(x_ref, o_ref):\n    o_ref[...] = mylib.mm(x_ref[...], 1)\n", False),
    ("from mylib import mm as m\n\n\ndef body(x_ref, o_ref):\n    o_ref[...] = m(x_ref[...], 1)\n", False),
    ("import mylib\n\n\ndef body(x_ref, o_ref):\n    o_ref[...] = mylib.mm(x_ref[...], 1)\n\n\n"
     "def plain(x):\n    return mylib.mm(x, x)\n", True),
])
def test_a_helper_the_package_reexports_under_another_name(tmp_path: Path, use: str, shared: bool) -> None:
    """`from mylib.ops import fused_mm as mm` in the package: its kernel users say `mm`, never
    `fused_mm` (a user's project missed this: nothing was reported, and the kernel failed)."""
    index = _index(tmp_path, {
        "mylib/__init__.py": "from mylib.ops import fused_mm as mm\n",
        "mylib/ops.py": RENAMED_OPS,
        "mylib/kern.py": PALLAS + use + "\n\ndef go(x):\n    return pl.pallas_call(body, out_shape=x)(x)\n",
        "mylib/tool.py": "from mylib import mm\n\n\ndef summary(x):\n    return x\n",  # imports it, never calls it
    })
    facts = index.facts(tmp_path / "mylib/ops.py")
    assert [(name, backends, role) for name, backends, _, role in facts.kernels] == [("fused_mm", BOTH, HELPER)]
    assert facts.shared == ({"fused_mm"} if shared else set())


# -- the import-line scan --

# What an import line was before `_import_lines` searched from newlines: `^` under MULTILINE.
_IMPORT_LINE_ANCHORED = re.compile(scan._IMPORT_STATEMENT.join((rb"^", rb"")), re.MULTILINE)
_IMPORT_LINE_PIECES = [b"import a", b"from b import c", b"from . import (d,\n e)", b"  import f.g as h",
                       b"\timport i", b"from j \\\n import k", b"x = 1", b"# import l", b"'''from m'''", b"",
                       b"from n import (\n import o)", b"from p import (q", b"importer = 1", b"\r", b" "]


@pytest.mark.parametrize("seed", range(200))
def test_import_lines_are_the_lines_that_start_an_import(seed: int) -> None:
    """Random modules of import lines, look-alikes, continuations and mixed line ends: the scan
    from newlines finds exactly what `^` under MULTILINE found, first line included."""
    chooser = random.Random(seed)
    raw = b"".join(chooser.choice(_IMPORT_LINE_PIECES) + chooser.choice([b"\n", b"\r\n", b""])
                   for _ in range(chooser.randrange(12)))
    assert scan._import_lines(raw) == _IMPORT_LINE_ANCHORED.findall(raw)


# -- the launcher-word test --

_LAUNCHER_PIECES = [b"pl.pallas_call(", b"@plgpu.kernel\n", b"pl.core_map (", b"pltpu.emit_pipeline_with_allocations(",
                    b"kernel", b"kernels(", b"my_kernel(", b"pallas_call", b"core_mapping(", b"emit_pipe(", b"x = 1",
                    b"\n", b" ", b"(", b"_", b"kernel_", b"# core_map\n"]


@pytest.mark.parametrize("seed", range(200))
def test_a_launcher_word_is_searched_for_only_where_one_of_its_literals_is(seed: int) -> None:
    """Random modules of launcher calls, decorators and look-alikes: the literal test before the
    pattern (`_says_a_launcher`) answers exactly what the pattern alone does."""
    chooser = random.Random(seed)
    raw = b"".join(chooser.choice(_LAUNCHER_PIECES) for _ in range(chooser.randrange(8)))
    assert scan._says_a_launcher(raw) == (scan._LAUNCHER_WORD.search(raw) is not None)


# -- the byte patterns of a call that may fail in a kernel --

# What `_POSITIONAL_OP` and `_MEMBER_PAIR` were before their `\b` moved behind the name (`dot(?<!\wdot)`).
_POSITIONAL_OP_WITH_BOUNDARY = re.compile(rb"(?:dot_general|conv\w*|batch_matmul|\bdot)\s*\(")
_MEMBER_PAIR_WITH_BOUNDARY = re.compile(rb"\b(?:DEFAULT|HIGHEST|HIGH)\s*,\s*[\w.]*\b(?:DEFAULT|HIGHEST|HIGH)\b")
_CALL_PIECES = [b"dot", b"vdot", b"dot_general", b"conv", b"deconv2d", b"batch_matmul", b"_dot", b"jnp.dot", b"(",
                b" ", b",", b"\n", b"DEFAULT", b"HIGH", b"HIGHEST", b"P.", b"xHIGH", b"_DEFAULT", b"1", b"a"]


@pytest.mark.parametrize("seed", range(300))
def test_the_boundary_behind_a_name_matches_what_the_boundary_before_it_did(seed: int) -> None:
    """Random runs of op names, look-alikes and Precision members: each pattern finds the matches,
    where they were, that its `\\b`-first spelling found."""
    chooser = random.Random(seed)
    raw = b"".join(chooser.choice(_CALL_PIECES) for _ in range(chooser.randrange(12)))
    for new, old in ((scan._POSITIONAL_OP, _POSITIONAL_OP_WITH_BOUNDARY),
                     (scan._MEMBER_PAIR, _MEMBER_PAIR_WITH_BOUNDARY)):
        assert [match.span() for match in new.finditer(raw)] == [match.span() for match in old.finditer(raw)]
