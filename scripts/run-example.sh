#!/usr/bin/env bash
# The main job on the bundled example: set up, build, then compile
# examples/mlp/mlp.onnx for the Ascend 310P (to vg IR until the backend lands)
# and show what happened.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
model="$root/examples/mlp/mlp.onnx"
out="$root/build/examples/mlp.vg.mlir"
mkdir -p "$(dirname "$out")"
echo "== operator check"
"$root/build/bin/vinci-compile" --model "$model" --check_support
echo "== compile $model -> $out (vg IR)"
"$root/build/bin/vinci-compile" --model "$model" --soc_version Ascend310P3 --emit=vg --output "$out"
echo "== the imported graph"
cat "$out"
