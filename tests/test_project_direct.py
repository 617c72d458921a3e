"""The project index's module-level helpers and the parts of `ProjectIndex` that the tree tests of
tests/test_project_index.py reach only through answers another path also gives: asked directly,
with exact answers (issue 35, item 3: the mutation run of codemods/analysis/project.py).
Static analysis only: no jax import."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from codemods.analysis import project
from codemods.analysis.project import ProjectIndex


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
    assert project._askable(_statement(source)) is askable


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


def test_learnt_is_a_bool(tmp_path: Path) -> None:
    """`learnt()` answers False before anything is computed and True after a fact is (a bool, as
    its signature says: the runner keeps the state when it is true)."""
    (tmp_path / "m.py").write_text("x = 1\n")
    index = ProjectIndex([tmp_path / "m.py"], read_bytes)
    assert index.learnt() is False
    index.facts(tmp_path / "m.py")
    assert index.learnt() is True


def test_a_lambda_launch_helper_before_a_def_one(tmp_path: Path) -> None:
    """A launch helper written as a lambda is skipped (no name of its own to import), and the defs
    after it are still exported to importers."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "launch.py").write_text(
        "from jax.experimental import pallas as pl\n\n"
        "run_lambda = lambda body, x: pl.pallas_call(body, out_shape=x)(x)\n\n\n"
        "def run(body, x):\n    return pl.pallas_call(body, out_shape=x)(x)\n")
    index = ProjectIndex(sorted(tmp_path.rglob("*.py")), read_bytes)
    assert index._launch_helpers(index._modules["pkg.launch"]) == {
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
