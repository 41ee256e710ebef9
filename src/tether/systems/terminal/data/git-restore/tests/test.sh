#!/bin/bash
# Reward 1 when config.ini is back with its last content, committed on top of history.
mkdir -p /logs/verifier
fail() { echo "FAIL: $*"; echo 0 > /logs/verifier/reward.txt; exit 0; }
cd /app/repo 2>/dev/null || fail "no /app/repo"
want=$'[server]\nport = 8080\nworkers = 4\n\n[cache]\nttl = 300'
[ "$(git show HEAD:config.ini 2>/dev/null)" = "$want" ] || fail "config.ini in HEAD is not the pre-deletion content"
[ -z "$(git status --porcelain)" ] || fail "working tree is not clean: $(git status --porcelain | head -3)"
subjects=$(git log --reverse --format=%s | head -5 | tr '\n' '|')
[ "$subjects" = "Initial service|Tune workers, add cache section|Add helper|Remove scratch files|Log readiness|" ] \
  || fail "history was rewritten: $subjects"
[ "$(git rev-list --count HEAD)" -ge 6 ] || fail "no new commit"
[ "$(cat app.py)" = $'print("service starting")\nprint("ready")' ] || fail "app.py changed"
echo 1 > /logs/verifier/reward.txt
