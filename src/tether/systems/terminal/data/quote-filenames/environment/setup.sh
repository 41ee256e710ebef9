#!/bin/bash
# A docs dir with plain names, where the script still works.
set -euo pipefail
chmod +x /app/wordcount.sh
mkdir -p /app/docs
echo "one two three" > /app/docs/alpha.txt
echo "four five" > /app/docs/beta.txt
echo "not counted" > /app/docs/notes.md
