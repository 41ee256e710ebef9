"""Correctness on small and edge inputs; time bound on a large one."""

import subprocess
import sys
import time
from collections import Counter


def reference(path):
    with open(path) as fh:
        target = int(fh.readline())
        values = [int(line) for line in fh if line.strip()]
    seen, total = Counter(), 0
    for v in values:
        total += seen[target - v]
        seen[v] += 1
    return total


def run(path, limit):
    start = time.monotonic()
    r = subprocess.run(["python3", "/app/pairs.py", path], capture_output=True, text=True,
                       timeout=limit)
    return r.stdout.strip(), time.monotonic() - start


cases = {
    "/tmp/small.txt": "6\n1\n5\n3\n3\n2\n4\n",
    "/tmp/dups.txt": "4\n" + "2\n" * 50,
    "/tmp/neg.txt": "0\n-1\n1\n-1\n1\n0\n0\n",
    "/tmp/none.txt": "1000\n1\n2\n3\n",
    "/tmp/empty.txt": "5\n",
}
for path, text in cases.items():
    with open(path, "w") as fh:
        fh.write(text)
with open("/tmp/mid.txt", "w") as fh:
    subprocess.run(["python3", "/tests/gen_numbers.py", "5", "3000", "7", "300"], stdout=fh,
                   check=True)
with open("/tmp/big.txt", "w") as fh:
    subprocess.run(["python3", "/tests/gen_numbers.py", "99", "200000", "-13", "60000"],
                   stdout=fh, check=True)
try:
    for path in [*cases, "/tmp/mid.txt"]:
        got, _ = run(path, 10)
        if got != str(reference(path)):
            print(f"{path}: printed {got!r}, expected {reference(path)}")
            sys.exit(1)
    got, took = run("/tmp/big.txt", 6)
except subprocess.TimeoutExpired:
    print("too slow (timed out)")
    sys.exit(1)
if got != str(reference("/tmp/big.txt")) or took > 3.0:
    print(f"big input: printed {got!r} in {took:.2f}s, expected {reference('/tmp/big.txt')}")
    sys.exit(1)
