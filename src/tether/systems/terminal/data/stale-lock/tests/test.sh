#!/bin/bash
# Reward 1 when out/report.txt is what the unmodified build produces.
mkdir -p /logs/verifier
fail() { echo "FAIL: $*"; echo 0 > /logs/verifier/reward.txt; exit 0; }
cmp -s /app/build.sh /tests/build.sh.orig || fail "build.sh was modified"
cmp -s /app/gen.py /tests/gen.py.orig || fail "gen.py was modified"
[ -f /app/out/report.txt ] || fail "no /app/out/report.txt"
python3 /tests/gen.py.orig > /tmp/expected.txt
cmp -s /app/out/report.txt /tmp/expected.txt || fail "report.txt differs from the build's"
echo 1 > /logs/verifier/reward.txt
