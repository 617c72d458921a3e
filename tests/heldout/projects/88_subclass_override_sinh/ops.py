from acts import Sinh


def activate(x):
    return Sinh()(x)
