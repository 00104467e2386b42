# The scale figure: each design's throughput against the total files of its runs (client
# ranks x files per rank), from this configuration's summary.csv, with the points it draws in
# a CSV beside it. Every configuration draws it; the scale profile (config/profiles/scale.yaml)
# sweeps files_per_rank for it.


rule scale_figure:
    input:
        f"{OUT}/summary.csv",
    output:
        csv=f"{OUT}/figures/scale_throughput.csv",
        pdf=f"{OUT}/figures/scale_throughput.pdf",
        png=report(
            f"{OUT}/figures/scale_throughput.png",
            caption="../report/scale_throughput.rst",
            category="Figures",
            labels={"figure": "scale throughput"},
        ),
    log:
        f"{OUT}/logs/scale_figure.log",
    message:
        f"Drawing throughput against total files into {OUT}/figures/scale_throughput.png"
    script:
        "../scripts/scale_figure.py"
