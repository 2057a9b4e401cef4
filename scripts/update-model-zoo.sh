#!/usr/bin/env bash
# Regenerates docs/model-zoo.md from the torchvision model-zoo sweep (never
# edit it by hand): each model compiled through both front ends, simulated
# and compared with torch fp32 (test/e2e/model_zoo.py). Build first (vbuild).
# Arguments go to model_zoo.py, e.g. --models resnet18,vgg11 --sizes 224;
# the default sweeps all 80 at 224 and 512, which takes hours on 2 cores
# (results are cached by build in ~/.cache/vinci-model-zoo). --ci rewrites
# only the doc's CI section (ctest e2e_model_zoo's subset, a few minutes).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
/usr/bin/python3 "$root/test/e2e/model_zoo.py" --bin "${VINCI_BIN:-$root/build/bin}" \
  --python "${VINCI_PYTHON:-$root/build/python}" --write-doc "$@" \
  | grep -e ' compile and match' -e '^wrote ' -e '^SKIP'
