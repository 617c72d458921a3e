"""Launches: custom derivatives, maps over launches, partials and a generic launcher."""
import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.shard_map import shard_map
from jax.sharding import Mesh, PartitionSpec as P

from helix import prec
from helix.kernels import factory, grads, loops

Precision = lax.Precision


def launch[T: jax.Array](body: Callable[..., None], *xs: T, grid: tuple[int, ...] = ()) -> T:
    """One pallas_call of `body` whose output is shaped as the product x @ w (or as x alone)."""
    x = xs[0]
    cols = xs[1].shape[1] if len(xs) > 1 else x.shape[1]
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct((x.shape[0], cols), jnp.float32), grid=grid)(*xs)


# -- nested bodies ---------------------------------------------------------------------------------

def fori_mm(x, w):
    return launch(loops.fori_kernel, x, w)


def decay(x):
    return launch(functools.partial(loops.decay_kernel, steps=2), x)


def first_tanh(x):
    return launch(loops.when_kernel, x, grid=(1,))


def scoped_mm(x, w):
    return launch(loops.scoped_mixed, x, w)


def pipeline_mm(x, w):
    return loops.launch_pipeline(x, w)


# -- custom derivatives ----------------------------------------------------------------------------

BWD_PRECISION = (Precision.HIGHEST, Precision.DEFAULT)


@jax.custom_vjp
def project(x, w):
    return launch(grads.proj_fwd_kernel, x, w)


def _project_fwd(x, w):
    return project(x, w), (w,)


def _project_bwd(res, g):
    (w,) = res
    dx = launch(functools.partial(grads.proj_bwd_kernel, precision=BWD_PRECISION), g, w.T)
    return dx, jnp.zeros_like(w)


project.defvjp(_project_fwd, _project_bwd)


def project_grad(x, w):
    return jax.grad(lambda a: project(a, w).sum())(x)


@jax.custom_vjp
def swish(x):
    return _swish_fwd(x)[0]


def _swish_fwd(x):
    shape = jax.ShapeDtypeStruct(x.shape, jnp.float32)
    y, s = pl.pallas_call(grads.swish_fwd_kernel, out_shape=(shape, shape))(x)
    return y, (x, s)


def _swish_bwd(res, g):
    x, s = res
    return (pl.pallas_call(grads.swish_bwd_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32))(x, s, g),)


swish.defvjp(_swish_fwd, _swish_bwd)


@jax.custom_jvp
def scale_mm(x, w):
    return 2.0 * (x @ w)


@scale_mm.defjvp
def _scale_mm_jvp(primals, tangents):
    x, w = primals
    tx, _ = tangents
    return scale_mm(x, w), 2.0 * launch(grads.tangent_kernel, tx, w)


def scale_mm_tangent(x, w):
    return jax.jvp(lambda a: scale_mm(a, w), (x,), (jnp.ones_like(x),))[1]


# -- maps over a launch ----------------------------------------------------------------------------

def proj(x, w, precision=Precision.DEFAULT):
    return launch(factory.make_proj_kernel(precision), x, w)


def vmap_proj(xs, w):
    return jax.vmap(functools.partial(proj, precision=(Precision.DEFAULT, Precision.HIGH)), in_axes=(0, None))(xs, w)


def _softsign_block(x):
    return launch(factory.make_softsign_kernel(accuracy=prec.TOL), x)


def sharded_softsign(x):
    mesh = Mesh(np.array(jax.devices()[:1]), ("rows",))
    return shard_map(_softsign_block, mesh, in_specs=P("rows"), out_specs=P("rows"), check_rep=False)(x)


# -- partials and modes ----------------------------------------------------------------------------

def tree_partial_mm(x, w):
    body = jax.tree_util.Partial(factory.scaled_dot, precision=(Precision.HIGH, Precision.DEFAULT), scale=0.5)
    return launch(body, x, w)


@functools.partial(jax.jit, static_argnames="mode")
def mode_mm(x, w, mode="mixed"):
    return launch(functools.partial(factory.mode_kernel, precision=prec.precision_for(mode)), x, w)
