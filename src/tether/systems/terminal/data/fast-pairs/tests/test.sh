#!/bin/bash
# Reward 1 when pairs.py is right on edge cases and fast on a 200,000-number input.
mkdir -p /logs/verifier
if timeout 80 python3 /tests/check_pairs.py; then echo 1 > /logs/verifier/reward.txt
else echo 0 > /logs/verifier/reward.txt; fi
