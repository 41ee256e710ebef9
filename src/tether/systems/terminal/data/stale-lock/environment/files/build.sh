#!/bin/bash
# Builds out/report.txt; a lock file keeps two builds from running at once.
LOCK=/app/.build.lock
if [ -e "$LOCK" ]; then
  echo "another build is running (pid $(cat "$LOCK")); waiting for it..."
  sleep 1
  echo "error: build lock $LOCK is still held by pid $(cat "$LOCK"); try again later" >&2
  exit 75
fi
echo $$ > "$LOCK"
trap 'rm -f "$LOCK"' EXIT
mkdir -p /app/out
python3 /app/gen.py > /app/out/report.txt
echo "build ok: /app/out/report.txt"
