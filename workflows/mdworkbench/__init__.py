"""The MD-Workbench runs: their results read and checked (runs.py; rule
mdworkbench_validate), summarised as a table (rule mdworkbench_summary) and drawn as
latency quantiles (rule mdworkbench_figure)."""
