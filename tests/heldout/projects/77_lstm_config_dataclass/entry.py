import config
import data
import model


def run():
    return model.encode(config.EncoderConfig(), *data.inputs())
