"""The trial's entries: name -> (a function of the project, how to build its inputs)."""
import importlib
import json
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).parent


def _f32(rows=8, cols=128, seed=0):
    return np.random.RandomState(seed).uniform(-2.0, 2.0, size=(rows, cols)).astype(np.float32)


def _w(seed=7):
    return _f32(128, 128, seed) / 8.0


def _seq():
    return np.random.RandomState(3).uniform(-1.0, 1.0, size=(2, 8, 128)).astype(np.float32)


def _probs():
    p = np.abs(_f32(8, 128, 5))
    return p / p.sum(axis=-1, keepdims=True)


def _notebook(name):
    ns = {}
    cells = json.loads((HERE / "notebooks" / "explore.ipynb").read_text())["cells"]
    for cell in cells:
        if cell["cell_type"] == "code":
            exec("".join(cell["source"]), ns)
    return ns[name]


ENTRIES = {
    "attn_scores": ("models.blocks:attn_scores", lambda: (_f32(), _f32(128, 128, 1))),
    "attn_softmax": ("models.blocks:attn_softmax", lambda: (_f32(),)),
    "attn_pv": ("models.blocks:attn_pv", lambda: (_probs(), _f32(128, 128, 2))),
    "erfc_gate": ("models.blocks:erfc_gate", lambda: (_f32(),)),
    "rms_factory": ("models.blocks:rms", lambda: (_f32(),)),
    "proj_factory": ("models.blocks:proj", lambda: (_f32(), _w())),
    "gelu_kwargs": ("models.blocks:gelu_tol", lambda: (_f32(),)),
    "angle_factory": ("models.blocks:angle", lambda: (_f32(),)),
    "wrap_factory": ("models.blocks:wrap", lambda: (_f32(),)),
    "sinh_method": ("models.blocks:hyper", lambda: (_f32(),)),
    "dense_f32": ("models.blocks:dense_f32", lambda: (_f32(), _w())),
    "dense_bf16": ("models.blocks:dense_bf16", lambda: (_f32(16), _w())),
    "dense_pair": ("models.blocks:dense_pair", lambda: (_f32(), _w())),
    "ffn_kwargs": ("models.blocks:ffn", lambda: (_f32(), _w())),
    "legacy_proj": ("models.legacy:clipped_proj", lambda: (_f32(16), _w())),
    "remat_fix": ("models.legacy:remat_mlp", lambda: (_f32(), _w())),
    "pl_dot": ("models.legacy:pl_dot", lambda: (_f32(), _w())),
    "lstm_bf16": ("models.encoder:encode", lambda: (_seq(),)),
    "xla_scores": ("models.reference:scores_ref", lambda: (_f32(), _f32(128, 128, 1))),
    "xla_hints": ("models.reference:gelu_ref", lambda: (_f32(),)),
    "xla_ffn": ("models.reference:ffn_ref", lambda: (_f32(), _w())),
    "xla_legacy": ("models.reference:param_norm", lambda: ({"a": _f32(), "b": _w()},)),
    "nb_mix": ("notebook:nb_mix", lambda: (_f32(), _w())),
    "nb_mix_xla": ("notebook:nb_mix_xla", lambda: (_f32(), _w())),
    "nb_flat": ("notebook:nb_flat", lambda: ({"a": _f32(), "b": _w()},)),
}


def load(name):
    target, make = ENTRIES[name]
    mod, fn = target.split(":")
    if mod == "notebook":
        return _notebook(fn), make()
    return getattr(importlib.import_module(mod), fn), make()
