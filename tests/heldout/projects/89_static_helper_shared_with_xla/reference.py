from maths import Smooth


def reference(x):
    return Smooth.apply(x)
