#!/bin/bash
set -e
cd /app/repo
deleting=$(git log --diff-filter=D --format=%H -1 -- config.ini)
git checkout "$deleting^" -- config.ini
git commit -q -m "Restore config.ini deleted by mistake"
