#!/bin/bash
# Reward 1 when /app/greet.sh is executable and prints exactly "Hello, world!".
mkdir -p /logs/verifier
out=$(cd /tmp && /app/greet.sh 2>&1)
if [ -x /app/greet.sh ] && [ "$out" = "Hello, world!" ]; then echo 1 > /logs/verifier/reward.txt
else echo "greet.sh printed: $out"; echo 0 > /logs/verifier/reward.txt; fi
