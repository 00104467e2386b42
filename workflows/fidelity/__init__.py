"""Our core against the authors' original prototype in one run: each phase's throughput and
each claim's ratio, ours over the original's, within a stated agreement (rule fidelity)."""
