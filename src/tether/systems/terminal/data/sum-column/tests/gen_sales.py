"""Deterministic sales CSV; regions include a quoted one with a comma."""

import random

rng = random.Random(3)
print("date,region,amount")
for day in range(1, 121):
    region = rng.choice(["north", "south", '"north, east"', "west", '"south, west"'])
    print(f"2024-05-{day % 28 + 1:02d},{region},{rng.randint(100, 99999) / 100:.2f}")
