#!/usr/bin/env bash
# The whole test suite: set up and build, then every test under ctest
# (lit + FileCheck, GoogleTest, the ONNX import sweep, runtime and simulator).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)" "$@"
