"""The runs' results: their JSON Lines read into rows (runs.py) and validated (rule
validate), aggregated into summary.csv (rule aggregate) and summarised over repetitions
(summary.py); the results table, the provenance and the artifact appendix of a
configuration."""
