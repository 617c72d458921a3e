"""The trial's entries: name -> (a function of the project, how to build its inputs)."""
import importlib
import json
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).parent


def _f32(rows=8):
    return (np.arange(rows * 128, dtype=np.float32).reshape(rows, 128) % 37 - 18) / 7.0


def _i32(rows=8, seed=0):
    return np.random.RandomState(seed).randint(-100, 100, size=(rows, 128)).astype(np.int32)


def _pos(rows=8):
    return np.abs(_f32(rows)) + 0.25


def _notebook(name):
    ns = {}
    cells = json.loads((HERE / "notebooks" / "trial.ipynb").read_text())["cells"]
    for cell in cells:
        if cell["cell_type"] == "code":
            exec("".join(cell["source"]), ns)
    return ns[name]


ENTRIES = {
    "qmax_local": ("models.layers:qmax_local", lambda: (_i32(),)),
    "qmax_param": ("models.layers:qmax_param", lambda: (_i32(),)),
    "qmax_operand": ("models.layers:qmax_operand", lambda: (_i32(),)),
    "qshift16": ("models.layers:qshift16", lambda: (_i32() * 300,)),
    "qadd8": ("models.layers:qadd8", lambda: (_i32(seed=1), _i32(seed=2))),
    "x64_argbest": ("models.x64model:argbest", lambda: (_f32(),)),
    "x64_count": ("models.x64model:count", lambda: (_f32(),)),
    "x64_onehot": ("models.x64model:onehot_best", lambda: (_f32(),)),
    "rows": ("models.layers:rows", lambda: (_f32(16),)),
    "rows_helper": ("models.layers:rows_helper", lambda: (_f32(16),)),
    "atan": ("models.layers:atan", lambda: (_f32(),)),
    "act_table": ("models.layers:act", lambda: (_f32(),)),
    "spinv_helper": ("models.layers:spinv", lambda: (_pos(),)),
    "cumsum_cfg": ("models.layers:cumsum", lambda: (_f32(),)),
    "erfc_kwargs": ("models.layers:erfc", lambda: (_f32(),)),
    "debug_bf16": ("models.layers:debug_scaled", lambda: (_f32(),)),
    "tuned_params": ("models.tuned:tuned_atan", lambda: (_f32(),)),
    "legacy_tree": ("models.layers:tree_sum", lambda: ({"a": _f32(), "b": _f32()},)),
    "nb_asin": ("notebook:nb_asin", lambda: (_f32() / 20.0,)),
}


def load(name):
    target, make = ENTRIES[name]
    mod, fn = target.split(":")
    if mod == "notebook":
        return _notebook(fn), make()
    return getattr(importlib.import_module(mod), fn), make()
