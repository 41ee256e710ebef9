"""The numbers of the report's scene section (report.py renders them): which metrics a
trial has (`metrics`), means per arm, family and level with the invalid counts
(`tables`), paired comparisons (`paired`), the paper's improvement columns
(`improvement`), all assembled by `numbers.scene_numbers`."""
