import data
import model


def run():
    return model.encode(*data.inputs())
