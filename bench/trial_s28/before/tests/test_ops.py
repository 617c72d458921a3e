import helpers
import utils
from orca import ops, reference


def test_tanh(x):
    assert utils.close(helpers.tanh_pallas(x), helpers.tanh_xla(x))


def test_act(x):
    assert utils.close(ops.act(x), reference.act_ref(x))
