import kernels
import launchers


def matmul_gpu(x, w):
    return launchers.launch_gpu(kernels.tile_matmul, x, w)


def matmul(x, w, backend="tpu"):
    return getattr(launchers, f"launch_{backend}")(kernels.tile_matmul, x, w)
