#!/bin/bash
# Reward 1 when /app/report.csv equals the report computed from a fresh database.
mkdir -p /logs/verifier
if timeout 40 python3 /tests/check_report.py; then echo 1 > /logs/verifier/reward.txt
else echo 0 > /logs/verifier/reward.txt; fi
