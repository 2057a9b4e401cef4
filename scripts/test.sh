#!/usr/bin/env bash
# The whole test suite: set up and build, then every test under ctest
# (lit + FileCheck, GoogleTest, the ONNX import sweep, runtime and simulator,
# the end-to-end ONNX node tests).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
status=0
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)" "$@" || status=$?
# ctest shows a passing test's output only in its log: print the node test
# counts ('node tests (mode): N passed, N failed, N out of scope') from there.
grep -h -e '^node tests (.*passed, ' -e '^node tests (.*must-pass tests pass' \
  "$root/build/Testing/Temporary/LastTest.log" 2>/dev/null || true
exit $status
