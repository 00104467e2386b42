"""The paper's claims (paper/claims.yaml) checked on a summary.csv (check.py), their
verdicts written as claims.json and claims.md (rule claims), with the runs rerun on a busy
machine (reruns.py), and their figure (rule claims_figure)."""
