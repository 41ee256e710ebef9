#!/bin/bash
# Reward 1 when /app/hello.txt holds exactly "hello" (one trailing newline allowed).
mkdir -p /logs/verifier
content=$(cat /app/hello.txt 2>/dev/null; printf x)   # the x keeps trailing newlines
content=${content%x}
if [ "$content" = "hello" ] || [ "$content" = $'hello\n' ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo "hello.txt is missing or holds: $(printf %q "$content")"
  echo 0 > /logs/verifier/reward.txt
fi
