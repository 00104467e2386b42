"""The storage floor: fio's jobs derived from the stores' sizes (jobs.py), run on the runs'
storage (rule storage_floor), and each phase's bytes per second beside the floor of the
operation it does, as a table and a figure (rule floor)."""
