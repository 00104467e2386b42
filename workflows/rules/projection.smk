# The projection to the paper's scale, a model (config key `projection`): each design's
# costs measured in this configuration's runs (summary.csv, floor.csv), checked against
# every configuration measured, then evaluated at N client nodes of the target machine
# (workflows/projection/model.py), into results/<name>/projection*.


rule projection:
    input:
        summary=f"{OUT}/summary.csv",
        floor=f"{OUT}/floor.csv",
        claims=CLAIMS_FILE,
    output:
        inputs=f"{OUT}/projection-inputs.csv",
        validation=f"{OUT}/projection-validation.csv",
        table=report(f"{OUT}/projection.md", caption="../report/projection_table.rst", category="Results"),
        pdf=f"{OUT}/figures/projection.pdf",
        png=report(
            f"{OUT}/figures/projection.png",
            caption="../report/projection.rst",
            category="Figures",
            labels={"figure": "projection (model)"},
        ),
    log:
        f"{OUT}/logs/projection.log",
    params:
        projection=config["projection"],
    message:
        "Fitting the projection model on {input.summary} and projecting to {params.projection[nodes]} client nodes"
    script:
        "../scripts/projection.py"
