#!/usr/bin/env bash
# expect_fail.sh REGEX COMMAND... - a planted-fault self-test: COMMAND (a
# test run on a planted fault) must fail (exit status neither 0 nor 77,
# the skip) and say REGEX (grep -E) in its output, so it failed for the
# planted reason and not another.  Its output is shown either way.
set -u
want=$1; shift
out=$(mktemp); trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1; rc=$?
cat "$out"
echo "---- expect_fail: exit status $rc"
if [ $rc = 0 ] || [ $rc = 77 ]; then
  echo "FAILED: the planted fault was not caught (exit status $rc, want a failure)"; exit 1
fi
grep -Eq -- "$want" "$out" || { echo "FAILED: the failure does not say /$want/"; exit 1; }
echo "the planted fault was caught: exit status $rc, output says /$want/"
