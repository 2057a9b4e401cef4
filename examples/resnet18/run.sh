#!/usr/bin/env bash
# The main job on torchvision's ResNet-18, with tools already built:
# export it (prepare.py), check and compile it for the Ascend 310P into an
# .om, show the .om, run it on the simulator and compare with torch fp32.
#   examples/resnet18/run.sh BIN_DIR OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:?usage: run.sh BIN_DIR OUT_DIR}
out=${2:?usage: run.sh BIN_DIR OUT_DIR}
mkdir -p "$out"
model="$out/resnet18.onnx"

echo "== export torchvision's ResNet-18 (weights=None, batch norms drawn deterministically)"
/usr/bin/python3 "$here/prepare.py" "$out"

echo "== operator check"
"$bin/vinci-compile" --model "$model" --check_support > "$out/check_support.txt"
tail -n 1 "$out/check_support.txt"

echo "== compile for Ascend310P3 (force_fp16)"
"$bin/vinci-compile" --model "$model" --soc_version Ascend310P3 --output "$out/resnet18.om" \
  --report "$out/resnet18.report.json"
/usr/bin/python3 - "$out/resnet18.report.json" <<'PY'
import collections, json, sys
report = json.load(open(sys.argv[1]))
kinds = collections.Counter(k["template"] if "template" in k else k["kind"] for k in report["kernels"])
print(f"  {report['num_kernels']} kernels ({', '.join(f'{n} {t}' for t, n in kinds.most_common())}), "
      f"arena {report['arena_bytes']} B, weights {report['weights_bytes']} B (fp16)")
PY

echo "== the .om"
"$bin/vinci-info" "$out/resnet18.om" > "$out/resnet18.info.txt"
sed -n '1,/^weights/p' "$out/resnet18.info.txt"

echo "== run on the Ascend310P3 simulator"
"$bin/vinci-run" --model "$out/resnet18.om" --input "$out/image.npy" --output_dir "$out/out" \
  --hazards fatal | tee "$out/vinci-run.log"

echo "== compare with torch fp32"
/usr/bin/python3 "$here/compare.py" "$out/reference.npy" "$out/out/output_0.npy" \
  --model "$model" --run_log "$out/vinci-run.log"
