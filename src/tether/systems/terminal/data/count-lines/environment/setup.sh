#!/bin/bash
# 137 records, one per line.
set -euo pipefail
for i in $(seq 1 137); do echo "record-$i,$((i * 7 % 13))"; done > /app/data.txt
