"""The model: layers over the tkern kernels, a plain-XLA reference, an LSTM encoder."""
