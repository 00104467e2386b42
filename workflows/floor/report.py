"""Rule floor: results/<name>/floor.csv and floor.md (each phase's bytes/s,
the floor of the operation it does, the fraction of the floor, and where its bytes come
from), and the figure storage_floor.{pdf,png} (floor/figure.py), from floor/rows.py."""
import csv

from workflows.floor.jobs import store_sizes
from workflows.floor.rows import load_json, rows
from workflows.floor.figure import NO_DESIGN, draw
from workflows.registry import SYSTEMS
from workflows.results.summary import load

COLUMNS = ["system", "phase", "storage", "client_ranks", "files_per_rank", "repetitions", "bytes", "bytes_per_s",
           "floor", "floor_operation", "floor_bytes_per_s", "fraction_of_floor", "bytes_from"]


def rate(v):
    return "unknown" if v == "" else f"{v / 1e6:,.1f} MB/s"


def table(table_rows, fio_doc, floor_doc, summary_path, implementation):
    sizes = store_sizes(floor_doc["store_settings"])
    whose = "our core's" if implementation == "deltameta" else "the original prototype's (our core did not run)"
    lines = ["# The storage floor", "",
             f"Each of {whose} phases' bytes per second (median over repetitions) beside what fio does on the "
             f"same storage ({floor_doc['storage']}: {floor_doc['where']}) with the sizes the stores write: "
             f"table files of {sizes['table_size']} B in {sizes['block_size']} B blocks, write-ahead-log appends of "
             f"{sizes['write_ahead_log_buffer']} B (fio {fio_doc.get('fio version', '?')}; generated from "
             f"{summary_path} by the workflow). The runs record no bytes: the last column says whether a "
             "phase's bytes were measured, estimated (and how) or cannot be known. fio drops its files' page cache "
             "before each job; the runs read stores they have just written, so a fraction above 1 means reads "
             "served from memory.", "",
             "| system | phase | client ranks | files per rank | bytes/s | floor | floor bytes/s | fraction of the "
             "floor | bytes |",
             "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- |"]
    for r in table_rows:
        frac = "unknown" if r["fraction_of_floor"] == "" else f"{r['fraction_of_floor']:.3f}"
        lines.append(f"| {SYSTEMS[r['system']].label} | {r['phase']} | {r['client_ranks']} | {r['files_per_rank']} | "
                     f"{rate(r['bytes_per_s'])} | {r['floor_operation']} | {rate(r['floor_bytes_per_s'])} | {frac} | "
                     f"{r['bytes_from']} |")
    if not table_rows:
        lines += ["", NO_DESIGN + "; fio's own numbers follow."]
    lines += ["", "## fio's jobs (in this order; every read is of data the table write staged)", "",
              "| job | operation | rw | request B | file B | files | bytes/s |",
              "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    bw = {j["jobname"]: j["write" if j["job options"]["rw"] == "write" else "read"]["bw_bytes"]
          for j in fio_doc["jobs"]}
    for j in floor_doc["jobs"]:
        lines.append(f"| {j['name']} | {j['operation']} | {j['rw']} | {j['bs']} | {j['filesize']} | {j['nrfiles']} | "
                     f"{rate(float(bw[j['name']]))} |")
    return "\n".join(lines) + "\n"


def main(sm):
    # The floor is set against our core's phases; in a configuration of the original alone, its.
    everything = load(sm.input.summary)
    implementation = "deltameta" if any(r["implementation"] == "deltameta" for r in everything) else "original"
    summary = [r for r in everything if r["implementation"] == implementation]
    fio_doc, floor_doc = load_json(sm.input.fio), load_json(sm.input.floor)
    table_rows = rows(summary, fio_doc, floor_doc, list(sm.input.origins))
    with open(sm.output.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(table_rows)
    with open(sm.output.table, "w") as f:
        f.write(table(table_rows, fio_doc, floor_doc, sm.input.summary, implementation))
    draw(table_rows, floor_doc["storage"], sm.output.pdf, sm.output.png)
    with open(sm.log[0], "w") as log:
        log.write(f"{len(table_rows)} rows, {sum(r['bytes_per_s'] == '' for r in table_rows)} with unknown bytes\n")
