#!/bin/bash
cat > /app/pairs.py <<'PY'
import sys
from collections import Counter


def count_pairs(values, target):
    seen, count = Counter(), 0
    for v in values:
        count += seen[target - v]
        seen[v] += 1
    return count


def main(path):
    with open(path) as fh:
        target = int(fh.readline())
        values = [int(line) for line in fh if line.strip()]
    print(count_pairs(values, target))


if __name__ == "__main__":
    main(sys.argv[1])
PY
