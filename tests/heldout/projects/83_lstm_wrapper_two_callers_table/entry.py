import data
import stages


def run():
    inputs = data.inputs()
    return stages.encoder(*inputs), stages.refiner(*inputs)
