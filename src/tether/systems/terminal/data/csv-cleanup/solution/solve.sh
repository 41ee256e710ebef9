#!/bin/bash
cat > /tmp/clean.py <<'PY'
import csv
import json


def valid(e):
    if " " in e or e.count("@") != 1:
        return False
    user, domain = e.split("@")
    return bool(user) and len(domain) > 2 and "." in domain[1:-1]


with open("/app/customers.csv", encoding="utf-8", newline="") as fh:
    lines = fh.read().splitlines()
report = {"input_rows": 0, "blank_lines": 0, "invalid_email": 0, "duplicates": 0}
kept, seen = [], set()
for line in lines[1:]:
    report["input_rows"] += 1
    if not line.strip():
        report["blank_lines"] += 1
        continue
    rid, name, email, country = (f.strip() for f in next(csv.reader([line])))
    email, country = email.lower(), country.upper()
    if not valid(email):
        report["invalid_email"] += 1
    elif email in seen:
        report["duplicates"] += 1
    else:
        seen.add(email)
        kept.append([rid, name, email, country])
report["output_rows"] = len(kept)
with open("/app/clean.csv", "w", encoding="utf-8", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["id", "name", "email", "country"])
    w.writerows(kept)
with open("/app/report.json", "w") as fh:
    json.dump(report, fh)
PY
python3 /tmp/clean.py
