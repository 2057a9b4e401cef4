#!/usr/bin/env bash
# Regenerates docs/onnx-support.md from the end-to-end node test run (never
# edit it by hand): every ONNX node test compiled, simulated and compared, as
# the e2e_node_tests ctest does. Build first (ninja -C build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
/usr/bin/python3 "$root/test/e2e/node_tests.py" --bin "${VINCI_BIN:-$root/build/bin}" \
  --write-doc "$@" | grep -e '^node tests (.*passed, ' -e 'must-pass tests pass' -e '^wrote '
