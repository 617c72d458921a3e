from blocks import Projection


def build(w):
    return Projection(w)
