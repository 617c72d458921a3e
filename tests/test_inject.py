"""Injection over jax's own Pallas kernels (bench/inject.py), on a fixed sample of its sites.

A per-operand precision pair (or `accuracy=`) is injected into one call at a time of a copy of
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
}
# The rule that must fix a kernel site, by what was injected.
RULE_OF_KIND = {"precision": "JAX001", "accuracy": "JAX002", "math": "JAX007"}


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
    assert kinds == {"precision", "accuracy", "math"}


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
