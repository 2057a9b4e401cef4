#!/usr/bin/python3
"""How far torch itself drifts from its fp32 output with fp16 storage: the
floor under any force_fp16 compile of a model-zoo model.

The model of test/e2e/model_zoo.py (same seeded weights, calibrated and
perturbed norms, same input) runs in torch twice: in fp32, and with every
parameter, buffer, the input and every leaf module's output rounded to fp16
(arithmetic inside a module stays fp32, as Vinci's kernels keep f32 inside
a kernel). When this drift already exceeds the sweep's bound, no fp16
compile can match, and the sweep's failure is the model's, not Vinci's:
with weights=None, EfficientNet-B1..B7's residual stream grows block after
block (past fp16's 65504 from B5 on).

  fp16_floor.py [--cache DIR] [--side 224] MODEL [MODEL ...]
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_zoo  # noqa: E402


def drift(name, side, cache):
    x_path, want, na = model_zoo.reference(name, side, cache)
    if want is None:
        return f"{name} {side}: n/a ({na})"
    model = model_zoo.build_model(name, cache)
    largest = []
    with torch.no_grad():
        for tensor in list(model.parameters()) + list(model.buffers()):
            if tensor.is_floating_point():
                tensor.copy_(tensor.half().float())

    def to_fp16(module, inputs, output):
        if torch.is_tensor(output) and output.is_floating_point():
            largest.append(output.abs().max().item())
            return output.half().float()
        return output

    for module in model.modules():
        if not list(module.children()):
            module.register_forward_hook(to_fp16)
    with torch.no_grad():
        x = torch.from_numpy(np.load(x_path)).half().float()
        got = model(x).numpy().astype(np.float64).ravel()
    ref = want.astype(np.float64).ravel()
    cosine = got @ ref / (np.linalg.norm(got) * np.linalg.norm(ref) + 1e-300)
    rel_l2 = np.linalg.norm(got - ref) / (np.linalg.norm(ref) + 1e-300)
    fits = "within the sweep's bound" if cosine >= model_zoo.COSINE_MIN and \
        rel_l2 <= model_zoo.REL_L2_MAX else "beyond the sweep's bound"
    return (f"{name} {side}: torch with fp16 storage: cosine {cosine:.6f}, relative L2 "
            f"{100 * rel_l2:.2f}% ({fits}); largest activation {max(largest):.0f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+")
    parser.add_argument("--cache", default=model_zoo.DEFAULT_CACHE)
    parser.add_argument("--side", type=int, default=224)
    args = parser.parse_args()
    os.makedirs(args.cache, exist_ok=True)
    torch.set_num_threads(1)
    for name in args.models:
        print(drift(name, args.side, args.cache), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
