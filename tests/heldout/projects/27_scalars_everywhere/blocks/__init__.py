from .precision import ATTN_PRECISION, MLP_PRECISION
