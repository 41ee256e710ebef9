#!/bin/bash
# Reward 1 when a clean build succeeds, calc behaves as specified, and clean cleans.
mkdir -p /logs/verifier
fail() { echo "FAIL: $*"; echo 0 > /logs/verifier/reward.txt; exit 0; }
cd /app || fail "no /app"
timeout 20 make clean >/dev/null 2>&1
rm -f calc src/*.o
timeout 30 make || fail "make failed"
[ -x /app/calc ] || fail "make did not produce /app/calc"
check() { out=$(timeout 5 ./calc "$1" "$2" "$3"); [ "$out" = "$4" ] || fail "calc $1 $2 $3 printed '$out', expected '$4'"; }
check hyp 3 4 5.000
check hyp 1 1 1.414
check hyp 0.5 1.2 1.300
check gcd 12 18 6
check gcd -21 14 7
check gcd 17 0 17
timeout 20 make clean >/dev/null 2>&1 || fail "make clean failed"
[ ! -e calc ] || fail "make clean left calc"
ls src/*.o >/dev/null 2>&1 && fail "make clean left object files"
echo 1 > /logs/verifier/reward.txt
