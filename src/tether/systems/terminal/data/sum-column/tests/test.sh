#!/bin/bash
# Reward 1 when north_total.txt holds the exact north total with two decimals.
mkdir -p /logs/verifier
want=$(python3 /tests/gen_sales.py | python3 -c '
import csv, sys
from decimal import Decimal
rows = csv.DictReader(sys.stdin)
print(sum((Decimal(r["amount"]) for r in rows if r["region"] == "north"), Decimal("0.00")))')
got=$(tr -d " \t\r\n" < /app/north_total.txt 2>/dev/null)
if [ -n "$want" ] && [ "$got" = "$want" ]; then echo 1 > /logs/verifier/reward.txt
else echo "north_total.txt holds '$got'"; echo 0 > /logs/verifier/reward.txt; fi
