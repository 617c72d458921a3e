"""Injection over jax's own Pallas kernels (bench/inject.py), on a fixed sample of its sites.

A wall (a per-operand precision pair, `accuracy=`, `jnp.arctan`, an int8 reduction, a dtype jax makes
64-bit under x64, a bool scalar printed with `pl.debug_print`) is injected at one site at a time of a copy of
`jax/experimental/pallas/ops`, the tool (this checkout's `python -m codemods`) runs on the copy, and an
oracle that is not the tool says whether it must report the call: lowering the module's entry points
for TPU where it has some, a static reading of the kernel launches otherwise. Each sampled site must
come out as its oracle says: a finding and a fix that lowers in a Mosaic TPU kernel, no finding in XLA
or Triton code, no other line changed, no crash.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("inject", REPO / "bench" / "inject.py")
inject = importlib.util.module_from_spec(_spec)
sys.modules["inject"] = inject
_spec.loader.exec_module(inject)
# The process pool's (spawned) workers unpickle its classes by the name `inject`: they import it from here.
if str(REPO / "bench") not in sys.path:
    sys.path.append(str(REPO / "bench"))

# The sample's line numbers are those of jax 0.12.0.1's ops/ (inject.SAMPLE).
SAMPLE_JAX = "0.12.0.1"
# (rel, line) -> the label the oracle must give, and whether that label comes from lowering.
EXPECTED = {
    ("tpu/flash_attention.py", 395): ("kernel", True),    # forward kernel's dot_general
    ("tpu/flash_attention.py", 1494): ("xla", True),      # the reference implementation's einsum
    ("tpu/matmul.py", 33): ("kernel", True),              # matmul_kernel's jnp.dot
    ("gpu/attention.py", 133): ("triton", False),         # the Triton forward kernel's plgpu.dot
    ("gpu/layer_norm.py", 351): ("xla", False),           # lax.rsqrt + accuracy= in the reference
    ("tpu/flash_attention.py", 447): ("kernel", True),    # the forward kernel's jnp.exp, renamed jnp.arctan
    ("tpu/flash_attention.py", 1517): ("xla", True),      # the reference's jnp.exp, renamed jnp.arctan
    ("tpu/flash_attention.py", 439): ("kernel", True),    # jnp.max(s.astype(jnp.int8), axis=1) in the kernel
    ("tpu/flash_attention.py", 1516): ("xla", True),      # the reference's logits.astype(jnp.int8).max(...)
    ("tpu/megablox/gmm.py", 282): ("kernel", True),       # broadcasted_iota(jnp.int64, ...) under x64
    ("gpu/paged_attention.py", 131): ("triton", False),   # jnp.zeros(...) without its dtype in a Triton kernel
    ("tpu/flash_attention.py", 388): ("kernel", True),    # pl.debug_print of a bool scalar after a ref load
    ("gpu/paged_attention.py", 64): ("triton", False),    # the same in a Triton kernel (prints any dtype)
}
# The rule that must fix a kernel site, by what was injected.
RULE_OF_KIND = {"precision": "JAX001", "accuracy": "JAX002", "math": "JAX007", "narrow": "JAX004", "x64": "JAX005",
                "debug_print": "JAX008"}


def _installed_jax() -> str:
    from importlib import metadata
    return metadata.version("jax")


@pytest.fixture(scope="module")
def outcomes() -> dict:
    if _installed_jax() != SAMPLE_JAX:
        pytest.skip(f"the sample names lines of jax {SAMPLE_JAX}'s Pallas ops (installed {_installed_jax()})")
    tool = inject.Tool(root=REPO)  # this checkout, whatever jax-codemod is installed
    assert {(rel, line) for _, rel, line, _ in inject.SAMPLE} == set(EXPECTED)
    results, baseline, _ = inject.run_package("jax", inject.jax_ops_root(), tool, sample=True, jobs=2,
                                              log=lambda line: None)
    assert baseline.crash is None, baseline.crash
    return {(o.site.rel, o.site.line): o for o in results}


@pytest.mark.jax
def test_the_sample_is_complete(outcomes: dict) -> None:
    assert set(outcomes) == set(EXPECTED)
    kinds = {o.site.kind for o in outcomes.values()}
    assert kinds == set(inject.KINDS) == set(RULE_OF_KIND)


@pytest.mark.jax
@pytest.mark.parametrize("where", sorted(EXPECTED), ids=lambda w: f"{w[0]}:{w[1]}")
def test_sampled_site(outcomes: dict, where: tuple) -> None:
    outcome = outcomes[where]
    label, lowered = EXPECTED[where]
    detail = inject.site_line(outcome)
    assert outcome.crash is None, detail
    assert outcome.label == label, detail
    assert (outcome.lowering in ("kernel", "xla")) == lowered, detail
    assert outcome.other_lines == [], detail
    if label == "kernel":
        assert outcome.found and outcome.fixed, detail
        assert outcome.lowers_after is True, detail
        assert all(f["rule"] == RULE_OF_KIND[outcome.site.kind] for f in outcome.findings), detail
    else:
        assert not outcome.found, detail
    assert not outcome.failed, detail


# Cheap checks of the bench's own parts (no jax executed).

SOURCE = '''\
import jax
from jax import lax
import jax.numpy as jnp
from jax.experimental import pallas as pl

def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...],)
    s = lax.dot_general(x_ref[...], y_ref[...], (((1,), (0,)), ((), ())), lax.Precision.HIGH)
    o_ref[...] += lax.exp(s, accuracy=None)

def body(jax, x):
    return jnp.einsum("ij,jk->ik", x, x, precision="high")

def run(x):
    chosen = kernel if x.shape[0] else kernel
    return pl.pallas_call(chosen, out_shape=x)(x, x)

def reference(x):
    return jnp.matmul(x, x).astype(x.dtype)
'''


def test_injection_edits_only_the_call() -> None:
    sites = inject.find_sites_in_source(SOURCE, "tpu/k.py")
    by_line = {s.line: s for s in sites if s.kind != "math"}
    assert sorted(by_line) == [7, 8, 9, 12, 19]
    added = inject.inject(SOURCE, by_line[7])
    assert "jnp.dot(x_ref[...], y_ref[...], precision=(jax.lax.Precision.DEFAULT, jax.lax.Precision.HIGHEST),)" in added
    assert "jnp.matmul(x, x, precision=(jax.lax.Precision.DEFAULT, jax.lax.Precision.HIGHEST)).astype(x.dtype)" \
        in inject.inject(SOURCE, by_line[19])
    positional = inject.inject(SOURCE, by_line[8])
    assert "((), ())), (jax.lax.Precision.DEFAULT, jax.lax.Precision.HIGHEST))" in positional
    replaced = inject.inject(SOURCE, by_line[9])
    assert "lax.exp(s, accuracy=jax.lax.AccuracyMode.HIGHEST)" in replaced
    # `jax` is a parameter of body(): the pair is spelled through `lax` there.
    assert by_line[12].injected == "(lax.Precision.DEFAULT, lax.Precision.HIGHEST)"
    assert 'precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST))' in inject.inject(SOURCE, by_line[12])
    assert not [s for s in sites if s.kind == "math"]  # line 9's lax.exp passes accuracy=, which atan does not take
    renamed = SOURCE.replace("lax.exp(s, accuracy=None)", "jnp.exp(s) + lax.exp(s)")
    math = [s for s in inject.find_sites_in_source(renamed, "tpu/k.py") if s.kind == "math"]
    assert [(s.line, s.callee, s.injected) for s in math] == [(9, "jnp.exp", "jnp.arctan"), (9, "lax.exp", "lax.atan")]
    assert "o_ref[...] += jnp.arctan(s) + lax.exp(s)" in inject.inject(renamed, math[0])
    assert "o_ref[...] += jnp.exp(s) + lax.atan(s)" in inject.inject(renamed, math[1])
    for site in sites:
        changed = inject.inject(SOURCE, site)
        ast.parse(changed)
        diff = [i for i, (a, b) in enumerate(zip(SOURCE.splitlines(), changed.splitlines())) if a != b]
        assert diff == [site.line - 1]


def test_static_oracle_follows_the_launch() -> None:
    labels = inject.static_labels(SOURCE, "tpu/k.py")
    assert labels[7][0] == labels[8][0] == labels[9][0] == "kernel"
    assert labels[12][0] == "xla"       # body() is never launched
    assert labels[19][0] == "xla"
    gpu = inject.static_labels(SOURCE, "gpu/k.py")
    assert gpu[7][0] == "triton"        # pallas_call without Mosaic GPU params under ops/gpu
    assert inject.expected("kernel", "precision") is True
    assert inject.expected("triton", "precision") is False
    assert inject.expected("unknown", "accuracy") is None


KERNEL = '''\
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref, *, scale):
    x = x_ref[...]
    m = jnp.max(x, axis=1, keepdims=True)
    cols = jnp.arange(128, dtype=jnp.int32)
    acc = jnp.zeros((8, 128), dtype=jnp.float32)
    o_ref[...] = x_ref[...] * scale + acc + m + cols + jax.lax.broadcasted_iota(jnp.int32, (8, 128), 0)
    o_ref[...] += 2 * x.max(axis=0) + (x_ref[...] * 0.5)


def run(x):
    return pl.pallas_call(functools.partial(kernel, scale=2.0), out_shape=x)(x)
'''


def test_the_new_walls_are_injected_at_their_site_alone() -> None:
    """narrow, x64 and debug_print: what is injected where, and no other line moves (x64's line is
    appended, debug_print's statement inserted after its load)."""
    sites = {(s.kind, s.line, s.col): s for s in inject.find_sites_in_source(KERNEL, "tpu/k.py")
             if s.kind in ("narrow", "x64", "debug_print")}
    assert sorted(sites) == [("debug_print", 8, 4), ("narrow", 9, 8), ("narrow", 12, 17), ("narrow", 13, 22),
                             ("x64", 10, 11), ("x64", 11, 10), ("x64", 12, 55)]
    lines = KERNEL.splitlines()

    def changed(site):
        text = inject.inject(KERNEL, site)
        new = text.splitlines()
        assert inject.static_labels(KERNEL, "tpu/k.py")[site.line][0] == "kernel"
        return new, [i + 1 for i, (a, b) in enumerate(zip(lines, new)) if a != b]

    new, diff = changed(sites["narrow", 9, 8])
    assert diff == [9] and new[8] == "    m = jnp.max(x.astype(jnp.int8), axis=1, keepdims=True)"
    new, diff = changed(sites["narrow", 12, 17])  # the ref's load cast, the Python scale made int8, cast back
    assert diff == [12] and new[11].startswith("    o_ref[...] = (x_ref[...].astype(jnp.int8) * jnp.int8(scale)).astype("
                                               "x_ref.dtype) + acc")
    new, diff = changed(sites["narrow", 13, 22])
    assert diff == [13] and new[12] == "    o_ref[...] += 2 * x.astype(jnp.int8).max(axis=0) + (x_ref[...] * 0.5)"
    assert not [s for s in sites.values() if s.kind == "narrow" and s.col > 30]  # `x_ref[...] * 0.5`: a float
    new, diff = changed(sites["x64", 10, 11])
    assert diff == [10] and new[9] == "    cols = jnp.arange(128)"
    assert new[len(lines):] == ["import jax", 'jax.config.update("jax_enable_x64", True)']
    new, diff = changed(sites["x64", 11, 10])
    assert diff == [11] and new[10] == "    acc = jnp.zeros((8, 128))"
    new, diff = changed(sites["x64", 12, 55])  # iota has no 64-bit default: its dtype widened
    assert diff == [12] and "jax.lax.broadcasted_iota(jnp.int64, (8, 128), 0)" in new[11]
    site = sites["debug_print", 8, 4]
    assert site.lines == (9, 9)
    new = inject.inject(KERNEL, site).splitlines()
    assert new[8] == '    pl.debug_print("x > 0: {}", (x > 0)[0, 0])'
    assert new[:8] + new[9:] == lines


def test_a_hunk_below_an_inserted_statement_is_compared_where_it_was() -> None:
    site = next(s for s in inject.find_sites_in_source(KERNEL, "tpu/k.py") if s.kind == "debug_print")
    assert inject._in_pristine((12, 13, ("new\n",)), site, "tpu/k.py") == (11, 12, ("new\n",))
    assert inject._in_pristine((9, 10, ("new\n",)), site, "tpu/k.py") == (8, 9, ("new\n",))
    assert inject._in_pristine((3, 4, ("new\n",)), site, "tpu/k.py") == (3, 4, ("new\n",))
    assert inject._in_pristine((12, 13, ("new\n",)), site, "tpu/other.py") == (12, 13, ("new\n",))
