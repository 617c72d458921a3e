"""One training step of the encoder, in bfloat16."""
import jax
import jax.numpy as jnp

from helix import seq


def loss(weights, x):
    return jnp.mean(seq.encode(weights, x.astype(jnp.bfloat16), precision="bfloat16").astype(jnp.float32) ** 2)


def train_step(weights, x, lr=1e-2):
    value, grad = jax.value_and_grad(loss)(weights, x)
    return value, weights - lr * grad
