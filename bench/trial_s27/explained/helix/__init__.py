"""helix: Pallas kernels behind loops, scopes, pipelines, custom derivatives and maps."""
from helix import ops
from helix.ops import project, scale_mm, swish

__all__ = ["ops", "project", "scale_mm", "swish"]
