"""Helpers for tests that lower and run programs with jax (no tests here).

The examples in examples/ reproduce jax NotImplementedErrors on a CPU: cross-platform lowering
(`jax.export` with platforms=["tpu"] / ["cuda"]) runs the real Pallas lowering rules, interpret
mode runs kernels, and `cudnn_lstm_on_cpu` stands in for cuDNN's LSTM.
"""

from __future__ import annotations

import contextlib
import dataclasses
import linecache
import os
import sys
import types
from pathlib import Path
from typing import Iterator, Optional, Sequence, Union

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import rnn
from jax.interpreters import mlir

from codemods.capabilities import Version, format_version, parse_version

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
EXAMPLE_PATHS = sorted(EXAMPLES_DIR.glob("*.py"))
JAX_VERSION: Version = parse_version(jax.__version__)


def load_program(path_or_source: Union[str, os.PathLike], name: str) -> types.ModuleType:
    """Import a program as a fresh module named `name`.

    A PathLike, or a one-line str, is a file to read; any other str is source text (e.g. the
    codemod's output), registered with linecache so tracebacks show the rewritten lines.
    """
    if isinstance(path_or_source, os.PathLike) or "\n" not in path_or_source:
        filename = os.fspath(path_or_source)
        source = Path(filename).read_text()
    else:
        filename = f"<program {name}>"
        source = path_or_source
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    exec(compile(source, filename, "exec"), module.__dict__)
    return module


def jax_too_old(program: types.ModuleType) -> Optional[str]:
    """A skip reason when the installed jax predates the program's MIN_JAX, else None."""
    if JAX_VERSION < program.MIN_JAX:
        return (
            f"{program.__name__} needs jax >= {format_version(program.MIN_JAX)} "
            f"(installed {jax.__version__})"
        )
    return None


# The TPU a kernel that asks which one it runs on (pltpu.emit_pipeline, TPU meshes) is told about on a
# machine without one.
ABSTRACT_TPU_KIND = "TPU v5 lite"


@contextlib.contextmanager
def abstract_tpu() -> Iterator[None]:
    """Mosaic TPU kernels that ask which TPU they run on get an abstract one on a CPU-only machine."""
    device = jax.sharding.AbstractDevice(device_kind=ABSTRACT_TPU_KIND, platform="tpu", num_cores=1)
    with jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((1,), ("x",), abstract_device=device)):
        yield


@contextlib.contextmanager
def mosaic_ops(name: str) -> Iterator[list]:
    """Each `tpu.<name>` op the Mosaic TPU lowering builds meanwhile, as (args, kwargs): what a CPU
    sees of the ops whose behaviour only the chip shows (a `tpu.log` that aborts its compiler, a
    `tpu.reduce_index` that breaks ties its own way)."""
    from jax._src.pallas.mosaic import lowering

    built, build = [], getattr(lowering.tpu, name)

    def recorded(*args, **kwargs):
        built.append((args, kwargs))
        return build(*args, **kwargs)

    setattr(lowering.tpu, name, recorded)
    try:
        yield built
    finally:
        setattr(lowering.tpu, name, build)


def lower(fn, args: Sequence, platform: Optional[str]) -> jax.export.Exported:
    """Lower the jitted `fn` for `platform` ("tpu", "cuda"; None: this machine's backend)."""
    platforms = None if platform is None else [platform]
    return jax.export.export(fn, platforms=platforms)(*args)


def lowering_error(fn, args: Sequence, platform: Optional[str]) -> Optional[str]:
    """The NotImplementedError message lowering raises, or None when it lowers.

    Any other failure propagates, so a program that breaks differently is not mistaken for one
    that hits (or avoids) the expected error.
    """
    try:
        lower(fn, args, platform)
    except Exception as error:
        not_implemented = _find_not_implemented(error)
        if not_implemented is None:
            raise
        return str(not_implemented)
    return None


def _find_not_implemented(error: BaseException) -> Optional[NotImplementedError]:
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, NotImplementedError):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def assert_close(
    actual, expected, *, rtol: Optional[float] = None, atol: Optional[float] = None
) -> None:
    """Compare (pytrees of) arrays at what each actual leaf's dtype can hold.

    1e-5 for float32; bfloat16/float16 leaves get their machine epsilon, so a fix that keeps a bf16
    model's output dtype is judged by bf16 rounding (whether the math inside ran in float32 is for
    `cudnn_lstm_on_cpu`'s recorder to say). Explicit rtol/atol override both.
    """
    actual_leaves, actual_tree = jax.tree.flatten(actual)
    expected_leaves, expected_tree = jax.tree.flatten(expected)
    assert actual_tree == expected_tree, f"{actual_tree} != {expected_tree}"
    for got, want in zip(actual_leaves, expected_leaves):
        assert np.shape(got) == np.shape(want), f"shape {np.shape(got)} != {np.shape(want)}"
        tolerance = _tolerance(np.asarray(got).dtype)
        np.testing.assert_allclose(
            np.asarray(got, np.float32),
            np.asarray(want, np.float32),
            rtol=tolerance if rtol is None else rtol,
            atol=tolerance if atol is None else atol,
        )


def _tolerance(dtype) -> float:
    if jnp.issubdtype(dtype, jnp.floating):
        return max(1e-5, float(jnp.finfo(dtype).eps))
    return 1e-5


def run_matches_reference(program: types.ModuleType, **tolerances) -> None:
    """Run the program's entry point on the CPU (kernels interpreted, cuDNN stood in for) and
    compare it with its plain-XLA reference.

    Pinned to the CPU even where an accelerator exists: the stand-in is CPU-only, and a GPU's
    TF32 default would blur the comparison.
    """
    with jax.default_device(jax.devices("cpu")[0]):
        fn, args = program.build(interpret=True)
        with cudnn_lstm_on_cpu():
            actual = fn(*args)
        assert_close(actual, program.reference(*args), **tolerances)


@dataclasses.dataclass(frozen=True)
class LstmCall:
    """What one cuDNN LSTM launch was given."""

    dtypes: tuple[str, ...]  # x, h_0, c_0, weights, seq_lengths
    cudnn_allow_tf32: bool


@dataclasses.dataclass
class LstmRecorder:
    calls: list[LstmCall] = dataclasses.field(default_factory=list)


@contextlib.contextmanager
def cudnn_lstm_on_cpu() -> Iterator[LstmRecorder]:
    """Let `jax.experimental.rnn.lstm` run on the CPU, recording what each launch was given.

    `rnn_fwd_p` only has cuda/rocm lowerings, and its abstract eval asks the CUDA plugin for the
    reserve-space size, so both are replaced: shapes from the LSTM contract, numerics from
    `rnn.lstm_ref`. A call is recorded each time the primitive is lowered (once per compiled
    program, not per execution). Forward only: `rnn_bwd_p` is left alone. CPU only: inside the
    context, lower LSTMs for the CPU (the replaced shapes no longer match real cuDNN's). On exit
    the original rules come back and jax's caches are cleared, so nothing compiled with the
    stand-in outlives it.
    """
    recorder = LstmRecorder()
    primitive = rnn.rnn_fwd_p
    cpu_rules = mlir._platform_specific_lowerings["cpu"]
    saved_abstract_eval = primitive.abstract_eval
    saved_cpu_rule = cpu_rules.get(primitive)

    def lower_on_cpu(ctx, *operands, **params):
        recorder.calls.append(
            LstmCall(tuple(str(aval.dtype) for aval in ctx.avals_in), params["cudnn_allow_tf32"])
        )
        return mlir.lower_fun(_lstm_forward_on_cpu, multiple_results=True)(ctx, *operands, **params)

    primitive.def_abstract_eval(_lstm_forward_shapes)
    mlir.register_lowering(primitive, lower_on_cpu, platform="cpu")
    try:
        yield recorder
    finally:
        primitive.abstract_eval = saved_abstract_eval
        if saved_cpu_rule is None:
            cpu_rules.pop(primitive, None)
        else:
            cpu_rules[primitive] = saved_cpu_rule
        jax.clear_caches()


def _lstm_forward_shapes(x, h_0, c_0, weights, seq_lengths, *, hidden_size, bidirectional, **_):
    batch, steps = x.shape[:2]
    directions = 2 if bidirectional else 1
    y = jax.core.ShapedArray((batch, steps, directions * hidden_size), x.dtype)
    no_reserve_space = jax.core.ShapedArray((0,), jnp.float32)
    return y, h_0, c_0, no_reserve_space


def _lstm_forward_on_cpu(
    x, h_0, c_0, weights, seq_lengths, *, input_size, hidden_size, num_layers, dropout,
    bidirectional, cudnn_allow_tf32,
):
    del cudnn_allow_tf32  # the CPU has no TF32; the recorder keeps what was asked for
    w_ih, w_hh, b_ih, b_hh = rnn.unpack_lstm_weights(
        weights, input_size, hidden_size, num_layers, bidirectional
    )
    y, h_n, c_n = rnn.lstm_ref(
        x, h_0, c_0, w_ih, w_hh, b_ih, b_hh, seq_lengths,
        input_size, hidden_size, num_layers, dropout, bidirectional,
    )
    return y.astype(x.dtype), h_n.astype(h_0.dtype), c_n.astype(c_0.dtype), jnp.zeros((0,), jnp.float32)
