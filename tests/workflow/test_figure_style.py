"""The figures' shared style (workflows/figures/style.py): every repetition is drawn as a dot
that neither the median's marker nor its bar's cap hides."""
from workflows.figures.style import median_with_range, plt


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
