"""Compare /app/clean.csv and /app/report.json with the reference on fresh input."""

import json
import subprocess
import sys

sys.path.insert(0, "/tests")
from reference import clean  # noqa: E402

text = subprocess.run(["python3", "/tests/gen_customers.py"], capture_output=True, text=True,
                      check=True).stdout
want_csv, want_report = clean(text)
ok = True
try:
    got_csv = open("/app/clean.csv", encoding="utf-8").read()
    got_report = json.load(open("/app/report.json"))
except (OSError, ValueError) as exc:
    print(f"missing or unreadable output: {exc}")
    sys.exit(1)
if got_csv.replace("\r\n", "\n") != want_csv:
    want_lines, got_lines = want_csv.splitlines(), got_csv.splitlines()
    print(f"clean.csv differs: {len(got_lines)} lines, expected {len(want_lines)}")
    for w, g in zip(want_lines, got_lines, strict=False):  # lengths may differ
        if w != g:
            print(f"first difference: expected {w!r}, got {g!r}")
            break
    ok = False
if got_report != want_report:
    print(f"report.json: got {got_report}, expected {want_report}")
    ok = False
sys.exit(0 if ok else 1)
