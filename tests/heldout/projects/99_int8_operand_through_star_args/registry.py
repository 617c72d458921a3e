"""Kernels by name: filled by the decorator as each kernel module is imported."""
KERNELS = {}


def register(name):
    def add(fn):
        KERNELS[name] = fn
        return fn
    return add
