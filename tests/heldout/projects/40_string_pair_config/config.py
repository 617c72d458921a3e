DOT_PRECISION = ("bfloat16", "float32")  # value
