#!/usr/bin/env bash
# Regenerates docs/onnx-support.md from the importer sweep (never edit it by hand).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
/usr/bin/python3 "$root/test/onnx-sweep/sweep.py" \
  --vinci-compile "${VINCI_COMPILE:-$root/build/bin/vinci-compile}" \
  --doc "$root/docs/onnx-support.md" | tail -n 4
