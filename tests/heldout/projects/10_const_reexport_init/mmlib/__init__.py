"""The library's public names."""
from .numerics import DOT_PRECISION
from .ops import matmul

__all__ = ["DOT_PRECISION", "matmul"]
