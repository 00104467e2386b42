"""The projection: a model of each design's throughput from costs measured here (model.py),
fitted on a summary.csv and floor.csv and checked against the measured points (rule
projection), with its report and figure."""
