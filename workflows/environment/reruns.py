"""Reruns of a run measured on a busy machine (config key environment_reruns; its entry point
is workflows/bin/rerun_when_busy.py): a run rule's command is run again, at most `at_most`
times, while it succeeds and some phase document of its results file (--out) shows other
processes using more of the CPUs than `bound` (the strictest other_cpu_at_most of the
claims). A failed command is never run again: its exit status is the answer. Each rerun is
said in one line on stderr and in the run's log (--log); the results file of the last
attempt then records them in every document: "reruns": [{"phase", "cpu_other_share",
"bound", "at"}], which summary.csv's reruns and rerun_causes columns read (phase.py)."""
import datetime
import json
import os

from mpijobs import read_json_lines

from workflows.environment.phase import cpu_shares


def busiest(docs, bound):
    """(the phase document of `docs` whose other processes' share is the highest above
    `bound`, that share), or None when none is above it (or none has readings)."""
    over = [(d, cpu_shares(d.get("environment"))["cpu_other_share"]) for d in docs]
    over = [(d, share) for d, share in over if share != "" and share > bound]
    return max(over, key=lambda found: found[1]) if over else None


def record(path, reruns):
    """Adds `reruns` to every document of the results file `path`."""
    docs = read_json_lines(path)
    with open(path + ".tmp", "w") as f:
        for d in docs:
            f.write(json.dumps(dict(d, reruns=reruns)) + "\n")
    os.replace(path + ".tmp", path)


def rerun_until_quiet(run, out, at_most, bound, say):
    """Calls run() (the command: its exit status) until it fails, or its results file `out`
    shows no phase busier than `bound`, or it was rerun `at_most` times; `say` gets each line
    to tell. Returns (the last exit status, the reruns made)."""
    reruns = []
    while True:
        status = run()
        if status != 0:
            return status, reruns
        busy = busiest(read_json_lines(out), bound)
        if busy is None:
            break
        doc, share = busy
        phase = f"{doc.get('run', '')} {doc.get('phase', '')}".strip()
        if len(reruns) == at_most:
            say(f"after {at_most} rerun(s) other processes still used {share:.0%} of the CPUs during {phase}, "
                f"more than the claims' {bound:.0%}: this attempt is kept (its claims not comparable here)")
            break
        reruns.append({"phase": doc.get("phase"), "cpu_other_share": share, "bound": bound,
                       "at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")})
        say(f"rerun {len(reruns)} of {at_most}: other processes used {share:.0%} of the CPUs during {phase}, "
            f"more than the claims' {bound:.0%}")
    if reruns:
        record(out, reruns)
    return 0, reruns
