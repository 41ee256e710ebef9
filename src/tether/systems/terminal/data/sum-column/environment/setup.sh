#!/bin/bash
set -euo pipefail
python3 /environment/gen_sales.py > /app/sales.csv
