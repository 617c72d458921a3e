from lumen.kernels import act, index, linear, quant  # noqa: F401
