#!/usr/bin/python3
"""End to end: convs near the Cube conv template's buffer limits (many
input channels, bands split over channel planes, large kernels, wide rows,
many output channels, batch 2, the Ascend910B's smaller buffers), each
compiled force_fp16 to .om, run on the simulator (hazards fatal) and
compared with torch fp32: relative L2 error at most MAX_REL_L2 and max abs
error at most MAX_ABS_OF_SCALE of the reference's max abs. Each case also
says which path its convs must take: "cube" (the Cube conv template, none
unfolded: the planner found a tiling) or "unfold" (the partition's rule
refused it, and it runs as unfolded windows). Three are the convs at which
torchvision's vit_b_16, wide_resnet50_2 and densenet161 stopped with "no
conv tiling fits the SoC's buffers". Prints 'N passed, N failed'.

  conv_limits.py --bin build/bin [--only NAME] [--keep DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
from torch import nn

from e2e_common import error_figures, mismatch, summarize

# fp16 storage of inputs, weights and outputs against fp32 torch measured
# 3.5e-4 to 4e-4 relative L2 for these (K up to 4096 accumulates in f32 on
# the Cube); a wrong tile, band or K step moves whole output rows.
MAX_REL_L2 = 3e-3
MAX_ABS_OF_SCALE = 1e-2


class ConvRelu(nn.Module):
    def __init__(self, cin, cout, k, stride=1, pad=0):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, stride, pad)

    def forward(self, x):
        return torch.relu(self.conv(x))


class Residual(nn.Module):
    """A conv whose output is an intermediate tensor (f16, NC1HWC0 between
    conv kernels) feeding a second conv with a residual add and a ReLU in
    its epilogue: the input of a conv that is not a graph input."""

    def __init__(self, cin, mid, k, pad):
        super().__init__()
        self.a = nn.Conv2d(cin, mid, k, 1, pad)
        self.b = nn.Conv2d(mid, mid, k, 1, pad)

    def forward(self, x):
        y = torch.relu(self.a(x))
        return torch.relu(self.b(y) + y)


class ResidualMean(Residual):
    """Residual, whose last conv feeds a mean (ND only): the conv's output
    goes ND while its residual, the first conv's output that the second
    conv reads too, stays NC1HWC0 (each read in its own layout)."""

    def forward(self, x):
        return super().forward(x).mean(dim=(2, 3))


class Expand(nn.Module):
    """1x1 expand to many channels, then a 3x3 stride-2 conv over them."""

    def __init__(self, cin, mid, cout):
        super().__init__()
        self.expand = nn.Conv2d(cin, mid, 1)
        self.down = nn.Conv2d(mid, cout, 3, 2, 1, bias=False)

    def forward(self, x):
        return self.down(torch.relu(self.expand(x)))


CASES = {  # name: (module factory, input shape, path[, target SoC])
    # torchvision vit_b_16's /conv_proj: 16 input rows of 224 a band.
    "vit_b_16_patch": (lambda: ConvRelu(3, 768, 16, 16), (1, 3, 224, 224), "cube"),
    # wide_resnet50_2's /layer3/layer3.0/conv2 (512 channels, 3x3 stride 2).
    "wide_resnet50_2_layer3": (lambda: ConvRelu(512, 512, 3, 2, 1), (1, 512, 28, 28), "cube"),
    # densenet161's denselayer35 conv1: a 1x1 over 2016 channels.
    "densenet161_1x1_2016": (lambda: ConvRelu(2016, 192, 1), (1, 2016, 14, 14), "cube"),
    "1x1_4096_batch2": (lambda: ConvRelu(4096, 256, 1), (2, 4096, 7, 7), "cube"),
    "3x3s2_1024": (lambda: ConvRelu(1024, 256, 3, 2, 1), (1, 1024, 14, 14), "cube"),
    "3x3s2_256_batch2": (lambda: ConvRelu(256, 256, 3, 2, 1), (2, 256, 56, 56), "cube"),
    "7x7s2_stem_448": (lambda: ConvRelu(3, 64, 7, 2, 3), (1, 3, 448, 448), "cube"),
    "7x7_256": (lambda: ConvRelu(256, 128, 7, 1, 3), (1, 256, 28, 28), "cube"),
    # 4000 output channels: no channel split (a partial fractal), the bias
    # through UB in chunks.
    "1x1_to_4000": (lambda: ConvRelu(64, 4000, 1), (1, 64, 7, 7), "cube"),
    # One output row's input rows of all channels twice do not fit L1 (the
    # Ascend310P3's 1 MiB: 3 rows x 64 x 2048 channels are 768 KiB, a row
    # of 128 x 4096 channels 1 MiB), so the band is split over channel
    # parts: an NC1HWC0 input (after the 1x1 expand), an f32 NCHW graph
    # input whose last plane holds 8 channels (batch 2), a 1x1.
    "expand_2048_planes_split": (lambda: Expand(256, 2048, 64), (1, 256, 6, 64), "cube"),
    "3x3_2040_planes_split_batch2": (lambda: ConvRelu(2040, 64, 3, 1, 1), (2, 2040, 4, 64),
                                     "cube"),
    "1x1_4096_planes_split": (lambda: ConvRelu(4096, 48, 1), (1, 4096, 2, 128), "cube"),
    # A row of 256 x 2048 channels (1 MiB), with a residual add and a ReLU
    # on every channel tile's accumulator after the last part.
    "1x1_2048_planes_split_residual": (lambda: Residual(64, 2048, 1, 0), (1, 64, 2, 256), "cube"),
    # On the Ascend910B (512 KiB L1, 128 KiB L0C, 192 KiB UB): 3 rows x 28
    # x 2048 channels (344 KiB) twice need the plane split there.
    "expand_2048_910b": (lambda: Expand(256, 2048, 128), (1, 256, 28, 28), "cube", "Ascend910B"),
    "vit_b_16_patch_910b": (lambda: ConvRelu(3, 768, 16, 16), (1, 3, 224, 224), "cube",
                            "Ascend910B"),
    # Blocks of two row parts x four channel parts whose two M tiles take
    # the weight's K parts together, L0C holding both accumulators (the
    # second conv with its residual; the first from an f32 NCHW input), and
    # a 3x3 stride 2 whose two tiles of 9 and 5 rows share one band buffer
    # each (ResNet-18's layer2 and layer3.0 conv1).
    "fed_tiles_28x28_128_residual": (lambda: Residual(128, 128, 3, 1), (1, 128, 28, 28), "cube"),
    "fed_tiles_3x3s2_128_to_256": (lambda: ConvRelu(128, 256, 3, 2, 1), (1, 128, 28, 28), "cube"),
    "residual_nc1hwc0_output_nd": (lambda: ResidualMean(64, 128, 3, 1), (1, 64, 14, 14), "cube"),
    # Rows of 600 positions: one output row a tile, small UB staging; with
    # a residual epilogue (its tiles may not fit: then the add is a kernel
    # of its own).
    "wide_rows_600": (lambda: ConvRelu(32, 32, 3, 1, 1), (1, 32, 6, 600), "cube"),
    "wide_rows_600_residual": (lambda: Residual(16, 32, 3, 1), (1, 16, 5, 600), "cube"),
    # 1400 positions a row: L0A cannot hold one row's A tile twice, so the
    # rule refuses it and it runs unfolded.
    "wide_rows_1400": (lambda: ConvRelu(16, 16, 3, 1, 1), (1, 16, 4, 1400), "unfold"),
}


def run_case(name, factory, shape, path, soc, bin_dir, work):
    torch.manual_seed(0)
    model = factory().eval()
    x = torch.randn(*shape)
    with torch.no_grad():
        want = model(x).numpy()
    onnx_path, om = os.path.join(work, name + ".onnx"), os.path.join(work, name + ".om")
    report = os.path.join(work, name + ".json")
    torch.onnx.export(model, x, onnx_path, opset_version=14, input_names=["x"],
                      output_names=["y"])
    np.save(os.path.join(work, name + ".npy"), x.numpy())
    out_dir = os.path.join(work, name + ".out")
    start = time.time()
    for step in ([os.path.join(bin_dir, "vinci-compile"), "--model", onnx_path, "--emit=om",
                  "--output", om, "--report", report, "--soc_version", soc],
                 [os.path.join(bin_dir, "vinci-run"), "--model", om, "--hazards", "fatal",
                  "--input", os.path.join(work, name + ".npy"), "--output_dir", out_dir]):
        proc = subprocess.run(step, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            lines = proc.stderr.strip().splitlines() or ["failed"]
            return next((line for line in lines if "error:" in line), lines[-1]), ""
    with open(report) as f:
        unfolded = json.load(f)["unfolded_windows"]
    got = np.load(os.path.join(out_dir, "output_0.npy")).astype(np.float64)
    scale = float(np.abs(want).max())
    detail = f"{error_figures(got, want)}, {time.time() - start:.1f}s"
    why = mismatch(got, want, MAX_REL_L2)
    if why:
        return why, ""
    if np.abs(got - want).max() > MAX_ABS_OF_SCALE * scale:
        why = f"max abs error above {MAX_ABS_OF_SCALE:g} of the reference's scale"
    if path == "cube" and unfolded:
        why = f"expected the Cube conv template, but unfolded: {unfolded[0]['reason']}"
    if not why and path == "unfold" and not unfolded:
        why = "expected the rule to refuse it (unfolded windows), but the Cube template took it"
    if path == "unfold" and unfolded:
        detail += f"; unfolded: {unfolded[0]['reason']}"
    return (f"{why}; {detail}" if why else ""), detail


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--only", help="run this case only")
    parser.add_argument("--keep", help="keep the files in this directory")
    args = parser.parse_args()
    cases = {args.only: CASES[args.only]} if args.only else CASES
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        for name, (factory, shape, path, *soc) in cases.items():
            why, detail = run_case(name, factory, shape, path, soc[0] if soc else "Ascend310P3",
                                   args.bin, work)
            results.append((name if why else f"{name}: {detail}", why))
    return summarize(results)

if __name__ == "__main__":
    sys.exit(main())
