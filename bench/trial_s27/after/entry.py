"""The trial's entries: name -> (a function of the project, how to build its inputs); PLATFORM: where
an entry is lowered when not for TPU (a Mosaic GPU kernel, the cuDNN LSTM)."""
import importlib

import numpy as np


def _f32(rows=8, cols=128, seed=0):
    return np.random.RandomState(seed).uniform(-2.0, 2.0, size=(rows, cols)).astype(np.float32)


def _w(seed=7):
    return _f32(128, 128, seed) / 8.0


def _seq():
    import jax
    from helix import seq
    return np.asarray(seq.init(jax.random.PRNGKey(0), 16)), _f32(2, 128, 3).reshape(2, 8, 16)


ENTRIES = {
    "fori_mm": ("helix.ops:fori_mm", lambda: (_f32(), _w())),
    "decay_lambda": ("helix.ops:decay", lambda: (_f32(),)),
    "when_tanh": ("helix.ops:first_tanh", lambda: (_f32(),)),
    "scoped_mm": ("helix.ops:scoped_mm", lambda: (_f32(), _w())),
    "pipeline_mm": ("helix.ops:pipeline_mm", lambda: (_f32(16), _w())),
    "vjp_proj": ("helix.ops:project_grad", lambda: (_f32(), _w())),
    "vjp_swish": ("helix.ops:swish", lambda: (_f32(),)),
    "jvp_tangent": ("helix.ops:scale_mm_tangent", lambda: (_f32(), _w())),
    "vmap_factory": ("helix.ops:vmap_proj", lambda: (np.stack([_f32(), _f32(seed=1)]), _w())),
    "shard_softsign": ("helix.ops:sharded_softsign", lambda: (_f32(),)),
    "tree_partial": ("helix.ops:tree_partial_mm", lambda: (_f32(), _w())),
    "match_mode": ("helix.ops:mode_mm", lambda: (_f32(), _w())),
    "gpu_rms": ("helix.gpu:rms_gpu", lambda: (_f32(16, 256),)),
    "gpu_fori_tanh": ("helix.gpu:gelu_gpu", lambda: (_f32(16, 256),)),
    "lstm_train": ("helix.train:train_step", _seq),
    "tile_repeat": ("helix.legacy:tile", lambda: (_f32(),)),
    "xla_mm": ("helix.reference:mm_ref", lambda: (_f32(), _w())),
    "xla_mode": ("helix.reference:mode_ref", lambda: (_f32(), _w())),
    "xla_tanh": ("helix.reference:tanh_ref", lambda: (_f32(),)),
    "xla_fori": ("helix.reference:fori_ref", lambda: (_f32(), _w())),
    "xla_rms_gpu": ("helix.gpu:rms_xla", lambda: (_f32(16, 256),)),
    "xla_leaves": ("helix.legacy:leaf_count", lambda: ({"a": _f32(), "b": _w()},)),
}

# entries whose kernels ask which TPU they run on: lowered under an abstract one
ABSTRACT_TPU = {"scoped_mm", "pipeline_mm"}
PLATFORM = {"gpu_rms": "cuda", "gpu_fori_tanh": "cuda", "xla_rms_gpu": "cuda", "lstm_train": "cuda"}


def load(name):
    target, make = ENTRIES[name]
    mod, fn = target.split(":")
    return getattr(importlib.import_module(mod), fn), make()
