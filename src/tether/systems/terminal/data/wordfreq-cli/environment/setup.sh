#!/bin/bash
# A sample text to try the program on.
set -euo pipefail
cat > /app/sample.txt <<'TXT'
It was the best of times, it was the worst of times; it was the age of wisdom.
TXT
