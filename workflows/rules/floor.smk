# The storage floor (config key `floor`): fio writes and then reads objects of the sizes the
# stores write (workflows/floor/jobs.py) on the runs' storage, a scratch directory
# under results/floor/ (posix) or the runs' pool (rados, while the invocation's cluster is
# up), and removes them; rule floor sets each phase's bytes/s beside the floor of its
# operation in results/<name>/floor.csv, floor.md and figures/storage_floor.{pdf,png}.
FLOOR_DIR = f"results/floor/{STORAGE}/{config['name']}"
# DeltaFS's origin stores on posix, whose size on disk gives the write and compaction
# phases' bytes (with rados they are in RADOS, behind temporary markers: not read); the
# write phase's result beside each, which summary.csv reads too, names its run.
FLOOR_ORIGINS = (
    expand_run(f"{DELTAFS_RUN}/origin")
    if STORAGE == "posix" and "deltafs" in config["systems"] and "deltameta" in IMPLS
    else []
)


# After every run (their results are its input): measured on the storage as the runs left
# it, and never while a run's phases are under way on it.
rule storage_floor:
    input:
        all_run_results(),
    output:
        fio=f"{FLOOR_DIR}/fio.json",
        floor=f"{FLOOR_DIR}/floor.json",
    log:
        f"results/logs/floor/{STORAGE}/{config['name']}.log",
    # a measurement owns the machine, as the runs do
    threads: every_core
    params:
        storage=STORAGE,
        store_settings=config["store_settings"],
        data_bytes=config["floor"]["data_mib"] << 20,
        chunk_bytes=int(os.environ.get("DELTAMETA_RADOS_CHUNK_BYTES", 4 << 20)),
        pool=RADOS["pool"],
        conf=CEPH_CONF,
        client=os.environ.get("DELTAMETA_RADOS_ID", "admin"),
        rados_prefix=RADOS["prefix"],
        name=config["name"],
    message:
        "Measuring the storage floor ({params.storage}) with fio: {params.data_bytes} bytes written, then read"
    script:
        "../scripts/storage_floor.py"


rule floor:
    input:
        summary=f"{OUT}/summary.csv",
        fio=f"{FLOOR_DIR}/fio.json",
        floor=f"{FLOOR_DIR}/floor.json",
        origins=FLOOR_ORIGINS,
    output:
        csv=f"{OUT}/floor.csv",
        table=report(f"{OUT}/floor.md", caption="../report/floor_table.rst", category="Results"),
        pdf=f"{OUT}/figures/storage_floor.pdf",
        png=report(
            f"{OUT}/figures/storage_floor.png",
            caption="../report/storage_floor.rst",
            category="Figures",
            labels={"figure": "storage floor"},
        ),
    log:
        f"{OUT}/logs/floor.log",
    message:
        "Setting each phase's bytes/s beside the storage floor into {output.table}"
    script:
        "../scripts/floor.py"
