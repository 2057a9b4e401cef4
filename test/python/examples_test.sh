#!/bin/sh
# ctest python_examples: the README's two examples, as a user runs them.
#  1. examples/python/compile_and_run.py (ResNet-18 nn.Module -> .om -> run -> top-5)
#  2. examples/embed: the runtime installed alone, the C program built against
#     it with find_package(VinciRuntime), run on the MLP .om; its top-5 must
#     match what the Python package computes from the same model and input.
# Usage: examples_test.sh BUILD_DIR SOURCE_DIR WORK_DIR CC
set -eu
build=$1 source=$2 work=$3 cc=$4
rm -rf "$work"
mkdir -p "$work"
export PYTHONPATH="$build/python"

VINCI_EXAMPLE_OM="$work/example.om" /usr/bin/python3 "$source/examples/python/compile_and_run.py" \
  | tee "$work/python_example.txt"
[ "$(grep -c '^[1-5]\. class ' "$work/python_example.txt")" = 5 ] || { echo "FAIL: no top-5"; exit 1; }
grep -q '^simulated .* us on Ascend310P3' "$work/python_example.txt"

cmake --install "$build" --component vinci_runtime --prefix "$work/prefix" >/dev/null
cmake -S "$source/examples/embed" -B "$work/embed" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$work/embed" >/dev/null
"$build/bin/vinci-compile" --model "$source/examples/mlp/mlp.onnx" --output "$work/mlp.om" 2>/dev/null
/usr/bin/python3 - "$work" <<'PY'
import sys, numpy as np, vinci
work = sys.argv[1]
x = np.random.default_rng(0).random((1, 1, 16, 16), dtype=np.float32)
x.tofile(f"{work}/input.bin")
(probs,) = vinci.load(f"{work}/mlp.om").run(x)
print("expected top-5:", " ".join(str(c) for c in probs[0].argsort()[::-1][:5]))
open(f"{work}/expected.txt", "w").write(" ".join(str(c) for c in probs[0].argsort()[::-1][:5]))
PY
"$work/embed/vinci-embed" "$work/mlp.om" "$work/input.bin" | tee "$work/embed.txt"
got=$(sed -n 's/^probs: top-5 of 10: //p' "$work/embed.txt" | sed 's/ ([^)]*)//g')
[ "$got" = "$(cat "$work/expected.txt")" ] || { echo "FAIL: embed top-5 '$got' != python's"; exit 1; }
grep -q '^simulated: [0-9]* cycles' "$work/embed.txt"
echo "examples: ok"
