#!/bin/bash
# The lock's pid does not exist: the lock is stale, remove it and build once.
if ! kill -0 "$(cat /app/.build.lock)" 2>/dev/null; then rm -f /app/.build.lock; fi
/app/build.sh
