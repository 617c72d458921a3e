from config import PRECISIONS
from layers import lstm_layer


def encoder(x, h, c, weights, lengths):
    return lstm_layer(x, h, c, weights, lengths, precision=PRECISIONS["encoder"])[0]


def refiner(x, h, c, weights, lengths):
    return lstm_layer(x, h, c, weights, lengths, precision=PRECISIONS["refiner"])[0]
