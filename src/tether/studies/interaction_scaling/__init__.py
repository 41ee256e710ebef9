"""Reproduction of "Interaction Scaling: Grounding the Third Axis of Test-Time Compute".

What lives here exists only to check tether against that study's published data
(../shared/reference at test time, never copied into the repository):
- `code_format`: the study's code-task JSON (`interaction-scaling/code:PATH`),
- `recorded_programs`: re-execution of its recorded programs (`tether check-recorded`),
- `recorded_geometry`: its recorded geometry defect counts and Table 6's reductions,
- `code_tables`, `visual_tables`: Tables 2, 4, 5, 7, 8 and 6 with the paper's own
  statistics (`tether reproduce`, listed in `tether.studies.tables`).

The general instruments (execution, geometry with its `reference` profile) stay in
`tether.instruments`.
"""
