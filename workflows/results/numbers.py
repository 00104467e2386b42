"""How a ratio reads in the tables and verdicts: claims.md's, the results' (fmt)."""
import math


def fmt(x, digits=None):
    """`x` for a reader: no decimal from 10, one below, two significant digits below 1; with
    `digits` (digits_beside), that many significant digits, so that a value near a bound
    shows on which side of it it falls."""
    if x == math.inf:
        return "inf"
    if digits:
        return f"{x:.{max(digits - 1 - math.floor(math.log10(abs(x))), 0) if x else digits - 1}f}"
    if x >= 10:
        return f"{x:.0f}"
    if x >= 1:
        return f"{x:.1f}"
    return f"{x:.2g}"
