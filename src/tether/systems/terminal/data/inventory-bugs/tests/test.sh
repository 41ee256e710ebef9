#!/bin/bash
# Reward 1 when pristine copies of the visible tests and the hidden tests pass.
mkdir -p /logs/verifier /tmp/vt
cp /tests/test_store.py /tests/test_hidden.py /tmp/vt/
cd /app
if PYTHONPATH=/app timeout 30 python3 -m unittest discover -s /tmp/vt -t /tmp/vt; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
