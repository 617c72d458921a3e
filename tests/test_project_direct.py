"""The project index's module-level helpers and the parts of `ProjectIndex` that the tree tests of
tests/test_project_index.py reach only through answers another path also gives: asked directly,
with exact answers (issue 35, item 3: the mutation run of codemods/analysis/project.py).
Static analysis only: no jax import."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from codemods.analysis.kernel_scope import NO_FACTS, ModuleFacts
from codemods.analysis.project import ProjectIndex, facts_of, scan
from codemods.analysis.project.scan import _words


def read_bytes(path: "Path | str") -> bytes:
    return Path(path).read_bytes()


def _statement(source: str) -> ast.stmt:
    return ast.parse(textwrap.dedent(source)).body[0]


@pytest.mark.parametrize("source, askable", [
    ("x = 1", True),  # a value
    ("class C:\n    pass", True),
    ("def body(x_ref, o_ref):\n    pass", True),  # takes refs: a kernel body
    ("def make():\n    def kernel(a):\n        return a\n    return kernel", True),  # a factory
    ("def make():\n    def kernel(a):\n        return a\n    return (kernel, 1)", True),
    ("def make():\n    return lambda a: a", True),
    ("def make():\n    return functools.partial(f, a=1)", True),
    # Returns a name that is not a function it defines (`gmres`: runs where it is called).
    ("def solve(a):\n    def step(b):\n        return b\n    out = step(a)\n    return out", False),
    ("def solve(a):\n    return helper(a)", False),
    ("def solve(a):\n    return [a, a]", False),
])
def test_which_statements_another_module_may_launch(source: str, askable: bool) -> None:
    assert scan._askable(_statement(source)) is askable


REACHING = '''\
import functools
import jax.numpy as jnp


def mm(a, b):
    return jnp.dot(a, b, precision="highest")


def body(x_ref, o_ref):
    o_ref[...] = mm(x_ref[...], x_ref[...])


def helper(a):
    return mm(a, a)


@functools.partial(wrap, fn=mm)
def decorated(x_ref, o_ref):
    pass


def via_helper(x_ref, o_ref):
    o_ref[...] = helper(x_ref[...])


def says_it(x_ref):
    return "mm helper"


k = body
BODIES = [via_helper]
a = b = body
unrelated = 1


def make():
    def kernel(x):
        return helper(x)
    return kernel
'''


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_the_names_that_reach_a_needy_one(tmp_path: Path, newline: str) -> None:
    """`_reaching`, through `_needy_names`: the defs and single-name values that name a needy one,
    transitively (`via_helper` through `helper`), in the order found; a decorator's name counts; a
    word in a string does not; a plain helper (`helper`) carries the question but is not asked about;
    `a = b = body` is not a name another module imports; the last statement (`make`, a factory) has
    nothing after it."""
    (tmp_path / "m.py").write_bytes(REACHING.replace("\n", newline).encode())
    index = ProjectIndex([tmp_path / "m.py"], read_bytes)
    assert index._needy_names(index._modules["m"]) == ["mm", "body", "decorated", "via_helper", "k", "BODIES", "make"]


SAYS_PALLAS = "from jax.experimental import pallas as pl\n"


@pytest.mark.parametrize("others, searched", [
    ({}, False),  # a lone file: no other module can say anything of it
    ({"other.py": "x = 1\n"}, True),
    ({"m.py": SAYS_PALLAS + REACHING + "\nimport m\n"}, True),  # it imports itself: its launch helpers are imported ones
])
def test_a_lone_module_is_not_searched(tmp_path: Path, others: dict, searched: bool) -> None:
    """A project of one module that imports none of the project has empty facts, found without
    parsing it for its needy names (a lone file's run: docs/speed.md); any other module, or an
    import of itself, and the search runs."""
    (tmp_path / "m.py").write_text(SAYS_PALLAS + REACHING)  # a kernel module, whose needy names others may launch
    for name, text in others.items():
        (tmp_path / name).write_text(text)
    index = ProjectIndex(sorted(tmp_path.glob("*.py")), read_bytes)
    assert index.facts(tmp_path / "m.py") == ModuleFacts()
    assert (index._modules["m"].needy is not None) is searched


def test_learnt_is_a_bool(tmp_path: Path) -> None:
    """`learnt()` answers False before anything is computed and True after a fact is (a bool, as
    its signature says: the runner keeps the state when it is true)."""
    (tmp_path / "m.py").write_text("x = 1\n")
    index = ProjectIndex([tmp_path / "m.py"], read_bytes)
    assert index.learnt() is False
    index.facts(tmp_path / "m.py")
    assert index.learnt() is True


def test_the_path_of_a_module_is_module_of_backwards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`path_of` answers from the mapping the index holds: each module's absolute path (a notebook's
    too, files given relative to the folder the run is in), None for a name no file of the project has."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    files = [Path("pkg", "__init__.py"), Path("pkg", "m.py"), Path("nb.ipynb")]
    for path in files:
        path.write_text("")
    index = ProjectIndex(files, read_bytes)
    for path in files:
        assert index.path_of(index.module_of(path)) == str(tmp_path / path)
    assert index.module_of(files[1]) == "pkg.m"
    assert index.path_of("pkg.other") is None and index.path_of("m") is None


def test_a_lambda_launch_helper_before_a_def_one(tmp_path: Path) -> None:
    """A launch helper written as a lambda is exported under the name it is bound to, and the defs
    after it are still exported to importers."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "launch.py").write_text(
        "from jax.experimental import pallas as pl\n\n"
        "run_lambda = lambda body, x: pl.pallas_call(body, out_shape=x)(x)\n\n\n"
        "def run(body, x):\n    return pl.pallas_call(body, out_shape=x)(x)\n")
    index = ProjectIndex(sorted(tmp_path.rglob("*.py")), read_bytes)
    assert index._launch_helpers(index._modules["pkg.launch"]) == {
        "pkg.launch.run_lambda": (0, "body", frozenset({"triton", "mosaic_tpu"})),
        "pkg.launch.run": (0, "body", frozenset({"triton", "mosaic_tpu"}))}


def test_a_restore_with_a_changed_module_has_learnt_something(tmp_path: Path) -> None:
    """After `restore`, `learnt()` says whether a module changed since the state was kept: the
    runner keeps a new state only then."""
    (tmp_path / "m.py").write_text("x = 1\n")
    (tmp_path / "n.py").write_text("y = 1\n")
    paths = sorted(tmp_path.rglob("*.py"))
    first = ProjectIndex(paths, read_bytes)
    for path in paths:
        first.facts(path)
    state = first.state()
    same = ProjectIndex(paths, read_bytes)
    assert same.restore(state) == set() and same.learnt() is False
    (tmp_path / "m.py").write_text("x = 2\n")
    edited = ProjectIndex(paths, read_bytes)
    assert edited.restore(state) == {"m"} and edited.learnt() is True


# -- mutation testing, 2026-12-05: the survivors left without a test --

from codemods.analysis.kernel_scope import BODY, HELPER, MOSAIC_TPU, TRITON  # noqa: E402

_BOTH = frozenset({MOSAIC_TPU, TRITON})
_PALLAS = "from jax.experimental import pallas as pl\n"
_OPS = ("import jax.numpy as jnp\nfrom jax import lax\n\n\ndef mm(a, b):\n"
        "    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)\n\n\n"
        "def body(x_ref, o_ref):\n    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=\"highest\")\n")


def _tree(root: Path, files: dict) -> ProjectIndex:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return ProjectIndex(sorted(root.rglob("*.py")), read_bytes)


def _kernels(index: ProjectIndex, path: Path) -> dict:
    return {name: (backends, why, role) for name, backends, why, role in index.facts(path).kernels}


def test_a_module_outside_kernel_land_using_a_helper_by_its_reexported_name_shares_it(tmp_path: Path) -> None:
    """`from mylib.ops import fused_mm as mm` in the package; tool.py (no kernel runs its code)
    calls `mylib.mm`: a plain use of `fused_mm`, which is then shared."""
    index = _tree(tmp_path, {
        "mylib/__init__.py": "from mylib.ops import fused_mm as mm\n",
        "mylib/ops.py": _OPS.replace("def mm(", "def fused_mm("),
        "mylib/kern.py": _PALLAS + "import mylib\n\n\ndef body(x_ref, o_ref):\n    o_ref[...] = mylib.mm(x_ref[...], 1)\n\n\n"
                                   "def go(x):\n    return pl.pallas_call(body, out_shape=x)(x)\n",
        "mylib/tool.py": "import mylib\n\n\ndef summary(x):\n    return mylib.mm(x, x)\n",
    })
    facts = index.facts(tmp_path / "mylib/ops.py")
    assert [(name, role) for name, _, _, role in facts.kernels] == [("fused_mm", HELPER)]
    assert facts.shared == {"fused_mm"}


@pytest.mark.parametrize("hops, expected, shared", [
    (2, {"mm": (_BOTH, "called from a kernel body in pkg.api", HELPER)}, set()),
    # Past MAX_ALIAS_DEPTH (8) names: followed too far, taken for plain code, so shared.
    (12, {}, {"mm"}),
])
def test_a_helper_bound_through_names_is_followed_so_far(tmp_path: Path, hops: int, expected: dict, shared) -> None:
    chain = "a0 = ops.mm\n" + "".join(f"a{i + 1} = a{i}\n" for i in range(hops - 1))
    api = (_PALLAS + "from pkg import ops\n\n" + chain + f"\n\ndef kern(x_ref, o_ref):\n    o_ref[...] = a{hops - 1}(x_ref[...], 1)"
           "\n\n\nrun = pl.pallas_call(kern, out_shape=None)\n")
    index = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": _OPS, "pkg/api.py": api})
    facts = index.facts(tmp_path / "pkg/ops.py")
    assert ({name: value for name, value in _kernels(index, tmp_path / "pkg/ops.py").items() if name == "mm"},
            facts.shared) == (expected, shared)


def test_a_body_a_method_stores_on_self_runs_where_the_instances_member_is_launched(tmp_path: Path) -> None:
    """`self.kernel = ops.body` in `Model.__init__` (pkg.model), `pl.pallas_call(Model().kernel)` in
    pkg.api: body is a kernel body, with why the launch says."""
    index = _tree(tmp_path, {
        "pkg/__init__.py": "", "pkg/ops.py": _OPS,
        "pkg/model.py": "from pkg import ops\n\n\nclass Model:\n    def __init__(self):\n        self.kernel = ops.body\n",
        "pkg/api.py": _PALLAS + "from pkg.model import Model\n\nrun = pl.pallas_call(Model().kernel, out_shape=None)\n",
    })
    assert _kernels(index, tmp_path / "pkg/ops.py") == {"body": (_BOTH, "passed to pallas_call in pkg.api", BODY)}
    assert index.facts(tmp_path / "pkg/ops.py").shared == frozenset()


def test_the_word_table_holds_only_modules_that_import_the_project(tmp_path: Path) -> None:
    """A module importing only libraries (`numpy`) can use no module of the project: not listed."""
    index = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": "import numpy\n", "pkg/api.py": "import numpy\nfrom pkg import ops\n"})
    assert index._importers_of(b"numpy") == ["pkg.api"]
    assert index._importers_of(b"ops") == ["pkg.api"]


_CYCLE = {
    "pkg/__init__.py": "",
    "pkg/ops.py": "import jax.numpy as jnp\nfrom pkg import helpers\n\n\ndef mm(a, b):\n"
                  "    return jnp.dot(helpers.h(a), b, precision='highest')\n",
    "pkg/helpers.py": "import jax.numpy as jnp\nfrom pkg import ops\n\n\ndef h(a):\n"
                      "    return ops.mm(a, jnp.dot(a, a, precision='highest'))\n",
    "pkg/kern.py": _PALLAS + "from pkg import helpers\n\n\ndef kern(x_ref, o_ref):\n    o_ref[...] = helpers.h(x_ref[...])\n\n\n"
                   "run = pl.pallas_call(kern, out_shape=None)\n",
    "pkg/k2.py": "x = 1\n",
}


def test_a_fact_computed_through_a_cycle_is_recomputed_after_an_edit_of_what_the_cycle_read(tmp_path: Path) -> None:
    """ops.mm and helpers.h call each other (a cycle of usages), kern's kernel calls h. The facts
    are kept, ops' first; then k2 starts calling ops.mm: a warm run gives the facts a cold run gives
    (every memo made through the cycle depends on all the fact read, k2's content included)."""
    paths = [tmp_path / name for name in sorted(_CYCLE)]
    cold = _tree(tmp_path, _CYCLE)
    for name in ("ops.py", "helpers.py", "kern.py", "k2.py"):
        cold.facts(tmp_path / "pkg" / name)
    state = cold.state()
    (tmp_path / "pkg/k2.py").write_text("from pkg import ops\n\n\ndef g(x):\n    return ops.mm(x, 1)\n")
    warm, fresh = ProjectIndex(paths, read_bytes), ProjectIndex(paths, read_bytes)
    assert warm.restore(state) == {"pkg.k2"}
    assert [warm.facts(path) for path in paths] == [fresh.facts(path) for path in paths]


# -- session 10's changed functions (the mutation run of session 11, docs/testing.md) --

def test_another_name_for_an_imported_launcher_mid_module_hands_it_on(tmp_path: Path) -> None:
    """`call = tpu_call` with more code after it (`_may_hand_on`'s pattern is MULTILINE): `ops.call`
    launches what it is given, and the body another module passes to it is kernel code."""
    (tmp_path / "pkg").mkdir()
    for name, text in {
        "__init__.py": "",
        "launch.py": "from jax.experimental import pallas as pl\n\n\ndef tpu_call(body, x):\n"
                     "    return pl.pallas_call(body, out_shape=x)(x)\n",
        "ops.py": "from pkg.launch import tpu_call\n\ncall = tpu_call\n\n\ndef other():\n    return 1\n",
        "util.py": "import jax.numpy as jnp\n\n\ndef body(x_ref, o_ref):\n"
                   "    o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=\"highest\")\n",
        "api.py": "from pkg import ops\nfrom pkg.util import body\n\n\ndef run(x):\n    return ops.call(body, x)\n",
    }.items():
        (tmp_path / "pkg" / name).write_text(text)
    index = ProjectIndex(sorted(tmp_path.rglob("*.py")), read_bytes)
    assert index.facts(tmp_path / "pkg" / "util.py").kernels == (
        ("body", frozenset({"mosaic_tpu", "triton"}), "passed to call in pkg.api", "body"),)
    assert index._forwarded_launchers(index._modules["pkg.ops"]) == {
        "pkg.ops.call": (0, "body", frozenset({"mosaic_tpu", "triton"}))}


def test_a_modules_words_are_its_identifiers_and_its_numbers_whole() -> None:
    """What the search across modules asks of a module's bytes: an underscore and digits inside a
    name keep it whole, a number is one word (`0x1f` does not say `x1f`), any other byte (UTF-8 of
    a non-ASCII letter included) separates."""
    code = "def f(x_ref, o2):\n    y = 0x1f + 3j  # café_au name\n".encode()
    assert _words(code) == {b"def", b"f", b"x_ref", b"o2", b"y", b"0x1f", b"3j", b"caf", b"_au", b"name"}


def test_a_module_no_import_statement_can_name_is_not_imported(tmp_path: Path) -> None:
    """`_may_be_imported`: a golden's `case.in.py` is never imported (`import case.in` does not
    parse), though a module says `in` in its import lines and its code; so, in a repository of
    goldens, their launch helpers are not looked for on each run of one file (docs/speed.md).
    Its twin `case.py`, which `user` imports, may be."""
    launcher = SAYS_PALLAS + "\n\ndef run(body):\n    return pl.pallas_call(body)\n"
    (tmp_path / "case.in.py").write_text(launcher)
    (tmp_path / "case.py").write_text(launcher)
    (tmp_path / "user.py").write_text("import os  # used in tests\nimport case\n\nfor _ in []:\n    pass\n")
    index = ProjectIndex(sorted(tmp_path.glob("*.py")), read_bytes)
    assert {name: index._may_be_imported(module) for name, module in index._modules.items()} == \
        {"case": True, "case.in": False, "user": False}


class _CountedBytes(bytes):
    """A module's bytes that count the passes a search makes over them (a substring test, a split into words)."""

    passes = 0

    def __contains__(self, part: object) -> bool:
        type(self).passes += 1
        return super().__contains__(part)  # type: ignore[operator]

    def translate(self, *arguments):  # type: ignore[override]
        type(self).passes += 1
        return super().translate(*arguments)


def test_a_module_asked_about_many_names_is_read_once(tmp_path: Path) -> None:
    """The usage searches ask a module whether it says each of hundreds of names (at --jobs 1,
    where no worker learnt who says which): its words are hashed in one pass over its bytes, not
    searched for each name (docs/speed.md); a hit reads the words themselves once more."""
    (tmp_path / "m.py").write_text("from pkg import ops\n\n\ndef matmul_kernel(x_ref):\n    return ops.act(x_ref)\n")
    index = ProjectIndex([tmp_path / "m.py"], lambda path: _CountedBytes(Path(path).read_bytes()))
    module = index._modules["m"]
    _CountedBytes.passes = 0
    asked = [f"name_{number}" for number in range(50)]
    assert not any(index._says(module, (name,)) for name in asked)
    assert index._says(module, ("act", "name_0"))
    assert _CountedBytes.passes <= 2


def test_a_search_asks_its_names_once_of_all_the_modules_it_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A usage search asks each module that imports a word whether it says a name (174,000 asks of
    some 3,600 modules on the trees at --jobs 1): the names are encoded and looked up in the
    summary's table once per search (`_asked`), not once per module; the answer is `_says`'s."""
    files = {f"m{number}.py": f"from pkg import ops\n\n\ndef f{number}(x):\n    return ops.{'act' if number % 3 else 'other'}(x)\n"
             for number in range(30)}
    files.update({"pkg/__init__.py": "", "pkg/ops.py": "def act(x):\n    return x\n"})
    (tmp_path / "pkg").mkdir()
    for name, code in files.items():
        (tmp_path / name).write_text(code)
    index = ProjectIndex([tmp_path / name for name in files], read_bytes)
    asked = []
    real = ProjectIndex._asked
    monkeypatch.setattr(ProjectIndex, "_asked", lambda self, names: asked.append(names) or real(self, names))
    found = index._importers_saying({b"pkg"}, ("act",))
    assert asked == [("act",)]
    assert [module.name for module in found] == [module.name for module in index._modules.values()
                                                 if module.name.startswith("m") and index._says(module, ("act",))] \
        == [f"m{number}" for number in range(30) if number % 3]


@pytest.mark.parametrize("colliding", [False, True])
def test_whether_a_module_says_a_name_is_its_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, colliding: bool) -> None:
    """`_says` answers whether a name is one of the module's words, whole (`mat` is not said by
    `matmul`, nor `ops.a` by `ops.act`), whatever the hashes say: with every hash colliding
    (`colliding`), the words decide."""
    code = "from pkg import ops\n\n\ndef matmul_kernel(x_ref):\n    return ops.act(x_ref)  # fused\n"
    (tmp_path / "m.py").write_text(code)
    if colliding:
        monkeypatch.setattr("codemods.analysis.project.base._may_say", lambda hashes, word: True)
    index = ProjectIndex([tmp_path / "m.py"], read_bytes)
    module = index._modules["m"]
    for names in [("matmul_kernel",), ("mat",), ("act",), ("ac",), ("fused",), ("x",), ("nothing", "ops"), ("kernel",)]:
        assert index._says(module, names) == any(name.encode() in _words(code.encode()) for name in names), names


def test_the_facts_of_a_file_where_the_run_keeps_no_index_are_none(tmp_path: Path) -> None:
    """`facts_of`: the one accessor the runner, explain, the server, IPython and the adapters read a
    file's facts by: the index's, or nothing where the run keeps none (no kernel-scoped rule)."""
    index = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/kern.py": _CYCLE["pkg/kern.py"], "pkg/helpers.py": _CYCLE["pkg/helpers.py"]})
    path = tmp_path / "pkg" / "helpers.py"
    assert facts_of(None, path) is NO_FACTS
    assert facts_of(index, path) == index.facts(path) != NO_FACTS


def test_a_modules_names_beside_its_fields_are_walked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`_dotted_beside_fields`: a module outside kernel land is asked about each name of other modules
    it may use; its tree is walked once for all of them (docs/speed.md), the defaults of its classes'
    fields left out, and each ask still reads its code (a dependency, for the next run)."""
    from codemods.analysis.project import usage
    from codemods.analysis.project.modules import CONTENT

    walks = []
    monkeypatch.setattr(usage, "_dotted_by_last_name", lambda nodes, walk=usage._dotted_by_last_name: walks.append(1) or walk(nodes))
    user = "from pkg import ops\n\n\nclass Config:\n    dot_fn = ops.accurate_dot\n\n\ndef f():\n    return ops.mm()\n"
    index = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": "def mm():\n    pass\n", "user.py": user})
    module = index._modules["user"]
    for _ in range(3):
        index._frames.append(set())
        dotted = index._dotted_beside_fields(module)
        assert ("user", CONTENT) in index._frames.pop()
        assert dotted["mm"] == {"ops.mm"} and "accurate_dot" not in dotted
    assert len(walks) == 1


def test_a_needy_defs_walk_stops_at_its_first_call_that_may_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`_needy_names` walks a statement whose bytes may fail only until the first call that may
    (docs/speed.md: the walks were most of its time on the trees); the names it finds are the same."""
    import types

    from codemods.analysis.project import facts

    visited = []

    def walk(node):
        for child in ast.walk(node):
            visited.append(child)
            yield child

    monkeypatch.setattr(facts, "ast", types.SimpleNamespace(**{**vars(ast), "walk": walk}))
    rest = "".join(f"    y{number} = jnp.sum(x_ref[...] * {number})\n" for number in range(100))
    index = _tree(tmp_path, {"m.py": "import jax.numpy as jnp\n\n\ndef body(x_ref, y_ref):\n"
                                     "    y_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision='highest')\n" + rest})
    assert index._needy_names(index._modules["m"]) == ["body"]
    assert 0 < len(visited) < 300  # (breadth first: the body's 101 statements, then the first one's parts; all of it: 1,627)
