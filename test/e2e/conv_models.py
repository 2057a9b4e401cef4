#!/usr/bin/python3
"""End to end: convolutional models exported from torch (torchvision-style
blocks: conv + batch norm + relu, max pool, residual adds, global average
pool, a linear head), compiled force_fp16 to .om, run on the simulator
(hazards fatal) and compared with torch fp32 by relative L2 error (at most
MAX_REL_L2), beside a negative control: the output every average pool with a
wrong divisor (halved) would give must fail the same comparison (a cosine
and the top-1 cannot see it: halving ResNet-18's pooled features keeps
both). Prints 'N passed, N failed'.

  conv_models.py --bin build/bin [--only NAME] [--resnet18]

--resnet18 adds torchvision's ResNet-18 (weights=None, 1x3x224x224); it
takes about 10 s here, so ctest runs it. --mobilenet_v2 adds torchvision's
MobileNetV2 (weights=None, BatchNorm statistics measured on random inputs:
see batch_norms_calibrated), ctest too.
"""
import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
from torch import nn

from e2e_common import cosine, error_figures, mismatch, rejects

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "examples", "models"))
import export_models  # noqa: E402

# Relative L2 error allowed against torch fp32 (force_fp16 storage): 5x what
# was measured (1e-4 to 6e-4 for the small models and ResNet-18, 1.5e-2 for
# MobileNetV2, whose 17 depthwise stages compound fp16 rounding); a halved
# average pool moves the output by about 0.5.
MAX_REL_L2 = 5e-3
# The depthwise model's own bound, 5x its measured 3.0e-4: its mistakes
# (a tap at the wrong offset) average out in the pooled logits, and the
# shared bound let a dropped dilation through (3.8e-3).
MAX_REL_L2_DEPTHWISE = 1.5e-3
MAX_REL_L2_MOBILENET_V2 = 7.5e-2


class BasicBlock(nn.Module):
    """torchvision's ResNet basic block."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (self.down(x) if self.down is not None else x))


class TinyResNet(nn.Module):
    """ResNet-18's structure at a small width and resolution."""

    def __init__(self, width=16, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 7, 2, 3, bias=False), nn.BatchNorm2d(width),
                                  nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        self.layers = nn.Sequential(BasicBlock(width, width, 1), BasicBlock(width, 2 * width, 2))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(2 * width, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.layers(self.stem(x))), 1))


class PoolsAndBias(nn.Module):
    """Conv with a bias, dilation and asymmetric stride; average pools with and
    without counting pads; a max pool with ceil_mode."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, (1, 2), padding=2, dilation=2)
        self.avg = nn.AvgPool2d(3, 2, 1, count_include_pad=False)
        self.avg_pad = nn.AvgPool2d(2, 1, 1, count_include_pad=True)
        self.maxp = nn.MaxPool2d(2, 2, ceil_mode=True)

    def forward(self, x):
        y = self.conv(x)
        return self.maxp(self.avg(y) + self.avg_pad(y)[:, :, :-1, :-1][:, :, ::2, ::2])


class InvertedResidual(nn.Module):
    """MobileNetV2's block: 1x1 expand, 3x3 depthwise, 1x1 project (+ skip)."""

    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        mid = cin * expand
        self.skip = stride == 1 and cin == cout
        self.body = nn.Sequential(
            nn.Conv2d(cin, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU6(),
            nn.Conv2d(mid, mid, 3, stride, 1, groups=mid, bias=False), nn.BatchNorm2d(mid),
            nn.ReLU6(), nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.body(x)
        return x + y if self.skip else y


class TinyMobileNet(nn.Module):
    """MobileNetV2's structure at a small width and resolution, plus a
    grouped conv (groups 2)."""

    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU6(),
            InvertedResidual(16, 16, 1, 2), InvertedResidual(16, 24, 2, 4),
            InvertedResidual(24, 24, 1, 4), nn.Conv2d(24, 32, 3, 1, 1, groups=2),
            nn.ReLU6())
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(self.features(x), 1), 1))


class BatchedConvs(nn.Module):
    """Batch N through the Cube conv template: 3 input channels (one plane,
    zero padded), 20 and 40 output channels (a partial channel fractal),
    stride 2, a dilated 5x5, a 1x1 stride-2 downsample, ReLU6 (clip) and a
    residual add in the epilogue, a global average pool and a linear head."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 20, 3, 2, 1, bias=False), nn.BatchNorm2d(20),
                                  nn.ReLU6())
        self.wide = nn.Sequential(nn.Conv2d(20, 20, 5, 1, 4, dilation=2), nn.ReLU())
        self.conv = nn.Sequential(nn.Conv2d(20, 40, 3, 2, 1, bias=False), nn.BatchNorm2d(40))
        self.down = nn.Conv2d(20, 40, 1, 2)
        self.fc = nn.Linear(40, classes)

    def forward(self, x):
        y = self.stem(x)
        y = self.wide(y) + y
        y = torch.relu(self.conv(y) + self.down(y))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1))


class DepthwiseConvs(nn.Module):
    """The Vector depthwise template at batch 2: 3x3 stride 1 and 2 with
    pads (BatchNorm folded, ReLU6 as its clip epilogue), a dilated 3x3
    (pad 2), a 5x5 with strides (1, 2), pads (1, 2) and a bias (ReLU
    epilogue) over 20 channels (a partial 16-channel group), between Cube
    convs."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 1, 1, bias=False), nn.BatchNorm2d(32),
                                  nn.ReLU6())
        self.dw1 = nn.Sequential(nn.Conv2d(32, 32, 3, 1, 1, groups=32, bias=False),
                                 nn.BatchNorm2d(32), nn.ReLU6())
        self.dw2 = nn.Sequential(nn.Conv2d(32, 32, 3, 2, 1, groups=32, bias=False),
                                 nn.BatchNorm2d(32), nn.ReLU6())
        self.dw3 = nn.Sequential(nn.Conv2d(32, 32, 3, 1, 2, dilation=2, groups=32, bias=False),
                                 nn.BatchNorm2d(32))
        self.mid = nn.Sequential(nn.Conv2d(32, 20, 1), nn.ReLU())
        self.dw4 = nn.Sequential(nn.Conv2d(20, 20, 5, (1, 2), (1, 2), groups=20), nn.ReLU())
        self.head = nn.Conv2d(20, 24, 1)
        self.fc = nn.Linear(24, classes)

    def forward(self, x):
        y = self.dw3(self.dw2(self.dw1(self.stem(x))))
        y = self.head(self.dw4(self.mid(y)))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1))


class DepthwiseSteps(nn.Module):
    """Depthwise convs whose maps fit one band, so that a block computes
    its channel groups in steps of several groups (one load and one store
    a step): 88 channels straight from the NCHW graph input (6 groups, the
    last of 8 channels; stride 2, pad 1, a bias), 88 channels again
    (BatchNorm folded, between Cube convs), 208 channels (13 groups: blocks of 2 on 7 cores, the
    edge block repeating its step; ReLU6) and a 5x5 (pad 2) whose map is
    also the NCHW output, beside its average pool."""

    def __init__(self):
        super().__init__()
        self.dw0 = nn.Sequential(nn.Conv2d(88, 88, 3, 2, 1, groups=88), nn.ReLU6())
        self.pw1 = nn.Sequential(nn.Conv2d(88, 88, 1), nn.ReLU())
        self.dw1 = nn.Sequential(nn.Conv2d(88, 88, 3, 1, 1, groups=88, bias=False),
                                 nn.BatchNorm2d(88), nn.ReLU6())
        self.pw2 = nn.Conv2d(88, 208, 1)
        self.dw2 = nn.Sequential(nn.Conv2d(208, 208, 3, 1, 1, groups=208), nn.ReLU6())
        self.dw3 = nn.Conv2d(208, 208, 5, 1, 2, groups=208)

    def forward(self, x):
        y = self.dw3(self.dw2(self.pw2(self.dw1(self.pw1(self.dw0(x))))))
        return torch.cat([y.flatten(1), nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)], 1)


class PaddedPools(nn.Module):
    """Max pools whose windows reach the pads over values of both signs (no
    ReLU before them, so a pad read as 0 instead of -inf shows): 3x3 stride
    2 pad 1 over a 64-channel 64 x 64 map (4 channel groups: a row split
    over the cores, NC1HWC0 on both sides), and over a 20-channel 16 x 16
    one with ceil_mode (pad rows below the map), between Cube convs; then a
    3x3 average pool counting its pads (zero rows)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 3, 2, 1)
        self.pool1 = nn.MaxPool2d(3, 2, 1)
        self.conv2 = nn.Conv2d(64, 20, 3, 2, 1)
        self.pool2 = nn.MaxPool2d(3, 2, 1, ceil_mode=True)
        self.avg = nn.AvgPool2d(3, 1, 1)
        self.head = nn.Conv2d(20, 8, 1)

    def forward(self, x):
        return self.head(self.avg(self.pool2(self.conv2(self.pool1(self.conv1(x))))))


class StackedStems(nn.Module):
    """Convs of few input channels, whose rows the Cube conv template stacks
    into channels (Conv.cpp's row stacking), at batch 2 on a 65 x 47 map (rows
    that are not whole 16-pixel blocks): 8 channels of the f32 graph input
    under a 3x3 (2 planes, the last partial); from f16 slices between
    kernels, ResNet's 7x7 stride-2 stem over 3 channels (a full plane and a
    partial one), a 5x5 over 1 channel, a (4, 3) window with strides (3, 2)
    and pads (1, 2) over 5 channels, and a dilated 3x3 stride 2 (window rows
    2 apart); the stem's map also averaged (the negative control's pool)."""

    def __init__(self):
        super().__init__()
        self.full = nn.Conv2d(8, 24, 3, 1, 1)
        self.stem = nn.Conv2d(3, 16, 7, 2, 3)
        self.gray = nn.Conv2d(1, 8, 5, 1, 2)
        self.tall = nn.Conv2d(5, 8, (4, 3), (3, 2), (1, 2))
        self.dilated = nn.Conv2d(3, 8, 3, 2, 1, dilation=2)

    def forward(self, x):
        ys = [torch.relu(self.full(x)), self.stem(x[:, 2:5]), self.gray(x[:, :1]),
              self.tall(x[:, 3:8]), self.dilated(x[:, :3])]
        # The stem's map averaged, scaled to weigh in the output: the
        # harness's negative control.
        ys.append(100 * nn.functional.adaptive_avg_pool2d(ys[1], 1))
        return torch.cat([y.flatten(1) for y in ys], 1)


class PooledConvs(nn.Module):
    """Max pools (3x3, stride 2, pad 1) fused into the Cube conv before them
    at batch 2: after a 7x7 stride-2 stem with no ReLU and a bias lowered
    by 1 (mostly negative values, so a pad read as 0 instead of -inf
    shows), its pooled map NC1HWC0 into the next conv; after a 3x3 conv and
    a ReLU, pooled into an NCHW map (read by the concat and the mean); then
    the map averaged (the negative control's pool)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 7, 2, 3)
        with torch.no_grad():
            self.stem.bias -= 1.0  # mostly negative: a zero pad would win the edge windows
        self.conv = nn.Conv2d(16, 24, 3, 1, 1)
        self.pool = nn.MaxPool2d(3, 2, 1)

    def forward(self, x):
        y = self.pool(self.stem(x))
        y = self.pool(torch.relu(self.conv(y)))
        return torch.cat([y.flatten(1), 100 * nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)],
                         1)


class WidePooledConv(nn.Module):
    """A fused max pool over rows of 260 conv outputs at batch 2: more than
    the planner's 512 positions a tile for one row pair, which the pool
    needs (a one-row tile cannot pool); its pooled map into a concat, the
    input beside it."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, 1, 1)
        self.pool = nn.MaxPool2d(3, 2, 1)

    def forward(self, x):
        y = self.pool(self.conv(x))
        return torch.cat([y.flatten(1), x.flatten(1),
                          100 * nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)], 1)


class TransposedConvs(nn.Module):
    """A decoder at batch 2: ConvTransposes with constant weights as their
    sub-pixel phase convs (compiler/onnx/ConvTransposeExpander.cpp), each
    phase a Cube conv: 4x4 stride 2 pad 1 (four 2x2 phases), 3x3 stride 2
    pad 1 output_padding 1 (phases of 1 and 2 taps), 2x2 stride 2 (one tap
    each), a 5x5 stride (3, 2) pad (2, 1) and a 1x1 stride 2 (phases no
    tap reaches: the bias alone), with a bias and a ReLU; a 3x3 stride 1
    (a conv of the flipped weight) and a dilated 3x3 stride 2 (zero
    insertion), both with the flipped weight a constant (a computed one
    failed to compile: the conv template takes constant weights only);
    then the map averaged (the negative control's pool)."""

    def __init__(self):
        super().__init__()
        self.up1 = nn.ConvTranspose2d(32, 24, 4, 2, 1)
        self.up2 = nn.ConvTranspose2d(24, 16, 3, 2, 1, output_padding=1, bias=False)
        self.up3 = nn.ConvTranspose2d(16, 16, 2, 2)
        self.odd = nn.ConvTranspose2d(16, 8, 5, (3, 2), (2, 1))
        self.sparse = nn.ConvTranspose2d(8, 8, 1, 2)
        self.flat = nn.ConvTranspose2d(8, 8, 3, 1, 1)
        self.dilated = nn.ConvTranspose2d(8, 8, 3, 2, 1, output_padding=1, dilation=2)

    def forward(self, x):
        y = torch.relu(self.up1(x))
        y = self.up3(torch.relu(self.up2(y)))
        y = self.sparse(self.odd(y))
        y = self.dilated(self.flat(y))
        return torch.cat([y.flatten(1), 100 * nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)],
                         1)


# Non-trivial running statistics, so that folding them is tested.
batch_norms_randomised = export_models.batch_norms_drawn


def resnet18():
    import torchvision
    return torchvision.models.resnet18(weights=None)


def batch_norms_calibrated(model, shape, batches=2):
    """Running statistics measured on random inputs (as training would set
    them). With weights=None the defaults (mean 0, var 1) leave MobileNetV2's
    activations shrinking ~20x a stage, to 1e-8 at the end: below fp16's
    range, so no fp16 run could match fp32 there."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None  # a cumulative average
    model.train()
    g = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(4, *shape[1:], generator=g))
    return model.eval()


def mobilenet_v2():
    import torchvision
    return batch_norms_calibrated(torchvision.models.mobilenet_v2(weights=None), (1, 3, 224, 224))


MODELS = {  # name: (factory, input shape, max relative L2 error)
    "tiny_resnet": (lambda: batch_norms_randomised(TinyResNet(), 1), (1, 3, 64, 64), MAX_REL_L2),
    "pools_and_bias": (PoolsAndBias, (1, 4, 15, 17), MAX_REL_L2),
    "tiny_mobilenet": (lambda: batch_norms_randomised(TinyMobileNet(), 2), (1, 3, 32, 32),
                       MAX_REL_L2),
    "batched_convs": (lambda: batch_norms_randomised(BatchedConvs(), 3), (3, 3, 30, 26),
                      MAX_REL_L2),
    "depthwise_convs": (lambda: batch_norms_randomised(DepthwiseConvs(), 4), (2, 3, 22, 19),
                        MAX_REL_L2_DEPTHWISE),
    "padded_pools": (PaddedPools, (1, 3, 128, 128), MAX_REL_L2),
    "depthwise_steps": (lambda: batch_norms_randomised(DepthwiseSteps(), 5), (1, 88, 9, 9),
                        MAX_REL_L2_DEPTHWISE),
    "depthwise_steps_b2": (lambda: batch_norms_randomised(DepthwiseSteps(), 5), (2, 88, 13, 9),
                           MAX_REL_L2_DEPTHWISE),
    "stacked_stems": (StackedStems, (2, 8, 65, 47), MAX_REL_L2),
    "transposed_convs": (TransposedConvs, (2, 32, 5, 4), MAX_REL_L2),
    "pooled_convs": (PooledConvs, (2, 3, 64, 48), MAX_REL_L2),
    "wide_pooled_conv": (WidePooledConv, (2, 3, 8, 260), MAX_REL_L2),
}


@contextlib.contextmanager
def halved_average_pools():
    """Every average pool (module or functional) divides by twice its window:
    the mistake the negative control injects into the torch reference."""
    functional = nn.functional
    saved = functional.avg_pool2d, functional.adaptive_avg_pool2d
    functional.avg_pool2d = lambda *a, **k: saved[0](*a, **k) * 0.5
    functional.adaptive_avg_pool2d = lambda *a, **k: saved[1](*a, **k) * 0.5
    try:
        yield
    finally:
        functional.avg_pool2d, functional.adaptive_avg_pool2d = saved


def run_model(name, factory, shape, max_rel_l2, bin_dir, work):
    torch.manual_seed(0)
    model = factory().eval()
    x = torch.randn(*shape)
    with torch.no_grad():
        want = model(x).numpy()
        with halved_average_pools():
            mistaken = model(x).numpy()
    onnx_path, om = os.path.join(work, name + ".onnx"), os.path.join(work, name + ".om")
    torch.onnx.export(model, x, onnx_path, opset_version=14, input_names=["x"],
                      output_names=["y"])
    np.save(os.path.join(work, name + ".npy"), x.numpy())
    out_dir = os.path.join(work, name + ".out")
    steps = [[os.path.join(bin_dir, "vinci-compile"), "--model", onnx_path, "--emit=om",
              "--output", om],
             [os.path.join(bin_dir, "vinci-run"), "--model", om, "--hazards", "fatal",
              "--input", os.path.join(work, name + ".npy"), "--output_dir", out_dir]]
    for step in steps:
        start = time.time()
        proc = subprocess.run(step, capture_output=True, text=True, timeout=1800)
        if proc.returncode != 0:
            return (proc.stderr.strip().splitlines() or ["failed"])[0], ""
        step.append(f"{time.time() - start:.1f}s")
    got = np.load(os.path.join(out_dir, "output_0.npy")).astype(np.float64)
    detail = (f"{error_figures(got, want)}, cosine {cosine(got, want):.7f}, "
              f"compile {steps[0][-1]}, simulate {steps[1][-1]}")
    why = mismatch(got, want, max_rel_l2) or rejects(
        mistaken, want, max_rel_l2, "halved average pools")
    return (f"{why}; {detail}" if why else ""), detail


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--only", help="run this model only")
    parser.add_argument("--resnet18", action="store_true", help="add torchvision's ResNet-18")
    parser.add_argument("--mobilenet_v2", action="store_true",
                        help="add torchvision's MobileNetV2")
    parser.add_argument("--keep", help="keep the files in this directory")
    args = parser.parse_args()
    models = dict(MODELS)
    if args.resnet18:
        models["resnet18"] = (resnet18, (1, 3, 224, 224), MAX_REL_L2)
    if args.mobilenet_v2:
        models["mobilenet_v2"] = (mobilenet_v2, (1, 3, 224, 224), MAX_REL_L2_MOBILENET_V2)
    if args.only:
        models = {args.only: models[args.only]}
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        for name, (factory, shape, max_rel_l2) in models.items():
            why, detail = run_model(name, factory, shape, max_rel_l2, args.bin, work)
            print(f"{'FAIL' if why else 'PASS'}: {name}: {why or detail}", flush=True)
            failed += bool(why)
    print(f"{len(models) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
