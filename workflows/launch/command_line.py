"""Reading a wrapped command line (the run rules' runs.py command, which workflows/bin's
wrappers are given whole): the value of one of its options."""


def option(args, name):
    """The value of `--name VALUE` in an argument list (the last one), or None."""
    value = None
    for i, a in enumerate(args[:-1]):
        if a == name:
            value = args[i + 1]
    return value
