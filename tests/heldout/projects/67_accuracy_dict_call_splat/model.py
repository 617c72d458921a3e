import numerics
import softmax


def attention_probs(scores):
    return softmax.softmax(scores, **numerics.SOFTMAX_OPTS)
