#!/bin/bash
# Reward 1 when /app/summary.json matches the summary recomputed from the log.
mkdir -p /logs/verifier
if timeout 40 python3 /tests/check_summary.py; then echo 1 > /logs/verifier/reward.txt
else echo 0 > /logs/verifier/reward.txt; fi
