"""The figures: the one style every figure of the workflow uses (style.py: settings, saving
as PDF and PNG, the median with its range), and the figures drawn from a summary.csv: the
paper's (rule figures) and throughput against the total files (rule scale_figure)."""
