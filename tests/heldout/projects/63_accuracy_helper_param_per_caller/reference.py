import mathx
from numerics import REFERENCE_ACC


def act_reference(x):
    return mathx.act(x, accuracy=REFERENCE_ACC)
