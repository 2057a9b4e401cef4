#!/usr/bin/env bash
# The main job on the bundled example: set up and build, then compile
# examples/mlp/mlp.onnx for the Ascend 310P into an .om, run it on the
# simulator, compare with PyTorch on the same weights, and show what happened.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
bin="$root/build/bin"
model="$root/examples/mlp/mlp.onnx"
out="$root/build/examples"
mkdir -p "$out"

echo "== operator check"
"$bin/vinci-compile" --model "$model" --check_support

echo "== compile $model for Ascend310P3 (force_fp16)"
"$bin/vinci-compile" --model "$model" --soc_version Ascend310P3 --emit=om \
  --output "$out/mlp.om" --report "$out/mlp.report.json" --dump_dir "$out/mlp.ir"
/usr/bin/python3 - "$out/mlp.report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for kernel in report["kernels"]:
    print(f"  {kernel['name']:<14} {kernel['kind']:<6} ~{kernel['estimated_cycles']:>6} cycles  "
          f"from {', '.join(kernel['source_nodes'])}")
print(f"  {report['num_kernels']} kernels, arena {report['arena_bytes']} B "
      f"(lower bound {report['arena_lower_bound_bytes']} B), weights {report['weights_bytes']} B (fp16)")
print(f"  IR after each pass: {sys.argv[1].replace('report.json', 'ir/')}")
PY

echo "== the .om"
"$bin/vinci-info" "$out/mlp.om"

echo "== run on the Ascend310P3 simulator"
/usr/bin/python3 -c "import numpy as np; np.random.seed(0); \
np.save('$out/mlp.input.npy', np.random.rand(1, 1, 16, 16).astype(np.float32))"
"$bin/vinci-run" --model "$out/mlp.om" --input "$out/mlp.input.npy" --output_dir "$out/mlp.out"

echo "== compare with PyTorch (fp32) on the same weights"
/usr/bin/python3 "$root/examples/mlp/compare.py" "$out/mlp.input.npy" "$out/mlp.out/output_0.npy"
