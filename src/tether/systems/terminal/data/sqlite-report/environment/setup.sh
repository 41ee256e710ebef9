#!/bin/bash
# Build the shop database.
set -euo pipefail
python3 /environment/gen_shop.py /app/shop.db
