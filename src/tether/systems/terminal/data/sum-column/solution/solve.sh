#!/bin/bash
python3 - <<'PY'
import csv
from decimal import Decimal

with open("/app/sales.csv", newline="") as fh:
    total = sum((Decimal(r["amount"]) for r in csv.DictReader(fh) if r["region"] == "north"),
                Decimal("0.00"))
with open("/app/north_total.txt", "w") as fh:
    fh.write(f"{total:.2f}\n")
PY
