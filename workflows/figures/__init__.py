"""The figures: the style they share (style.py), and the figures drawn from a summary.csv:
the paper's (rule figures) and throughput against the total files (rule scale_figure)."""
