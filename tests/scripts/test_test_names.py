"""The test modules of tests/ (folders without __init__.py, imported by their file name)
have names of their own: scripts/test.sh --quick, and the full run where no Docker engine
answers, collect several folders in one pytest run, which refuses two modules of one name."""
import collections
import glob
import os

TESTS = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def test_no_two_test_modules_share_a_name():
    paths = glob.glob(os.path.join(TESTS, "**", "test_*.py"), recursive=True)
    by_name = collections.defaultdict(list)
    for path in paths:
        by_name[os.path.basename(path)].append(os.path.relpath(path, TESTS))
    assert paths and not {n: p for n, p in by_name.items() if len(p) > 1}, "rename one of each"
