"""JAX003's rewrites run: cuDNN gets float32 at HIGHEST, the caller keeps its dtypes, numerics hold.

On the CPU, with `jax_support.cudnn_lstm_on_cpu()` standing in for cuDNN. For each program: the
original raises the seed's error; the tool's rewrite of it (of the golden .in.py, or of
examples/bf16_lstm.py) runs, every LSTM launch receives float32 inputs with cudnn_allow_tf32=False,
and the result equals the original program run with a float32 reference LSTM in place of cuDNN.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

pytest.importorskip("jax")

import jax
import jax.numpy as jnp
from jax.experimental import rnn

from codemods.engine.runner import process_source
from codemods.registry import select
from codemods.settings import Settings
from tests import jax_support

pytestmark = pytest.mark.jax

FIXTURES = Path(__file__).parent / "fixtures" / "lstm"
HELPERS_SOURCE = Path(__file__).parent.parent / "codemods" / "helpers_source.py"
SEED_ERROR = "bfloat16 support not implemented for LSTM"
FLOAT32_LAUNCH = jax_support.LstmCall(("float32",) * 4 + ("int32",), cudnn_allow_tf32=False)
BF16 = jnp.bfloat16
TOLERANCE = dict(rtol=2e-2, atol=2e-2)  # outputs are bf16: one bf16 ulp apart at most
_module_ids = itertools.count()


def float32_lstm(x, h_0, c_0, weights, seq_lengths, input_size, hidden_size, num_layers, dropout,
                 bidirectional, precision=None):
    """What the original call would compute if cuDNN had a bf16 LSTM: the LSTM in float32, with
    outputs in the dtypes `rnn_fwd_p` promises (y like x, h_n like h_0, c_n like c_0)."""
    del precision
    unpacked = rnn.unpack_lstm_weights(weights.astype(jnp.float32), input_size, hidden_size, num_layers,
                                       bidirectional)
    with jax.default_matmul_precision("float32"):
        y, h_n, c_n = rnn.lstm_ref(x.astype(jnp.float32), h_0.astype(jnp.float32), c_0.astype(jnp.float32),
                                   *unpacked, seq_lengths, input_size, hidden_size, num_layers, dropout,
                                   bidirectional)
    return y.astype(x.dtype), h_n.astype(h_0.dtype), c_n.astype(c_0.dtype)


def normal(seed: int, shape: tuple[int, ...], dtype=BF16) -> jax.Array:
    return jax.random.normal(jax.random.PRNGKey(seed), shape).astype(dtype)


def lstm_weights(seed: int, input_size: int, hidden_size: int, num_layers: int = 1,
                 bidirectional: bool = False, dtype=BF16) -> jax.Array:
    weights = rnn.init_lstm_weight(jax.random.PRNGKey(seed), input_size, hidden_size, num_layers, bidirectional)
    return weights.astype(dtype)


LENGTHS = jnp.array([5, 3], jnp.int32)  # batch of two right-padded sequences of up to 5 steps


# -- how to run each fixture: its entry point, on bf16 inputs sized for its constants --

def run_keyword(program):
    return program.encode(lstm_weights(1, 12, program.HIDDEN), normal(2, (2, 5, 12)), LENGTHS)


def run_positional_mixed_dtypes(program):
    """bf16 x and weights, float32 state: y comes back bf16, h_n and c_n float32."""
    state = normal(3, (2, 2, 256), jnp.float32)
    return program.run_lstm(normal(4, (2, 5, 64)), state, state, lstm_weights(5, 64, 256, 2), LENGTHS)


def run_scan(program):
    chunks = normal(6, (3, 2, 4, program.FEATURES))
    chunk_lengths = jnp.array([[4, 4], [4, 2], [3, 1]], jnp.int32)
    return program.stream(lstm_weights(7, program.FEATURES, program.HIDDEN), chunks, chunk_lengths)


def run_flax_style(program):
    layer = program.CudnnLSTM(hidden_size=16, bidirectional=True)
    return layer(layer.init(jax.random.PRNGKey(8), 8), normal(9, (2, 5, 8)), LENGTHS)


def run_config_update(program):
    params = {"lstm": lstm_weights(10, 32, 64, 2), "head": normal(11, (64, 3))}
    return program.model(params, normal(12, (2, 5, 32)), LENGTHS)


def run_with_block(program):
    state = normal(13, (1, 2, 8))
    return program.bf16_encoder(normal(14, (2, 5, 8)), state, state, lstm_weights(15, 8, 8), LENGTHS)


def run_arguments_are_calls(program):
    params = {"embedding": normal(16, (20, 32)), "lstm": lstm_weights(17, 32, 64, dtype=jnp.float32),
              "head": normal(18, (64, 3))}
    tokens = jnp.array([[3, 5, 7, 0, 0], [2, 4, 6, 8, 9]], jnp.int32)
    return program.classify(params, tokens, jax.random.PRNGKey(19))


def run_jit(program):
    x, lengths = normal(20, (4, 5, 4)), jnp.array([5, 4, 3, 1], jnp.int32)
    weights = lstm_weights(21, 4, 8)
    return program.encode(x, weights, lengths, hidden_size=8, num_layers=1), program.encode_fast(x, weights, lengths)


def run_helpers_module(program):
    state = normal(22, (1, 2, 8))
    return program.encode(normal(23, (2, 5, 8)), state, state, lstm_weights(24, 8, 8), LENGTHS)


def run_entries(*entries: str, sizes: tuple[int, int], **extra):
    """Call each `entry(x, h_0, c_0, weights, lengths, **extra)` of a program on bf16 inputs, for an
    LSTM of (input size, hidden size) `sizes`."""
    input_size, hidden_size = sizes

    def run(program):
        state = normal(25, (1, 2, hidden_size))
        x, weights = normal(26, (2, 5, input_size)), lstm_weights(27, input_size, hidden_size)
        outputs = tuple(getattr(program, entry)(x, state, state, weights, LENGTHS, **extra) for entry in entries)
        return outputs if len(outputs) > 1 else outputs[0]
    return run


def run_float32_inputs(program):
    return program.run(jax.random.PRNGKey(28), normal(29, (2, 5, 8)), LENGTHS)


def run_bidirectional_encoder_decoder(program):
    params = {"enc": lstm_weights(30, 32, 64, bidirectional=True), "dec": lstm_weights(31, 128, 64)}
    return program.decoder(params, program.encoder(params, normal(32, (2, 5, 32)), LENGTHS), LENGTHS)


def run_tagger(program):
    state = normal(33, (1, 2, 64))
    params = {"lstm": lstm_weights(34, 32, 64), "proj": normal(35, (64, 3))}
    return program.tagger(params, normal(36, (2, 5, 32)), state, state, LENGTHS)


def run_speech_encoder(program):
    """Three bidirectional layers of 320 (the golden's own sizes), on a short batch."""
    state = (normal(37, (6, 2, 320)), normal(38, (6, 2, 320)))
    return program.speech_encoder(normal(39, (2, 5, 80)), state, lstm_weights(40, 80, 320, 3, True), LENGTHS)


def run_numpy_state(program):
    return program.encode(normal(41, (2, 5, 8)), lstm_weights(42, 8, 8), LENGTHS)


def run_train_step(program):
    return program.train_step({"lstm": lstm_weights(43, 16, 32)}, {"x": normal(44, (2, 5, 16)), "lengths": LENGTHS})


def run_encoder_decoder(program):
    state = normal(45, (1, 2, 16))
    x, weights = normal(46, (2, 5, 16)), lstm_weights(47, 16, 16)
    return program.encoder(x, state, state, weights, LENGTHS), program.decoder(x, state, state, weights, LENGTHS)


F32 = jnp.float32
THREE_BF16 = (BF16, BF16, BF16)
# fixture -> (how to run it, the dtypes its caller gets back: bf16 in, bf16 out)
CASES: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "keyword_lax_precision_default": (run_keyword, (BF16, BF16)),
    "positional_precision_alias_P": (run_positional_mixed_dtypes, (BF16, F32, F32)),
    "scan_over_chunks": (run_scan, BF16),  # the bf16 (h, c) carry of lax.scan must stay bf16
    "flax_style_module": (run_flax_style, (BF16, BF16, BF16)),
    "config_update_precision_omitted": (run_config_update, BF16),
    "with_default_matmul_precision": (run_with_block, BF16),
    "arguments_are_calls": (run_arguments_are_calls, BF16),
    "inside_jax_jit": (run_jit, ((BF16, BF16), (BF16, F32, F32))),
    "helpers_module_option": (run_helpers_module, (BF16, BF16, BF16)),
    "partial_keyword_precision_inside_jit": (run_keyword, (BF16, BF16)),  # jax.jit(partial(rnn.lstm, ...))
    "no_numpy_import": (run_entries("encode", sizes=(8, 8)), THREE_BF16),
    "unaliased_lstm_import": (run_entries("encode", sizes=(8, 8)), THREE_BF16),
    "precision_constructor": (run_entries("forward", sizes=(8, 8)), THREE_BF16),
    # the user's own lstm_float32 makes x float32: y follows x, the state stays bf16
    "helper_name_taken": (run_entries("encode", sizes=(8, 8)), (F32, BF16, BF16)),
    "config_bf16_precision_added_after_comments": (run_entries("encoder", "decoder", sizes=(8, 8)), (THREE_BF16,) * 2),
    "strings_default_and_fastest": (run_entries("fast_path", "default_path", sizes=(16, 32)), (THREE_BF16,) * 2),
    "per_operand_pairs": (run_entries("lstm_layer", sizes=(8, 8), hidden=8), THREE_BF16),
    "comments_and_two_space_indent": (run_entries("lstm_block", sizes=(8, 8), hidden_size=8), THREE_BF16),
    "already_float32_inputs": (run_float32_inputs, (F32, F32, F32)),  # precision alone asked for bf16
    "bidirectional_two_calls_one_helper": (run_bidirectional_encoder_decoder, BF16),
    "fully_qualified_jax_experimental_rnn": (run_tagger, BF16),
    "imported_as_cudnn_lstm_bfloat16_string": (run_speech_encoder, (BF16, (BF16, BF16))),
    "numpy_imported_under_another_name": (run_numpy_state, THREE_BF16),
    "partial_aliased_import": (run_entries("encoder", sizes=(8, 16)), THREE_BF16),  # jax.jit(partial(cudnn_lstm, ...))
    "with_block_around_the_caller": (run_train_step, BF16),
    "config_update_explicit_none": (run_encoder_decoder, (THREE_BF16,) * 2),
    # encode_configured's precision, set twice, is a [manual] note as variable_precision's are
    "module_constant_precision": (run_entries("encode", "decode", sizes=(8, 8)), (THREE_BF16,) * 2),
}


def _lstm_inputs(sizes: tuple[int, int] = (8, 8)):
    state = normal(48, (1, 2, sizes[1]))
    return normal(49, (2, 5, sizes[0])), state, state, lstm_weights(50, *sizes), LENGTHS


# Goldens the tool leaves as written: (how to run it as written, how to make it fail as its finding
# says it may, or None where no finding says it may fail).
UNCHANGED: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "nothing_to_change": (lambda p: p.run({"w_ih": normal(51, (8, 32)), "w_hh": normal(52, (8, 32)),
                                           "b": normal(53, (32,))}, normal(54, (5, 2, 8)),
                                          (normal(55, (2, 8)), normal(56, (2, 8)))), None),
    "partial_already_highest": (lambda p: (p.fp32_lstm(*_lstm_inputs()), p.tf32_lstm(
        *_lstm_inputs(), input_size=8, hidden_size=8, num_layers=1, dropout=0.0, bidirectional=False)), None),
    "untouched_high_highest": (lambda p: [getattr(p, name)(*_lstm_inputs()) for name in ("tf32", "fp32", "strings")],
                               None),
    # [warning]: None is fine unless a bf16 default precision is set around the call.
    "precision_none_without_config": (lambda p: (p.encoder(*_lstm_inputs()), p.decoder(*_lstm_inputs())),
                                      lambda p: _under_bf16_default(lambda: p.encoder(*_lstm_inputs()))),
    # [manual]: a precision the module does not set; HIGHEST runs, DEFAULT fails as the note says.
    "variable_precision": (lambda p: (p.run(*_lstm_inputs(), jax.lax.Precision.HIGHEST),
                                      p.Encoder(8, jax.lax.Precision.HIGHEST)(*_lstm_inputs())),
                           lambda p: p.run(*_lstm_inputs(), jax.lax.Precision.DEFAULT)),
}


def _under_bf16_default(run: Callable[[], Any]) -> Any:
    with jax.default_matmul_precision("bfloat16"):
        return run()


@pytest.fixture(autouse=True)
def restore_default_matmul_precision():
    """Some programs set jax_default_matmul_precision when loaded; undo it after each test."""
    saved = jax.config.jax_default_matmul_precision
    yield
    jax.config.update("jax_default_matmul_precision", saved)


@pytest.fixture
def mylab_jax_compat(tmp_path, monkeypatch):
    """`--helpers-module mylab.jax_compat` as docs/fixes.md and docs/configuration.md tell users to set it up: a copy of
    codemods/helpers_source.py."""
    package = tmp_path / "mylab"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "jax_compat.py").write_text(HELPERS_SOURCE.read_text())
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("mylab", "mylab.jax_compat"):
        monkeypatch.delitem(sys.modules, name, raising=False)


def load(path_or_source, stem: str):
    return jax_support.load_program(path_or_source, f"lstm_case_{stem}_{next(_module_ids)}")


def run_on_cpu(run: Callable[[Any], Any], program) -> tuple[Any, jax_support.LstmRecorder]:
    with jax.default_device(jax.devices("cpu")[0]), jax_support.cudnn_lstm_on_cpu() as recorder:
        return jax.block_until_ready(run(program)), recorder


def expected_with_float32_lstm(run: Callable[[Any], Any], path: Path, stem: str, monkeypatch) -> Any:
    """The original program, with the float32 reference LSTM where it calls cuDNN's."""
    with monkeypatch.context() as patch:
        patch.setattr(rnn, "lstm", float32_lstm)
        with jax.default_device(jax.devices("cpu")[0]):
            return jax.block_until_ready(run(load(path, stem)))


def dtypes(tree) -> Any:
    return jax.tree.map(lambda leaf: jnp.dtype(leaf.dtype), tree)


@pytest.mark.parametrize("stem", sorted(CASES))
def test_rewritten_fixture_runs_in_float32_and_keeps_dtypes(stem, monkeypatch, request):
    if stem == "helpers_module_option":
        request.getfixturevalue("mylab_jax_compat")
    run, caller_dtypes = CASES[stem]
    original = FIXTURES / f"{stem}.in.py"
    with pytest.raises(NotImplementedError, match=SEED_ERROR):
        run(load(original, stem))

    expected = expected_with_float32_lstm(run, original, stem, monkeypatch)
    # The tool's output for the installed jax, not the stored .out.py (that stays the reviewed text).
    result = process_source(original, original.read_bytes(), select(["JAX003"]), Settings(jax_support.JAX_VERSION))
    assert result.error is None and result.new_source is not None, result.error
    actual, recorder = run_on_cpu(run, load(result.after, stem))

    assert recorder.calls and set(recorder.calls) == {FLOAT32_LAUNCH}
    assert dtypes(actual) == dtypes(expected) == jax.tree.map(jnp.dtype, caller_dtypes)
    jax_support.assert_close(actual, expected, **TOLERANCE)


def test_example_rewritten_by_the_tool_runs():
    """examples/bf16_lstm.py through the tool: the rewritten program matches its fp32 reference."""
    path = jax_support.EXAMPLES_DIR / "bf16_lstm.py"
    result = process_source(path, path.read_bytes(), select(["JAX003"]), Settings(jax_support.JAX_VERSION))
    assert result.error is None and result.new_source is not None
    program = load(result.new_source.decode(), "example")

    with jax.default_device(jax.devices("cpu")[0]):
        fn, args = program.build()
        with jax_support.cudnn_lstm_on_cpu() as recorder:
            logits = fn(*args)
        expected = program.reference(*args)

    assert recorder.calls == [FLOAT32_LAUNCH]
    assert logits.dtype == BF16  # bf16 parameters, bf16 logits: as the author wrote the model
    jax_support.assert_close(logits, expected, **TOLERANCE)


def test_every_lstm_golden_runs() -> None:
    stems = {path.name[: -len(".in.py")] for path in FIXTURES.glob("*.in.py")}
    assert stems == set(CASES) | set(UNCHANGED), f"not run: {sorted(stems - set(CASES) - set(UNCHANGED))}"


@pytest.mark.parametrize("stem", sorted(UNCHANGED))
def test_golden_left_unchanged_runs_and_fails_only_where_its_finding_says(stem) -> None:
    """The tool writes nothing here (the .out.py is the .in.py): the model runs as written, and where a
    [warning] or [manual] note says it may fail, it fails that way under the condition the note names."""
    path = FIXTURES / f"{stem}.in.py"
    assert (FIXTURES / f"{stem}.out.py").read_text() == path.read_text()
    run, fails = UNCHANGED[stem]
    findings = (FIXTURES / f"{stem}.findings").read_text()
    assert (fails is not None) == (SEED_ERROR in findings), "a failure the findings do not announce (or the reverse)"
    with jax.default_device(jax.devices("cpu")[0]), jax_support.cudnn_lstm_on_cpu():
        jax.block_until_ready(run(load(path, stem)))
        if fails is not None:
            with pytest.raises(NotImplementedError, match=SEED_ERROR):
                fails(load(path, stem))
