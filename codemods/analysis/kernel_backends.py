"""Which backends a Pallas launch can reach: the launchers jax defines, and what a launch's compiler
params, backend name or mesh say (Mosaic TPU, Mosaic GPU, Triton); and what its compiler params say
beyond the backend (a dict spelling, Mosaic GPU's approx_math)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional

from codemods.analysis.flow.flow_facts import Backends
from codemods.analysis.module import MAX_ALIAS_DEPTH, ModuleIndex
from codemods.analysis.names import PARTIAL, find_arg, value_of

MOSAIC_TPU, MOSAIC_GPU, TRITON = "mosaic_tpu", "mosaic_gpu", "triton"


@dataclass(frozen=True)
class Launcher:
    body_position: Optional[int]  # where the kernel body sits among its arguments; None: decorator only
    backends: Backends  # what it can lower for when nothing at the launch says which
    # Arguments that say which backend: keyword -> position (None: keyword only).
    selectors: tuple[tuple[str, Optional[int]], ...] = ()
    body_keyword: str = "body"  # the body's parameter name


_PALLAS = "jax.experimental.pallas."
_BY_PARAMS = (("compiler_params", None), ("backend", None))
_BY_MESH = (("mesh", None),)
LAUNCHERS: dict[str, Launcher] = {
    # No compiler params: Mosaic TPU on a TPU, Triton on a GPU (shared/NOTES.md, "Kernel backends").
    _PALLAS + "pallas_call": Launcher(0, frozenset({MOSAIC_TPU, TRITON}), _BY_PARAMS, "kernel"),
    _PALLAS + "kernel": Launcher(0, frozenset({MOSAIC_TPU, MOSAIC_GPU}), _BY_MESH + _BY_PARAMS),
    _PALLAS + "core_map": Launcher(None, frozenset({MOSAIC_TPU, MOSAIC_GPU}), (("mesh", 0),) + _BY_PARAMS),
    _PALLAS + "mosaic_gpu.kernel": Launcher(0, frozenset({MOSAIC_GPU})),
    _PALLAS + "mosaic_gpu.emit_pipeline": Launcher(0, frozenset({MOSAIC_GPU})),
    _PALLAS + "mosaic_gpu.emit_pipeline_warp_specialized": Launcher(0, frozenset({MOSAIC_GPU})),
    _PALLAS + "tpu.emit_pipeline": Launcher(0, frozenset({MOSAIC_TPU})),
    _PALLAS + "tpu.emit_pipeline_with_allocations": Launcher(0, frozenset({MOSAIC_TPU})),
}
BACKEND_NAMES = {MOSAIC_TPU: "Mosaic TPU", MOSAIC_GPU: "Mosaic GPU", TRITON: "Triton"}


def describe_backends(backends: Backends) -> str:
    """`{"mosaic_tpu", "triton"}` -> "Mosaic TPU and Triton"."""
    return " and ".join(sorted(BACKEND_NAMES.get(backend, backend) for backend in backends))


# The backend whose module defines a CompilerParams class or a mesh (users alias all three
# `CompilerParams` under other names: the module, not the name, says which).
BACKEND_MODULES = (
    (_PALLAS + "tpu.", MOSAIC_TPU), ("jax._src.pallas.mosaic.", MOSAIC_TPU),
    (_PALLAS + "mosaic_gpu.", MOSAIC_GPU), ("jax._src.pallas.mosaic_gpu.", MOSAIC_GPU),
    (_PALLAS + "triton.", TRITON), ("jax._src.pallas.triton.", TRITON),
)
# `compiler_params=dict(mosaic=...)` / `{"triton": {...}}`, and `backend="..."`: the older spellings.
BACKEND_WORDS = {"mosaic": MOSAIC_TPU, "mosaic_tpu": MOSAIC_TPU, "tpu": MOSAIC_TPU,
                  "mosaic_gpu": MOSAIC_GPU, "triton": TRITON}


class LaunchBackends:
    """What the launches of one module say of their backends, read through its assignments."""

    def __init__(self, module: ModuleIndex) -> None:
        self.module = module

    def of_launch(self, launcher: str, launch: list[ast.Call]) -> Backends:
        """What the launch's compiler params, backend or mesh say; else all the launcher can reach."""
        spec = LAUNCHERS[launcher]
        for keyword, position in spec.selectors:
            for call in launch:
                # A partial's own positional arguments are shifted by the callee it binds.
                shift = 1 if self.module.callee(call, PARTIAL) else 0
                argument = find_arg(call, None if position is None else position + shift, (keyword,))
                if argument is not None:
                    found = self.of_value(value_of(argument), MAX_ALIAS_DEPTH)
                    if found:
                        return found & spec.backends or found
        return spec.backends

    def of_value(self, value: ast.expr, depth: int) -> Optional[Backends]:
        """The backend a compiler-params object, mesh or backend name belongs to (None: unknown)."""
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            found = BACKEND_WORDS.get(value.value.lower())
            return frozenset({found}) if found else None
        if isinstance(value, ast.Dict):
            words = {BACKEND_WORDS.get(k.value) for k in value.keys if isinstance(k, ast.Constant)}
            return frozenset(words - {None}) or None  # type: ignore[arg-type]
        if isinstance(value, ast.Call):
            if isinstance(value.func, ast.Name) and value.func.id == "dict" and not self.module.bindings(value.func):
                words = {BACKEND_WORDS.get(k.arg or "") for k in value.keywords}
                return frozenset(words - {None}) or None  # type: ignore[arg-type]
            value = value.func
        if isinstance(value, ast.Name) and depth > 0:
            found = [self.of_value(v, depth - 1) for v in self.assigned_values(value)]
            if found and all(found):
                return frozenset().union(*found)  # type: ignore[arg-type]
        for name in self.module.qualified_names(value):
            for prefix, backend in BACKEND_MODULES:
                if name.startswith(prefix):
                    return frozenset({backend})
        return None

    def compiler_params_spelling(self, launch: Iterable[ast.Call]) -> tuple[bool, bool]:
        """Whether the launch passes `compiler_params` as a dict (`dict(mosaic=...)`), and whether as
        `plgpu.CompilerParams(approx_math=True)` (see KernelScope.dict_compiler_params, approx_math)."""
        as_dict = approx_math = False
        for call in launch:
            argument = find_arg(call, None, ("compiler_params",))
            values = [value_of(argument)] if argument is not None else []
            for _ in range(MAX_ALIAS_DEPTH):  # through `params = ...` variables
                values += [v for value in values if isinstance(value, ast.Name) for v in self.assigned_values(value)
                           if v not in values]
            for value in values:
                if isinstance(value, ast.Dict) or (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                                                   and value.func.id == "dict" and not self.module.bindings(value.func)):
                    as_dict = True
                elif isinstance(value, ast.Call) and self.of_value(value, 0) == {MOSAIC_GPU} and any(
                        k.arg == "approx_math" and not (isinstance(k.value, ast.Constant) and not k.value.value)
                        for k in value.keywords):
                    approx_math = True
        return as_dict, approx_math

    def assigned_values(self, name: ast.Name) -> Iterator[ast.expr]:
        """The right-hand sides of plain `name = value` assignments `name` may refer to."""
        for binding in self.module.bindings(name):
            if binding.value is not None:
                yield binding.value
