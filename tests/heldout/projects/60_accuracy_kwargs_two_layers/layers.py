import acts


def gelu(x, **kwargs):
    inner = 0.7978845608 * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1.0 + acts.tanh(inner, **kwargs))
