#!/usr/bin/env bash
# The main job on the bundled example: set up, build, then compile
# examples/mlp/mlp.onnx for the Ascend 310P through the graph passes and the
# kernel partition (to vg IR and a compile report until the backend lands)
# and show what happened.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
model="$root/examples/mlp/mlp.onnx"
out="$root/build/examples"
mkdir -p "$out"
echo "== operator check"
"$root/build/bin/vinci-compile" --model "$model" --check_support
echo "== compile $model for Ascend310P3"
"$root/build/bin/vinci-compile" --model "$model" --soc_version Ascend310P3 --emit=vg-opt \
  --output "$out/mlp.vg-opt.mlir" --report "$out/mlp.report.json" --dump_dir "$out/mlp.ir"
echo "== the optimised graph ($out/mlp.vg-opt.mlir)"
cat "$out/mlp.vg-opt.mlir"; echo
echo "== kernels and GM arena plan ($out/mlp.report.json; IR after each pass in $out/mlp.ir/)"
/usr/bin/python3 - "$out/mlp.report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for kernel in report["kernels"]:
    print(f"  {kernel['name']:<14} {kernel['kind']:<6} ~{kernel['estimated_cycles']:>6} cycles  "
          f"from {', '.join(kernel['source_nodes'])}")
print(f"  {report['num_kernels']} kernels, arena {report['arena_bytes']} B "
      f"(lower bound {report['arena_lower_bound_bytes']} B), weights {report['weights_bytes']} B (fp16)")
print(f"  ({report['note']})")
PY
