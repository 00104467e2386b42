#!/usr/bin/env python3
"""Runs a run rule's whole command and runs it again, at most N times, while it succeeds and
other processes used more than BOUND of the machine's CPUs during one of its phases
(workflows/environment/reruns.py; config key environment_reruns, config/README.md):
  rerun_when_busy.py --reruns N --bound BOUND COMMAND...
COMMAND names its results file with --out (and its log with --log, which gets each rerun's
line too). A failed COMMAND is never rerun: its exit status is this program's. The command
runs in a session of its own (a terminal's Ctrl-C reaches it once, passed on from here) and
gets SIGTERM if this program dies."""
import argparse
import signal
import subprocess
import sys

from mpijobs import die_with_parent

from workflows.environment.reruns import rerun_until_quiet
from workflows.launch.command_line import option


class Command:
    """The command, started anew by each call (its exit status; 128 + N when signal N ended
    it); SIGTERM and SIGINT to this process are passed on to it, and once one came it is not
    started again."""

    def __init__(self, argv):
        self.argv, self.proc, self.stopped = argv, None, False
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self.forward)

    def forward(self, signum, frame):
        self.stopped = True
        if self.proc:
            self.proc.send_signal(signum)

    def __call__(self):
        if self.stopped:
            return 128 + signal.SIGTERM
        self.proc = subprocess.Popen(self.argv, start_new_session=True, preexec_fn=die_with_parent)
        status = self.proc.wait()
        return 128 - status if status < 0 else status


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reruns", type=int, required=True, metavar="N", help="reruns at most (>= 0)")
    p.add_argument("--bound", type=float, required=True, help="the other processes' share of the CPUs (0-1) above "
                   "which a phase counts as busy: the claims' strictest other_cpu_at_most")
    p.add_argument("command", nargs=argparse.REMAINDER, help="the run rule's command, naming --out")
    a = p.parse_args()
    out, log = option(a.command, "--out"), option(a.command, "--log")
    if a.reruns < 0 or not 0 <= a.bound <= 1:
        p.error("--reruns must be >= 0 and --bound between 0 and 1")
    if not out:
        p.error("the command names no results file (--out FILE)")

    def say(line):
        print(f"rerun_when_busy: {line}", file=sys.stderr, flush=True)
        if log:
            with open(log, "a") as f:
                f.write(f"rerun_when_busy: {line}\n")

    try:
        status, _ = rerun_until_quiet(Command(a.command), out, a.reruns, a.bound, say)
    except (OSError, ValueError) as e:
        sys.exit(f"rerun_when_busy: cannot read the results file {out} ({e}): rerun the job")
    sys.exit(status)


if __name__ == "__main__":
    main()
