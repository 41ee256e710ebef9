#!/bin/bash
# Reward 1 when /app/count.txt holds 137 (surrounding whitespace ignored).
mkdir -p /logs/verifier
got=$(tr -d ' \t\n\r' < /app/count.txt 2>/dev/null)
if [ "$got" = "137" ]; then echo 1 > /logs/verifier/reward.txt
else echo "count.txt holds '$got', expected 137"; echo 0 > /logs/verifier/reward.txt; fi
