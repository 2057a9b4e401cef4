#!/usr/bin/python3
"""A detection-style CNN compiled once for three image sizes (--dynamic_image_size).

A small text-detector-shaped network (torch, random weights): a stem conv, two
stride-2 stages with BatchNorm and ReLU, a max pool, ConvTranspose back up and
a 1x1 head with a sigmoid, a probability map the size of the input, as the
detectors of OCR pipelines produce. It is exported to ONNX with dynamic H and
W, compiled with

    vinci-compile --model detector.onnx --output detector.om \\
        --input_shape "image:1,3,-1,-1" --input_format NCHW \\
        --dynamic_image_size "64,64;96,128;128,160"

and run from Python at every gear: Model.run picks the gear from the image's
shape. Each gear's output is compared with torch fp32 on the same weights.

    PYTHONPATH=build/python /usr/bin/python3 examples/gears/detector_image_size.py

Prints each gear's error and simulated latency (the simulator's timing model
of an Ascend 310P built from published numbers, not a hardware measurement)
and exits 1 if a gear's maximum error exceeds 1e-2 (the map is in [0, 1];
fp16 kernels).
"""
import argparse
import os
import sys
import tempfile

import numpy as np
import torch
from torch import nn

import vinci

SIZES = ((64, 64), (96, 128), (128, 160))  # (height, width) gears
TOLERANCE = 1e-2  # maximum absolute error of a probability


def conv_bn_relu(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU())


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn_relu(3, 16, 1)
        self.stage1 = conv_bn_relu(16, 32, 2)
        self.stage2 = nn.Sequential(conv_bn_relu(32, 32, 1), nn.MaxPool2d(2))
        self.up = nn.ConvTranspose2d(32, 16, 4, stride=4)
        self.head = nn.Conv2d(16, 1, 1)
        with torch.no_grad():
            for m in self.modules():  # BatchNorm statistics as a trained network's
                if isinstance(m, nn.BatchNorm2d):
                    m.running_mean.uniform_(-0.2, 0.2)
                    m.running_var.uniform_(0.5, 1.5)
            self.head.weight.normal_(0, 4.0)  # a map with text and background, not all 0.5
            self.head.bias.fill_(-1.0)

    def forward(self, image):
        features = self.stage2(self.stage1(self.stem(image)))
        return torch.sigmoid(self.head(torch.relu(self.up(features))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", help="folder for the .onnx and .om (default: a temporary one)")
    args = parser.parse_args()

    torch.manual_seed(0)
    model = Detector().eval()
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or scratch
        os.makedirs(work, exist_ok=True)
        onnx_path, om_path = os.path.join(work, "detector.onnx"), os.path.join(work, "detector.om")
        with torch.no_grad():
            torch.onnx.export(model, (torch.zeros(1, 3, *SIZES[0]),), onnx_path,
                              input_names=["image"], output_names=["probability"],
                              opset_version=13,
                              dynamic_axes={"image": {2: "height", 3: "width"},
                                            "probability": {2: "height", 3: "width"}})
        vinci.compile(onnx_path, output=om_path, input_shape="image:1,3,-1,-1", input_format="NCHW",
                      dynamic_image_size=list(SIZES))
        om = vinci.load(om_path)
        print(f"{os.path.basename(om_path)}: {len(om.gears)} gears ({om.gear_kind}: "
              f"{';'.join(','.join(map(str, g.values)) for g in om.gears)}), "
              f"{os.path.getsize(om_path) / 1e3:.0f} KB")

        failed = False
        rng = np.random.default_rng(0)
        for height, width in SIZES:
            image = rng.standard_normal((1, 3, height, width)).astype(np.float32)
            (got,) = om.run(image)
            with torch.no_grad():
                want = model(torch.from_numpy(image)).numpy()
            error = float(np.abs(got.astype(np.float64) - want).max())
            failed |= not error <= TOLERANCE
            print(f"{height}x{width}: map {list(got.shape)}, max abs error {error:.2e} "
                  f"(values {want.min():.2f} to {want.max():.2f}, {(want > 0.5).mean():.0%} above "
                  f"0.5), simulated "
                  f"{om.profile()['simulated_us']:.1f} us")
    print("simulated: the Ascend310P3 timing model from published numbers, not a hardware "
          "measurement")
    if failed:
        print(f"FAIL: a gear's maximum error exceeds {TOLERANCE}")
        return 1
    print(f"every gear matches torch (max abs error <= {TOLERANCE})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
