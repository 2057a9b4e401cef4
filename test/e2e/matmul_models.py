#!/usr/bin/python3
"""End to end: matmul forms exported from torch that reach the Cube template
in a shape of their own, compiled to .om (force_fp16, the default), run on
the simulator (hazards fatal) and compared with torch fp32.

A batched operand transposed by a 2-D weight, x.transpose(-1, -2) @ W
(PaddleOCR-style recognisers turn [N, C, T] features into [N, T, C] rows
this way, opset 9): the transpose folds into the matmul as transpose_a and
the batch cannot fold into the rows, so the kernel runs a batch whose B is
one weight for every batch. A Linear layer whose blocks hold several rows
and several column tiles of the output, so that each block keeps its B
columns in L1 and every column tile reads its own part of them. A
1000-class head on a ragged block grid. Checks per case: one Cube kernel
holds the MatMul (no transpose kernel of its own), relative L2 error <=
3e-3 against torch, and, as the negative control, that the output of the
same model with its batches (at batch 1, its columns) shifted by one (a
wrong batch or column offset) fails that comparison.
Prints max abs and relative L2 errors and 'N passed, N failed'.

  matmul_models.py --bin build/bin
"""
import argparse
import os
import sys
import tempfile

import numpy as np
import torch
from torch import nn
from e2e_common import compile_and_run, error_figures, mismatch, rejects, summarize

MAX_REL_L2 = 3e-3


class Linear(nn.Module):
    """x @ W + b with a constant W (no transpose, no activation)."""

    def __init__(self, k, n):
        super().__init__()
        self.linear = nn.Linear(k, n)

    def forward(self, x):
        return self.linear(x)


class TransposedByWeight(nn.Module):
    """x.transpose(-1, -2) @ W, then an optional bias and ReLU (the Cube
    epilogue over the same batches). W is a constant (stored in FRACTAL_NZ)
    or, with `w_input`, the model's second input (read row by row)."""

    def __init__(self, k, n, bias, w_input):
        super().__init__()
        self.w = None if w_input else nn.Parameter(torch.randn(k, n) / k ** 0.5)
        self.b = nn.Parameter(torch.randn(n)) if bias else None

    def forward(self, x, w=None):
        y = x.transpose(-1, -2) @ (self.w if w is None else w)
        return torch.relu(y + self.b) if self.b is not None else y


CASES = [  # (name, input shape [.., K, M], N, bias + relu, W an input)
    ("ta_by_weight_3x40x50", (3, 40, 50), 96, False, False),
    # A recogniser's head: [N, C, T] features to T rows of C, a Linear with
    # its bias, K = 288 in several steps, batch 2 x 3 (rank 4).
    ("ta_by_weight_2x3x288x40_bias_relu", (2, 3, 288, 40), 120, True, False),
    # More batches than cores: several batches a block re-read the weight.
    ("ta_by_weight_20x64x16", (20, 64, 16), 48, False, False),
    # The weight a graph input (f32: through UB and vconv), K in two steps.
    ("ta_by_input_weight_12x200x24", (12, 200, 24), 40, False, True),
    # No transpose: [4, 128, 384] by a 384 x 1024 Linear with its bias; a
    # block's 256 x 256 output is 2 rows of 2 column tiles, its B columns
    # stay in L1.
    ("linear_4x128x384_by_1024", (4, 128, 384), 1024, True, False),
    # A 1000-class head (Gemm, transB = 1) at batch 1 and 17: no 8 equal
    # parts of whole 32-byte f32 blocks, so 8 ragged blocks of 128 columns,
    # the edge block's last 104 from its shifted first tile. The input is
    # fed as fp16 (--input_fp16_nodes) as an activation would be: over an
    # f32 A of several rows the template keeps the equal grid.
    ("linear_1x512_by_1000", (1, 512), 1000, True, False),
    ("linear_17x1280_by_1000_fp16", (17, 1280), 1000, True, False),
    # 8 blocks of 504 (the edge block's 472) in 4 tiles: the first tile's
    # store, shifted on the edge block, is not a loop's; and 200 columns on
    # 4 blocks of 56 (8 blocks of 32 would leave the edge block 8).
    ("linear_64x512_by_4000_fp16", (64, 512), 4000, True, False),
    ("linear_1x512_by_200", (1, 512), 200, True, False),
]


def run_case(bin_dir, work, name, shape, n, bias, w_input):
    model = (Linear(shape[-1], n) if name.startswith("linear") else
             TransposedByWeight(shape[-2], n, bias, w_input)).eval()
    inputs = {"x": torch.randn(*shape)}
    if w_input:
        inputs["w"] = torch.randn(shape[-2], n) / shape[-2] ** 0.5
    path = os.path.join(work, name + ".onnx")
    torch.onnx.export(model, tuple(inputs.values()), path, opset_version=9,
                      input_names=list(inputs), output_names=["y"])
    files, fp16 = [], name.endswith("_fp16")
    for key, value in inputs.items():
        files.append(os.path.join(work, f"{name}.{key}.npy"))
        np.save(files[-1], value.numpy().astype(np.float16 if fp16 else np.float32))
    if fp16:  # the reference sees the same rounded input
        inputs = {key: torch.from_numpy(np.load(f).astype(np.float32))
                  for key, f in zip(inputs, files)}
    actual, kernels, why = compile_and_run(bin_dir, work, path, name, None, files,
                                           ["--input_fp16_nodes", "x"] if fp16 else ())
    if why:
        return why
    holders = [k for k in kernels
               if any("MatMul" in s or "Gemm" in s for s in k["source_nodes"])]
    if len(holders) != 1 or holders[0]["kind"] != "cube":
        return f"the MatMul is in kernels {[(k['name'], k['kind']) for k in holders]}, not one Cube kernel"
    # An fp16 input comes in through a copy kernel of its own (x:0).
    others = [k for k in kernels
              if k is not holders[0] and not (fp16 and k["source_nodes"] == ["x"])]
    if others:
        return f"{len(kernels)} kernels ({[k['name'] for k in kernels]}), expected the Cube kernel alone"
    with torch.no_grad():
        expected = model(*inputs.values()).numpy()
    why = mismatch(actual, expected, MAX_REL_L2)
    if not why and shape[0] == 1:
        why = rejects(np.roll(actual, 1, axis=-1), expected, MAX_REL_L2,
                      "columns shifted by one")
    elif not why:
        why = rejects(np.roll(actual, 1, axis=0), expected, MAX_REL_L2,
                      "batches shifted by one")
    print(f"  {name}: {error_figures(actual, expected)}")
    return why


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as work:
        results = [(case[0], run_case(args.bin, work, *case)) for case in CASES]
    return summarize(results)


if __name__ == "__main__":
    sys.exit(main())
