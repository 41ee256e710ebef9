#!/bin/bash
# Reward 1 when clean.csv and report.json match the reference cleaning exactly.
mkdir -p /logs/verifier
if timeout 40 python3 /tests/check_clean.py; then echo 1 > /logs/verifier/reward.txt
else echo 0 > /logs/verifier/reward.txt; fi
