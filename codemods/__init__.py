"""jax-codemod: libcst transforms for JAX code that hits unsupported-precision errors."""

__version__ = "0.1.0"
