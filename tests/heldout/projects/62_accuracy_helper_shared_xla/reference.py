import mathx


def softplus_sq_reference(x):
    return mathx.log1p_hi(x * x)
