#!/bin/bash
# A large input to time against (the verifier generates its own, of the same size).
set -euo pipefail
python3 /environment/gen_numbers.py 1 200000 100 50000 > /app/numbers.txt
printf '6\n1\n5\n3\n3\n2\n4\n' > /app/small.txt
