#!/bin/bash
# The script arrives without its execute bit.
set -euo pipefail
chmod 644 /app/greet.sh
