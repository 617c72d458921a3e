"""The example programs break exactly as the seed records say, and the cuDNN stand-in is faithful.

Both are preconditions for the codemod tests: a rewrite can only be shown to fix an error that the
unmodified program really raises, and a rewritten LSTM model can only run here on the stand-in.
"""

import functools

import pytest

pytest.importorskip("jax")

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import rnn
from jax.interpreters import mlir

from tests import jax_support

pytestmark = pytest.mark.jax


@pytest.mark.parametrize("path", jax_support.EXAMPLE_PATHS, ids=lambda path: path.stem)
def test_unmodified_example_fails_with_seed_error(path):
    program = jax_support.load_program(path, path.stem)
    reason = jax_support.jax_too_old(program)
    if reason:
        pytest.skip(reason)
    fn, args = program.build()
    assert jax_support.lowering_error(fn, args, program.PLATFORM) == program.EXPECTED_ERROR


def test_cudnn_lstm_on_cpu_matches_lstm_ref_and_records_the_launch():
    input_size, hidden_size, num_layers, bidirectional = 3, 5, 2, True
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    state_shape = (2 * num_layers, 2, hidden_size)
    x = jax.random.normal(keys[0], (2, 6, input_size))
    h_0 = jax.random.normal(keys[1], state_shape)
    c_0 = jax.random.normal(keys[2], state_shape)
    weights = rnn.init_lstm_weight(keys[3], input_size, hidden_size, num_layers, bidirectional)
    lengths = jnp.array([6, 4], jnp.int32)
    lstm = jax.jit(
        functools.partial(
            rnn.lstm,
            input_size=input_size,
            hidden_size=hidden_size,
            num_layers=num_layers,
            dropout=0.0,
            bidirectional=bidirectional,
            precision=lax.Precision.HIGHEST,
        )
    )

    cuda_only_rules = (rnn.rnn_fwd_p.abstract_eval, mlir._platform_specific_lowerings["cpu"].get(rnn.rnn_fwd_p))

    with jax.default_device(jax.devices("cpu")[0]), jax_support.cudnn_lstm_on_cpu() as recorder:
        actual = lstm(x, h_0, c_0, weights, lengths)
        unpacked = rnn.unpack_lstm_weights(weights, input_size, hidden_size, num_layers, bidirectional)
        expected = rnn.lstm_ref(
            x, h_0, c_0, *unpacked, lengths, input_size, hidden_size, num_layers, 0.0, bidirectional
        )

    jax_support.assert_close(actual, expected)
    assert (rnn.rnn_fwd_p.abstract_eval, mlir._platform_specific_lowerings["cpu"].get(rnn.rnn_fwd_p)) == cuda_only_rules
    assert recorder.calls == [
        jax_support.LstmCall(("float32",) * 4 + ("int32",), cudnn_allow_tf32=False)
    ]
