"""The pipeline every file goes through: discovery -> prefilter -> parse -> transform -> verify -> diff/write -> report."""
