"""The pipeline every file goes through: discovery -> prefilter -> (cache) -> parse -> transform -> fix -> verify -> diff/write -> report."""
