#!/usr/bin/python3
"""A ResNet-style image classifier compiled once for four batch sizes (--dynamic_batch_size).

A small classifier (torch, random weights, BatchNorm statistics as a trained
network's): a 7x7 stride-2 stem, a max pool, two residual stages (the second
strided, with a 1x1 projection shortcut), a global average pool and a linear
head. It is exported to ONNX with a dynamic batch and compiled with

    vinci-compile --model classifier.onnx --output classifier.om \\
        --input_shape "image:-1,3,64,64" --dynamic_batch_size "1,2,4,8"

and run from Python at every gear with a different image in every batch slot:
Model.run picks the gear from the batch. Each gear's logits are compared with
torch fp32 on the same weights by relative L2 over the whole batch and by the
worst single image, so a gear that mixed or dropped images would fail.

    PYTHONPATH=build/python /usr/bin/python3 examples/gears/classifier_batch.py

Prints each gear's error and simulated latency per image (the simulator's
timing model of an Ascend 310P built from published numbers, not a hardware
measurement) and exits 1 if an image's relative L2 error exceeds 5e-3 (fp16
kernels; the gears measure about 5e-4).
"""
import argparse
import os
import sys
import tempfile

import numpy as np
import torch
from torch import nn

import vinci

BATCHES = (1, 2, 4, 8)
SIZE = 64
TOLERANCE = 5e-3  # relative L2 error of one image's logits


class Block(nn.Module):
    """A basic residual block (two 3x3 convs), with a 1x1 projection when strided."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Identity()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + self.shortcut(x))


class Classifier(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 7, 2, 3, bias=False), nn.BatchNorm2d(32),
                                  nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        self.stage1 = Block(32, 32, 1)
        self.stage2 = Block(32, 64, 2)
        self.head = nn.Linear(64, classes)
        with torch.no_grad():
            for m in self.modules():  # BatchNorm statistics as a trained network's
                if isinstance(m, nn.BatchNorm2d):
                    m.running_mean.uniform_(-0.2, 0.2)
                    m.running_var.uniform_(0.5, 1.5)

    def forward(self, image):
        features = self.stage2(self.stage1(self.stem(image)))
        return self.head(features.mean(dim=(2, 3)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", help="folder for the .onnx and .om (default: a temporary one)")
    args = parser.parse_args()

    torch.manual_seed(0)
    model = Classifier().eval()
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or scratch
        os.makedirs(work, exist_ok=True)
        onnx_path = os.path.join(work, "classifier.onnx")
        om_path = os.path.join(work, "classifier.om")
        with torch.no_grad():
            torch.onnx.export(model, (torch.zeros(1, 3, SIZE, SIZE),), onnx_path,
                              input_names=["image"], output_names=["logits"], opset_version=14,
                              dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
        vinci.compile(onnx_path, output=om_path, input_shape=f"image:-1,3,{SIZE},{SIZE}",
                      dynamic_batch_size=list(BATCHES))
        om = vinci.load(om_path)
        print(f"{os.path.basename(om_path)}: {len(om.gears)} gears ({om.gear_kind}: "
              f"{','.join(str(g.values[0]) for g in om.gears)}), "
              f"{os.path.getsize(om_path) / 1e3:.0f} KB")

        failed = False
        rng = np.random.default_rng(0)
        for batch in BATCHES:
            images = rng.standard_normal((batch, 3, SIZE, SIZE)).astype(np.float32)
            (got,) = om.run(images)
            with torch.no_grad():
                want = model(torch.from_numpy(images)).numpy().astype(np.float64)
            got = got.astype(np.float64)
            per_image = np.linalg.norm(got - want, axis=1) / np.linalg.norm(want, axis=1)
            whole = np.linalg.norm(got - want) / np.linalg.norm(want)
            failed |= not per_image.max() <= TOLERANCE
            simulated = om.profile()["simulated_us"]
            print(f"batch {batch}: logits {list(got.shape)}, relative L2 {whole:.2e} (worst image "
                  f"{per_image.max():.2e}), simulated {simulated:.1f} us, "
                  f"{simulated / batch:.1f} us an image")
    print("simulated: the Ascend310P3 timing model from published numbers, not a hardware "
          "measurement")
    if failed:
        print(f"FAIL: an image's relative L2 error exceeds {TOLERANCE}")
        return 1
    print(f"every gear matches torch (every image's relative L2 <= {TOLERANCE})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
