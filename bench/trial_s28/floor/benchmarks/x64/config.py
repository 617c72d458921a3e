"""This benchmark runs with 64-bit types on (the host-side statistics need them)."""
import jax

jax.config.update("jax_enable_x64", True)

BLOCK = (8, 128)
