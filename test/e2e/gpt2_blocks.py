#!/usr/bin/python3
"""End to end: two GPT-2-style pre-LN blocks (LayerNorm, separate q/k/v
Linear layers, scale, causal mask added as [1, 1, S, S], softmax, tanh
GELU MLP, residuals) exported from torch (opset 14), compiled with every
fusion on and with QkvFusion and ElementwiseFusion off, run on the
simulator (hazards fatal) and compared with the torch fp32 output.

Checks: cosine >= 0.999 and max error <= 2e-2 for both; the fused compile
joins Q, K and V into one Cube kernel a block and the causal mask add (a
[S, S] mask broadcast over the heads) into the attention kernel, and prints
its kernels per block. Prints 'N passed, N failed'.

  gpt2_blocks.py --bin build/bin
"""
import argparse
import math
import os
import sys
import tempfile

import numpy as np
import torch
from torch import nn
from e2e_common import compile_and_run, summarize  # noqa: E402

SEQ, DIM, HEADS = 32, 64, 2
PARTLY_OFF = {"Switch": {"GraphFusion": {"QkvFusion": "off"},
                         "UBFusion": {"ElementwiseFusion": "off"}}}


class Block(nn.Module):
    """A GPT-2 block: pre-LN, causal attention, tanh GELU (bench/host_speed
    builds GPT-2 small's from it)."""

    def __init__(self, dim=DIM, heads=HEADS, seq=SEQ):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.q, self.k, self.v, self.o = (nn.Linear(dim, dim) for _ in range(4))
        self.up, self.down = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), -1e4), 1)[None, None])

    def forward(self, x):
        b, s, d = x.shape
        hd = d // self.heads
        y = self.ln1(x)
        q, k, v = (p(y).view(b, s, self.heads, hd).transpose(1, 2)
                   for p in (self.q, self.k, self.v))
        a = (q @ k.transpose(-1, -2)) / math.sqrt(hd) + self.mask
        a = (a.softmax(-1) @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.o(a)
        return x + self.down(nn.functional.gelu(self.up(self.ln2(x)), approximate="tanh"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(Block(), Block()).eval()
    x = torch.randn(1, SEQ, DIM)
    with torch.no_grad():
        want = model(x).numpy().astype(np.float64)
    results = []
    with tempfile.TemporaryDirectory() as work:
        path, x_path = os.path.join(work, "gpt2_blocks.onnx"), os.path.join(work, "x.npy")
        torch.onnx.export(model, (x,), path, opset_version=14, input_names=["x"],
                          output_names=["y"])
        np.save(x_path, x.numpy())
        for tag, switches in (("fused", None), ("partly_unfused", PARTLY_OFF)):
            y, kernels, why = compile_and_run(args.bin, work, path, tag, switches, [x_path])
            if not why:
                y = y.astype(np.float64).ravel()
                cos = y @ want.ravel() / (np.linalg.norm(y) * np.linalg.norm(want))
                err = np.abs(y - want.ravel()).max()
                if cos < 0.999 or err > 2e-2:
                    why = f"cosine {cos:.6f}, max error {err:.3e} vs torch fp32"
            if not why and tag == "fused":
                cube = [k["source_nodes"] for k in kernels if k["kind"] == "cube"]
                qkv = [s for s in cube if any("/0/q/MatMul" in n for n in s)]
                if len(qkv) != 1 or not any("/0/k/MatMul" in n for n in qkv[0][0].split("+")):
                    why = "Q and K of block 0 are not one Cube kernel"
                elif not any("/0/Add" in s for s in cube if "/0/MatMul" in s):
                    why = "the causal mask add is not in block 0's attention kernel"
                print(f"gpt2_blocks: fused: {len(kernels) / 2:g} kernels per block, cosine "
                      f"{cos:.6f}, max error {err:.3e} vs torch fp32")
            results.append((f"{tag}_vs_torch_fp32", why))

    return summarize(results)


if __name__ == "__main__":
    sys.exit(main())
