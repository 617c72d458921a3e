"""The trial's entries: name -> ("FOLDER:MODULE:FUNCTION", how to build its inputs). FOLDER is the
import root the entry's process runs from, as its script would (`python run.py` in
examples/attention puts that folder first on sys.path; pytest puts tests/ there); "." is the repo's
root (the `orca` library); a MODULE ending in .ipynb is a notebook, its code cells run in order."""
import importlib
import json
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def _f32(rows=8, cols=128, seed=0):
    return np.random.RandomState(seed).uniform(-2.0, 2.0, size=(rows, cols)).astype(np.float32)


def _w(seed=7):
    return _f32(128, 128, seed) / 8.0


def _qk():
    return _f32(), _w()


def _x():
    return (_f32(),)


ENTRIES = {
    "attn_scores": ("examples/attention:run:scores", _qk),
    "attn_checked": ("examples/attention:run:checked_scores", _qk),
    "attn_body": ("examples/attention:run:body_scores", _qk),
    "attn_project": ("examples/attention:run:project", _qk),
    "attn_values": ("examples/attention:run:values", _qk),
    "nb_attn": ("examples/attention:demo.ipynb:nb_scores", _qk),
    "quant_requant": ("examples/quantize:run:requant", _x),
    "quant_absmax": ("examples/quantize:run:absmax", _x),
    "quant_sizes": ("examples/quantize:run:sizes", lambda: ({"a": _f32(), "b": _w()},)),
    "sm_body": ("benchmarks/softmax:run:body", _qk),
    "sm_softmax": ("benchmarks/softmax:run:softmax", _x),
    "sm_hinted": ("benchmarks/softmax:run:softmax_hinted", _x),
    "sm_tail": ("benchmarks/softmax:run:tail", _x),
    "sm_swish": ("benchmarks/softmax:run:swish", _x),
    "sm_family": ("benchmarks/softmax:run:family", _qk),
    "x64_even": ("benchmarks/x64:run:even", lambda: (_f32(16),)),
    "x64_argmin": ("benchmarks/x64:run:argmin", lambda: (_f32(16),)),
    "x64_gate": ("benchmarks/x64:run:gate", _x),
    "test_tanh": ("tests:helpers:tanh_pallas", _x),
    "tour_mm": (".:notebooks/tour.ipynb:tour_mm", _qk),
    "tour_act": (".:notebooks/tour.ipynb:tour_act", _x),
    "xla_requant": ("examples/quantize:utils:requant_ref", _x),
    "xla_softmax": ("benchmarks/softmax:run:xla_softmax", _x),
    "xla_body": ("benchmarks/softmax:ops:body_xla", _qk),
    "xla_tanh": ("tests:helpers:tanh_xla", _x),
    "xla_mm": (".:orca.reference:mm_ref", _qk),
    "xla_act": (".:orca.reference:act_ref", _x),
}

ABSTRACT_TPU = set()
PLATFORM = {}


def load(name):
    """The entry's function, imported with its folder first on sys.path (then taken off again, so
    that the next entry in the same process finds its own folder's `utils`), and its inputs."""
    target, make = ENTRIES[name]
    folder, mod, fn = target.split(":")
    root = str(HERE / folder)
    for stale in [m for m in ("config", "kernels", "utils", "run", "ops", "helpers") if m in sys.modules]:
        del sys.modules[stale]
    sys.path.insert(0, root)
    try:
        if mod.endswith(".ipynb"):
            ns = {"__name__": "notebook"}
            for cell in json.loads((HERE / folder / mod).read_text())["cells"]:
                if cell["cell_type"] == "code":
                    exec("".join(cell["source"]), ns)
            return ns[fn], make()
        return getattr(importlib.import_module(mod), fn), make()
    finally:
        sys.path.remove(root)
