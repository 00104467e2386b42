"""The figures' shared style (workflows/figures/style.py): every repetition is drawn as a dot
that neither the median's marker nor its bar's cap hides, on a line and over a bar; each
phase has one line style, hatch and marker, told apart, in one table that no figure writes
again."""
import ast
import os

from workflow_helpers import REPO

from workflows.figures.style import (PHASE_HATCHES, PHASE_LINES, PHASE_MARKERS, median_with_range, plt,
                                     range_over_bar)
from workflows.registry import PHASES


def test_each_repetition_has_a_dot_beside_its_median():
    fig, ax = plt.subplots()
    xs, groups = [1, 2, 4, 6], [[1.0, 1.1, 1.2], [2.0, 2.0, 2.0], [3.0, 3.5, 4.0], [5.0, 5.1, 5.2]]
    median_with_range(ax, xs, groups, color="black", marker="o")
    dots = [line for line in ax.get_lines() if line.get_linestyle() == "None" and line.get_marker() == "o"]
    assert len(dots) == len(xs)
    for x, g, line in zip(xs, groups, dots, strict=True):
        dx = list(line.get_xdata())
        assert list(line.get_ydata()) == g
        assert len(set(dx)) == len(g) and all(x < d < x + 0.5 for d in dx)  # beside, apart, before the next point
    plt.close(fig)


def test_the_range_over_a_bar_has_every_repetition_on_it():
    fig, ax = plt.subplots()
    assert range_over_bar(ax, 2, [3.0, 1.0, 2.0, 7.0]) == 2.5
    (dots,) = [line for line in ax.get_lines() if line.get_linestyle() == "None" and line.get_marker() == "."]
    assert list(dots.get_xdata()) == [2] * 4 and list(dots.get_ydata()) == [3.0, 1.0, 2.0, 7.0]
    plt.close(fig)


def test_each_phase_has_one_style_told_apart():
    for table in (PHASE_LINES, PHASE_HATCHES, PHASE_MARKERS):
        assert set(table) == set(PHASES) and len(set(table.values())) == len(PHASES), table


def test_no_figure_writes_a_phase_style_table_again():
    """A dict literal keyed by phases whose values are short strings (line styles, hatches,
    markers) anywhere in the package but style.py."""
    package = os.path.join(REPO, "workflows")
    again = []
    for top, _, files in os.walk(package):
        for name in files:
            path = os.path.join(top, name)
            if not name.endswith(".py") or path == os.path.join(package, "figures", "style.py"):
                continue
            with open(path) as f:
                tree = ast.parse(f.read(), path)
            for node in ast.walk(tree):
                if isinstance(node, ast.Dict) and len(node.keys) > 1 and all(
                        isinstance(k, ast.Constant) and k.value in PHASES for k in node.keys) and all(
                        isinstance(v, ast.Constant) and isinstance(v.value, str) and len(v.value) <= 2
                        for v in node.values):
                    again.append(f"{os.path.relpath(path, REPO)}:{node.lineno}")
    assert not again, f"phase styles written outside workflows/figures/style.py: {again}"
