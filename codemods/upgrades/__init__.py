"""The JAX1xx upgrade rules' machinery: the shared scan, the transform, and the call rewrites."""
