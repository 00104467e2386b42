"""The one summary of repeated measurements, for the benchmarks (side_by_side.py, scale.py,
mdworkbench_vs_real.py) and the workflow (its tables and figures, which import it from
here): their median and range, lowest to highest. Medians and ranges, not means and
standard deviations: one slow repetition neither drags the value nor draws an error bar
below zero on a log axis."""
import statistics


def median_range(values):
    """(median, lowest, highest) of `values`; NaNs if there are none."""
    values = list(values)
    if not values:
        return float("nan"), float("nan"), float("nan")
    return statistics.median(values), min(values), max(values)


def summarize(values):
    """The benchmarks' record of repetitions (their tables and JSON): the values, their
    median, lowest and highest; None for no values."""
    if not values:
        return None
    median, lowest, highest = median_range(values)
    return {"values": values, "median": median, "min": lowest, "max": highest}


def text(summary):
    """A record of summarize() as the benchmarks' tables print it: "median (lowest-highest)",
    or "-" for none."""
    if not summary:
        return "-"
    return f"{summary['median']:.3f} ({summary['min']:.3f}-{summary['max']:.3f})"
