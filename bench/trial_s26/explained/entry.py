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


def _notebook(name):
    ns = {}
    cells = json.loads((HERE / "notebooks" / "demo.ipynb").read_text())["cells"]
    for cell in cells:
        if cell["cell_type"] == "code":
            exec("".join(cell["source"]), ns)
    return ns[name]


def _layer(cls, *args, **kw):
    def run(*xs):
        import lumen
        return getattr(lumen, cls)(*args, **kw)(*xs)
    return run


ENTRIES = {
    "mm_static": ("lumen.ops:matmul", lambda: (_f32(), _w())),
    "mm_cfg": ("lumen.ops:matmul_cfg", lambda: (_f32(), _w())),
    "mm_preset": ("lumen.ops:matmul_preset", lambda: (_f32(), _w())),
    "mm_load": ("lumen.ops:mm_load", lambda: (_f32(), _w())),
    "dense_cls": ("layer:Dense", lambda: (_f32(),)),
    "cli_mm": ("lumen.cli:cli_mm", lambda: (_f32(), _w())),
    "softplus_kw": ("lumen.ops:softplus", lambda: (_f32(),)),
    "rms_method": ("layer:RMSNorm", lambda: (_f32(),)),
    "sinh_partial": ("lumen.ops:sinh", lambda: (_f32(),)),
    "elu_alias": ("lumen.ops:elu_half", lambda: (_f32(),)),
    "elu_gate_cls": ("layer:EluGate", lambda: (_f32(),)),
    "erfc_scipy": ("lumen.ops:erfc_gate", lambda: (_f32(),)),
    "absmax_i8": ("lumen.ops:absmax_i8", lambda: (_f32(),)),
    "requant_i8": ("lumen.ops:requant", lambda: (_f32(),)),
    "argmin_x64": ("lumen.precise:argmin_rows", lambda: (_f32(),)),
    "iota_x64": ("lumen.precise:even_cols", lambda: (_f32(),)),
    "gather_row": ("lumen.ops:gather_row", lambda: (_f32(),)),
    "probe_bf16": ("lumen.ops:probe", lambda: (_f32(),)),
    "step_print": ("lumen.ops:step_print", lambda: (_f32(),)),
    "nb_cosh": ("notebook:nb_cosh", lambda: (_f32(),)),
    "nb_mm": ("notebook:nb_mm", lambda: (_f32(), _w())),
    "nb_norm": ("notebook:nb_norm", lambda: (_f32(),)),
    "xla_rms": ("lumen.reference:rms_ref", lambda: (_f32(),)),
    "xla_mm": ("lumen.reference:mm_ref", lambda: (_f32(), _w())),
    "xla_softplus": ("lumen.reference:softplus_ref", lambda: (_f32(),)),
    "xla_tanh": ("lumen.reference:tanh_ref", lambda: (_f32(),)),
    "xla_scale": ("lumen.reference:scale_ref", lambda: ({"a": _f32(), "b": _w()},)),
    "nb_tanh_xla": ("notebook:nb_tanh_xla", lambda: (_f32(),)),
}


def load(name):
    target, make = ENTRIES[name]
    mod, fn = target.split(":")
    if mod == "notebook":
        return _notebook(fn), make()
    if mod == "layer":
        args = {"Dense": (_w(),)}.get(fn, ())
        return _layer(fn, *args), make()
    return getattr(importlib.import_module(mod), fn), make()
