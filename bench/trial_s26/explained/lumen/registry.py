"""Kernels by name: `@register("mm")` on a kernel body, `KERNELS["mm"]` to launch it."""
from typing import Callable

KERNELS: dict[str, Callable] = {}


def register(name=None):
    def deco(fn):
        KERNELS[name or fn.__name__] = fn
        return fn

    return deco
