"""orca: fused kernels for the team's models."""
from orca import ops  # noqa: F401
from orca.config import ActConfig, MatmulConfig  # noqa: F401
