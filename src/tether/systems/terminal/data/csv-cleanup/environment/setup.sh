#!/bin/bash
# The messy CSV is generated deterministically (the verifier regenerates it).
set -euo pipefail
python3 /environment/gen_customers.py > /app/customers.csv
