#!/usr/bin/python3
"""Compare the simulator's output of mlp.om with PyTorch on the same weights.

    /usr/bin/python3 examples/mlp/compare.py INPUT.npy VINCI_OUTPUT.npy

Loads the weights from examples/mlp/mlp.onnx into the torch module that
make_mlp.py exports, runs it in fp32, and prints the comparison. It passes when the relative L2 error (the
difference's norm over torch's) is at most 1e-3: fp16 weights and
activations measure 3.5e-5 on this model; the output of another random
input measures 2.3e-2 (with cosine 0.9997 and the same top-1 class, which a
cosine and top-1 check would accept).
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_mlp import MLP  # noqa: E402

RELATIVE_L2_LIMIT = 1e-3


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare.py INPUT.npy VINCI_OUTPUT.npy")
    here = os.path.dirname(os.path.abspath(__file__))
    model = onnx.load(os.path.join(here, "mlp.onnx"))
    weights = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy())
               for t in model.graph.initializer}
    mlp = MLP().eval()
    mlp.load_state_dict({name: weights[name] for name in mlp.state_dict()})
    x = torch.from_numpy(np.load(sys.argv[1]))
    with torch.no_grad():
        expected = mlp(x).numpy().astype(np.float64).ravel()
    actual = np.load(sys.argv[2]).astype(np.float64).ravel()
    if actual.shape != expected.shape:
        sys.exit(f"compare.py: {sys.argv[2]} holds {actual.size} values, torch gives {expected.size}")
    relative_l2 = float(np.linalg.norm(expected - actual) / np.linalg.norm(expected))
    cosine = float(expected @ actual / (np.linalg.norm(expected) * np.linalg.norm(actual)))
    print(f"  torch fp32 top-1 class {int(expected.argmax())}, vinci (force_fp16, simulated) "
          f"top-1 class {int(actual.argmax())}")
    print(f"  relative L2 error {relative_l2:.2e} (limit {RELATIVE_L2_LIMIT:.0e}), "
          f"max abs difference {np.abs(expected - actual).max():.2e}, cosine {cosine:.6f}")
    return 0 if relative_l2 <= RELATIVE_L2_LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
