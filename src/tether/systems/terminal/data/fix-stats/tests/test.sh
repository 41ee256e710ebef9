#!/bin/bash
# Reward 1 when the hidden contract tests pass against /app/stats.py.
mkdir -p /logs/verifier
if timeout 30 python3 /tests/test_hidden.py; then echo 1 > /logs/verifier/reward.txt
else echo 0 > /logs/verifier/reward.txt; fi
