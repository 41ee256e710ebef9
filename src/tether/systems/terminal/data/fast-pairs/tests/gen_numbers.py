"""Deterministic input: target, then N integers (argv: seed n target spread)."""

import random
import sys

seed, n, target, spread = (int(a) for a in sys.argv[1:5])
rng = random.Random(seed)
print(target)
for _ in range(n):
    print(rng.randint(-spread, spread))
