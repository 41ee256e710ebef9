#!/bin/bash
# The log is generated deterministically (the verifier regenerates the same one).
set -euo pipefail
mkdir -p /app/logs
python3 /environment/gen_log.py > /app/logs/access.log
