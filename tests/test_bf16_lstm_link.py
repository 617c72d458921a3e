"""JAX003 on the whole-program value flow: an LSTM precision that crosses modules (a constant imported, a
config's dataclass field, a wrapper's parameter its callers fill, a table of precisions), as the link
(codemods/analysis/flow/link.py) follows it. Each project runs as written (jax raises the seed's error
while tracing), then as the tool rewrote it, on the CPU with `jax_support.cudnn_lstm_on_cpu()` standing
in for cuDNN: every LSTM launch gets float32 inputs at HIGHEST, the caller its own dtypes, the numbers
the float32 LSTM's; plain code that reads the same value is left as written. A value the flow cannot
know is a [manual] finding naming it; one that is never DEFAULT, nothing."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("jax")

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import rnn

from codemods import registry
from codemods.analysis.flow.flow_facts import NO_PRECISION
from codemods.analysis.flow.link import link
from codemods.analysis.flow.summary import summarise
from codemods.engine.diagnostics import Kind
from codemods.engine.discovery import discover
from codemods.engine.runner import run
from codemods.rules.bf16_lstm import LSTM, RULE
from codemods.settings import Settings
from tests import jax_support

pytestmark = pytest.mark.jax

SEED_ERROR = "bfloat16 support not implemented for LSTM"
FLOAT32_LAUNCH = jax_support.LstmCall(("float32",) * 4 + ("int32",), cudnn_allow_tf32=False)
INPUT, HIDDEN = 8, 16
_LAYERS = f"""
    from jax.experimental import rnn
    from . import sizes

    def lstm_layer(x, h, c, weights, lengths, *, precision=None):
        return rnn.lstm(x, h, c, weights, lengths, sizes.INPUT, sizes.HIDDEN, 1, 0.0, False, precision=precision)[0]
"""
_SIZES = f"INPUT, HIDDEN = {INPUT}, {HIDDEN}\n"

# name -> (modules, the entry's callee in `entry.py`, whether it fails as written, what the tool does:
# "fixed", "untouched" or the [manual] finding's words)
PROJECTS: dict[str, tuple[dict[str, str], bool, str]] = {
    "constant_imported_and_read_by_xla": ({
        "sizes.py": _SIZES,
        "config.py": "from jax import lax\nLSTM_PRECISION = lax.Precision.DEFAULT\n",
        "entry.py": """
            import jax.numpy as jnp
            from jax.experimental import rnn
            from .config import LSTM_PRECISION
            from . import sizes

            def run(x, h, c, weights, lengths):
                return rnn.lstm(x, h, c, weights, lengths, sizes.INPUT, sizes.HIDDEN, 1, 0.0, False,
                                precision=LSTM_PRECISION)[0]

            def head(y, w):
                return jnp.dot(y, w, precision=LSTM_PRECISION)
        """}, True, "fixed"),
    "config_dataclass_field": ({
        "sizes.py": _SIZES,
        "config.py": """
            import dataclasses
            from jax import lax

            @dataclasses.dataclass(frozen=True)
            class Config:
                precision: lax.Precision = lax.Precision.DEFAULT
        """,
        "model.py": """
            from jax.experimental import rnn
            from . import sizes

            def encode(cfg, x, h, c, weights, lengths):
                return rnn.lstm(x, h, c, weights, lengths, sizes.INPUT, sizes.HIDDEN, 1, 0.0, False,
                                precision=cfg.precision)[0]
        """,
        "entry.py": """
            from . import config, model

            def run(x, h, c, weights, lengths):
                return model.encode(config.Config(), x, h, c, weights, lengths)
        """}, True, "fixed"),
    "wrapper_parameter_from_two_callers": ({
        "sizes.py": _SIZES,
        "layers.py": _LAYERS,
        "entry.py": """
            from jax import lax
            from .layers import lstm_layer

            def run(x, h, c, weights, lengths):
                return (lstm_layer(x, h, c, weights, lengths, precision="bfloat16"),
                        lstm_layer(x, h, c, weights, lengths, precision=lax.Precision.HIGH))
        """}, True, "fixed"),
    # (the ninth trial's: a wrapper importing nothing of the project, its caller in another module)
    "wrapper_importing_jax_only": ({
        "layers.py": f"""
            from jax.experimental import rnn

            def lstm_layer(x, h, c, weights, lengths, *, precision=None):
                return rnn.lstm(x, h, c, weights, lengths, {INPUT}, {HIDDEN}, 1, 0.0, False, precision=precision)[0]
        """,
        "entry.py": """
            from .layers import lstm_layer

            def run(x, h, c, weights, lengths):
                return lstm_layer(x, h, c, weights, lengths, precision="bfloat16")
        """}, True, "fixed"),
    "wrapper_parameter_highest_only": ({
        "sizes.py": _SIZES,
        "layers.py": _LAYERS,
        "entry.py": """
            from .layers import lstm_layer

            def run(x, h, c, weights, lengths):
                return lstm_layer(x, h, c, weights, lengths, precision="highest")
        """}, False, "untouched"),
    "member_by_getattr": ({
        "sizes.py": _SIZES,
        "names.py": "NAME = 'DEFAULT'\n",
        "layers.py": _LAYERS,
        "entry.py": """
            from jax import lax
            from . import names
            from .layers import lstm_layer

            def run(x, h, c, weights, lengths):
                return lstm_layer(x, h, c, weights, lengths, precision=getattr(lax.Precision, names.NAME))
        """}, True, "(across the project it may be getattr with a computed name)"),
}


def _inputs(dtype=jnp.bfloat16):
    x = jax.random.normal(jax.random.PRNGKey(0), (2, 5, INPUT)).astype(dtype)
    state = (jax.random.normal(jax.random.PRNGKey(1), (1, 2, HIDDEN)) / 4).astype(dtype)
    weights = rnn.init_lstm_weight(jax.random.PRNGKey(2), INPUT, HIDDEN, 1, False).astype(dtype)
    return x, state, state, weights, jnp.array([5, 3], jnp.int32)


def _float32_lstm(x, h_0, c_0, weights, seq_lengths, input_size, hidden_size, num_layers, dropout,
                  bidirectional, precision=None):
    """What the call computes once it runs: the LSTM on float32 inputs at HIGHEST, in the inputs' dtypes."""
    del precision
    unpacked = rnn.unpack_lstm_weights(weights.astype(jnp.float32), input_size, hidden_size, num_layers, bidirectional)
    with jax.default_matmul_precision("float32"):
        y, h_n, c_n = rnn.lstm_ref(x.astype(jnp.float32), h_0.astype(jnp.float32), c_0.astype(jnp.float32),
                                   *unpacked, seq_lengths, input_size, hidden_size, num_layers, dropout, bidirectional)
    return y.astype(x.dtype), h_n.astype(h_0.dtype), c_n.astype(c_0.dtype)


def _run_entry(package: str):
    """The entry's `run` on bf16 inputs, jitted, with the stand-in for cuDNN: (outputs, launches), or
    the error it raises."""
    try:
        entry = importlib.import_module(f"{package}.entry")
        with jax_support.cudnn_lstm_on_cpu() as recorder:
            try:
                outputs = jax.jit(entry.run)(*_inputs())
            except NotImplementedError as error:
                return str(error)
            return jax.tree.map(np.asarray, outputs), recorder.calls
    finally:
        for name in [name for name in sys.modules if name.split(".")[0] == package]:
            del sys.modules[name]


def _expected(package: str):
    """The entry's `run` with every LSTM the float32 one: what the rewritten program must give."""
    entry = importlib.import_module(f"{package}.entry")
    saved = rnn.lstm
    rnn.lstm = _float32_lstm
    try:
        return jax.tree.map(np.asarray, entry.run(*_inputs()))
    finally:
        rnn.lstm = saved
        for name in [name for name in sys.modules if name.split(".")[0] == package]:
            del sys.modules[name]


def _write_project(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for file, text in files.items():
        (folder / file).write_text(textwrap.dedent(text).lstrip())


# JAX003 alone links too, from the modules that call the LSTM only (`may_start_plain_link`)
@pytest.mark.parametrize("selected", [("JAX001", "JAX003"), ("JAX003",)])
@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_an_lstm_precision_from_another_module_is_fixed_at_the_call_or_named(
        name: str, selected: tuple[str, ...], tmp_path: Path) -> None:
    files, fails, outcome = PROJECTS[name]
    package = f"lstmflow_{name}_{len(selected)}"
    folder = tmp_path / package
    _write_project(folder, files)
    sys.path.insert(0, str(tmp_path))
    try:
        before = _run_entry(package)
        assert (isinstance(before, str) and SEED_ERROR in before) == fails, before
        written = {path.name: path.read_text() for path in folder.glob("*.py")}
        results = run([folder], registry.select(list(selected)), Settings((0, 12, 0, 1), helpers_module=""),
                      jobs=1, project=discover([folder]))
        assert all(result.error is None for result in results), [result.error for result in results]
        findings = [finding for result in results for finding in result.findings]
        for result in results:
            if result.new_source is not None:
                Path(result.path).write_bytes(result.new_source)
        after = _run_entry(package)
        changed = {path.name for path in folder.glob("*.py") if path.read_text() != written[path.name]}
        if outcome == "fixed":
            assert not isinstance(after, str), (after, findings)
            outputs, launches = after
            assert launches and all(launch == FLOAT32_LAUNCH for launch in launches), launches
            expected = _expected(package)
            assert jax.tree.map(lambda a: a.dtype, outputs) == jax.tree.map(lambda a: a.dtype, expected)
            jax.tree.map(lambda got, want: np.testing.assert_allclose(
                got.astype(np.float32), want.astype(np.float32), rtol=2e-2, atol=2e-2), outputs, expected)
            assert [f.kind for f in findings] == [Kind.FIXED] and len(changed) == 1, (findings, changed)
            # the value itself stays as written, for what else reads it (`head`'s jnp.dot)
            assert not changed & {"config.py", "names.py"}
        elif outcome == "untouched":
            assert not isinstance(after, str) and not findings and not changed, findings
        else:
            assert isinstance(after, str) and not changed
            assert [f.kind for f in findings] == [Kind.MANUAL] and outcome in findings[0].message, findings
    finally:
        sys.path.remove(str(tmp_path))


def _sink(modules: dict[str, str]):
    answers = link([summarise(textwrap.dedent(text), name) for name, text in modules.items()], RULE.follows)[0]
    [sink] = [sink for facts in answers.values() for sink in facts.sinks if sink.callee == LSTM]
    return sink


_WRAPPER = "from jax.experimental import rnn\ndef f(x, p=None):\n    return rnn.lstm(x, 1, 2, 3, 4, 5, 6, 7, 8, 9, precision=p)\n"


@pytest.mark.parametrize("call, levels, unknown", [
    ("f(x, 'bfloat16')", ("DEFAULT",), ()),
    ("f(x, P.HIGH); f(x, P.DEFAULT)", ("DEFAULT", "HIGH"), ()),
    ("f(x, (P.HIGHEST, P.DEFAULT))", ("HIGHEST",), ()),  # a pair by its first element
    ("f(x)", (NO_PRECISION,), ()),
    ("f(x, 3)", (), ("a value that names no precision (lit)",)),
    ("f(x, getattr(P, name))", (), ("getattr with a computed name",)),
])
def test_the_link_answers_the_precisions_reaching_a_call_outside_kernels(call: str, levels, unknown) -> None:
    sink = _sink({"w": _WRAPPER, "m": f"from jax.lax import Precision as P\nimport w\nf = w.f\ndef g(x, name):\n    {call}\n"})
    assert sink.reached and not sink.backends
    assert (sink.levels, sink.unknown) == (levels, unknown)


def test_jax003_alone_links_nothing_where_no_module_calls_the_lstm(tmp_path: Path, monkeypatch) -> None:
    """A project whose values cross modules into kernels, none into an LSTM: `--select JAX003` builds no
    index and links nothing (on the trees the link for JAX003 alone was 13 s of CPU, for no finding);
    the kernel rules selected with it still link."""
    from codemods.analysis.project import flow

    folder = tmp_path / "nolstm"
    _write_project(folder, {
        "config.py": "from jax import lax\nPAIR = (lax.Precision.DEFAULT, lax.Precision.HIGHEST)\n",
        "kernels.py": """
            import jax.numpy as jnp
            from jax.experimental import pallas as pl
            from .config import PAIR

            def body(x_ref, o_ref):
                o_ref[...] = jnp.dot(x_ref[...], x_ref[...], precision=PAIR)

            def run(x):
                return pl.pallas_call(body, out_shape=x)(x)
        """})
    links = []
    monkeypatch.setattr(flow, "link", lambda *args: links.append(args) or real(*args))
    real = link
    for selected, linked in ((["JAX003"], False), (["JAX001", "JAX003"], True)):
        links.clear()
        results = run([folder], registry.select(selected), Settings((0, 12, 0, 1), helpers_module=""),
                      jobs=1, project=discover([folder]))
        assert all(result.error is None for result in results)
        assert bool(links) == linked, selected
        assert any(result.findings for result in results) == linked, selected


def test_jax003_alone_links_from_the_lstm_modules_only(tmp_path: Path) -> None:
    """The link for JAX003 alone starts from the packages that call the LSTM, not from every module that
    launches kernels (what the kernel rules need): the kernel package is neither started from nor read."""
    from codemods.engine.runner import project_index

    _write_project(tmp_path / "lstmpkg", {"sizes.py": _SIZES, **PROJECTS["constant_imported_and_read_by_xla"][0]})
    _write_project(tmp_path / "kpkg", {"kernels.py": """
        from jax.experimental import pallas as pl

        def body(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        def run(x):
            return pl.pallas_call(body, out_shape=x)(x)
    """})
    files = discover([tmp_path])
    settings = Settings((0, 12, 0, 1), helpers_module="")
    alone = project_index(files, registry.select(["JAX003"]), settings)
    both = project_index(files, registry.select(["JAX001", "JAX003"]), settings)
    assert alone is not None and both is not None
    assert {name.split(".")[0] for name in alone.flow_modules} == {"lstmpkg"}
    assert {name.split(".")[0] for name in both.flow_modules} == {"lstmpkg", "kpkg"}


@pytest.mark.parametrize("quote", ["'", '"'])
def test_highest_is_written_in_the_wrappers_own_quotes(quote: str, tmp_path: Path) -> None:
    """The trial of 2026-12-07e, N2: the fix in a wrapper reached by "bfloat16" wrote 'highest' in a
    double-quoted file; a new string takes the quotes the module's strings use."""
    folder = tmp_path / f"lstmquotes{len(quote)}{ord(quote)}"
    layers = f"__all__ = [{quote}lstm_layer{quote}]\n{textwrap.dedent(_LAYERS)}"
    _write_project(folder, {**PROJECTS["wrapper_parameter_from_two_callers"][0], "layers.py": layers})
    results = run([folder], registry.select(["JAX003"]), Settings((0, 12, 0, 1), helpers_module=""),
                  jobs=1, project=discover([folder]))
    [fixed] = [result for result in results if result.new_source is not None]
    assert Path(fixed.path).name == "layers.py"
    assert f"precision={quote}highest{quote})[0]" in fixed.new_source.decode()
