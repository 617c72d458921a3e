"""Pallas TPU kernels of tinyattn."""
from tkern.attn import AttnKernels

__all__ = ["AttnKernels"]
