#!/bin/bash
# Reward 1 when /app/settings.json equals the expected structure (key order ignored).
mkdir -p /logs/verifier
if timeout 20 python3 - <<'PY'
import json, sys
want = json.load(open("/tests/expected.json"))
try:
    got = json.load(open("/app/settings.json"))
except (OSError, ValueError) as exc:
    sys.exit(f"cannot read /app/settings.json: {exc}")
if got != want:
    sys.exit(f"settings.json differs:\n got  {got}\n want {want}")
# true must be a boolean and 8080 a number, not equal-looking strings or 1/0
def kinds(x):
    return {k: kinds(v) for k, v in x.items()} if isinstance(x, dict) else type(x).__name__
if kinds(got) != kinds(want):
    sys.exit("types differ")
PY
then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
