#!/bin/bash
# A repository whose fourth commit deletes config.ini along with a real cleanup.
set -euo pipefail
export GIT_AUTHOR_DATE="2024-03-01T10:00:00Z" GIT_COMMITTER_DATE="2024-03-01T10:00:00Z"
git init -q -b main /app/repo
cd /app/repo
printf 'print("service starting")\n' > app.py
printf '[server]\nport = 8080\nworkers = 2\n' > config.ini
git add . && git commit -q -m "Initial service"
printf '[server]\nport = 8080\nworkers = 4\n\n[cache]\nttl = 300\n' > config.ini
git add . && git commit -q -m "Tune workers, add cache section"
printf 'tmp\n' > scratch.txt
printf 'def helper():\n    return 1\n' > util.py
git add . && git commit -q -m "Add helper"
git rm -q scratch.txt config.ini
git commit -q -m "Remove scratch files"
printf 'print("service starting")\nprint("ready")\n' > app.py
git add . && git commit -q -m "Log readiness"
