#!/bin/bash
# Reward 1 when every hidden I/O-contract check of /app/wordfreq.py passes.
mkdir -p /logs/verifier
if [ -f /app/wordfreq.py ] && timeout 50 python3 /tests/check_cli.py; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
