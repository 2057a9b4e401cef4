#!/usr/bin/env bash
# The main job on the bundled example: set up and build, then export
# torchvision's ResNet-18 (weights=None, batch norms drawn deterministically),
# compile it for the Ascend 310P into an .om, run it on the simulator and
# compare with torch fp32, printing the simulated latency beside the model's
# lower bound (examples/resnet18/run.sh, into build/examples/resnet18).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
exec "$root/examples/resnet18/run.sh" "$root/build/bin" "$root/build/examples/resnet18"
