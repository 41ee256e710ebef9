#!/bin/bash
# Reward 1 when wordcount.sh gives the exact output on awkward names and edge cases.
mkdir -p /logs/verifier
fail() { echo "FAIL: $*"; echo 0 > /logs/verifier/reward.txt; exit 0; }
d=$(mktemp -d /tmp/wc.XXXXXX)
mkdir -p "$d/my docs/sub dir" "$d/empty dir"
cd "$d/my docs"
printf 'a b c\n' > 'file one.txt'
printf 'x\n' > 'star*.txt'
printf 'hello  world\n\n again\n' > "it's.txt"
printf 'one\n' > '-dash.txt'
printf '' > 'empty file.txt'
printf 'w1 w2\n' > 'tab	name.txt'
printf 'ignored\n' > 'not a text.md'
printf 'deep words here\n' > 'sub dir/inner.txt'
cd /tmp
want=$(cd "$d/my docs" && for f in *.txt; do printf '%s: %s\n' "$f" "$(wc -w < "./$f")"; done | LC_ALL=C sort)
got=$(timeout 10 bash /app/wordcount.sh "$d/my docs" 2>&1)
[ "$got" = "$want" ] || fail "awkward names: got [$got] expected [$want]"
got=$(timeout 10 bash /app/wordcount.sh "$d/empty dir" 2>&1); rc=$?
[ -z "$got" ] && [ $rc -eq 0 ] || fail "empty dir: got [$got] rc $rc"
got=$(timeout 10 bash /app/wordcount.sh /app/docs 2>&1)
[ "$got" = $'alpha.txt: 3\nbeta.txt: 2' ] || fail "docs: got [$got]"
echo 1 > /logs/verifier/reward.txt
