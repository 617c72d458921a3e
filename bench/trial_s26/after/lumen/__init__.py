"""lumen: Pallas TPU kernels by name, and the layers that call them."""
from lumen import kernels as _kernels  # noqa: F401  (registers every kernel)
from lumen.config import CFG, KernelConfig
from lumen.layers import Dense, EluGate, RMSNorm
from lumen.ops import apply, matmul, matmul_cfg, matmul_preset, softplus
from lumen.registry import KERNELS, register

__all__ = [
    "CFG", "KernelConfig", "Dense", "EluGate", "RMSNorm", "apply", "matmul", "matmul_cfg",
    "matmul_preset", "softplus", "KERNELS", "register",
]
