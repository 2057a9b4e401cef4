#!/usr/bin/python3
"""Export torchvision's ResNet-18 for the main example, with an input image
and torch's fp32 output on it.

    /usr/bin/python3 examples/resnet18/prepare.py OUT_DIR

Writes OUT_DIR/resnet18.onnx (opset 14, weights=None: no download is
possible here; BatchNorm statistics and affine parameters drawn
deterministically, examples/models/export_models.resnet18_model),
OUT_DIR/image.npy (1x3x224x224 float32: a seeded synthetic picture, smooth
colour fields plus noise, normalised with ImageNet's mean and deviation as
torchvision's transforms do) and OUT_DIR/reference.npy (torch fp32 logits,
1x1000).
"""
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))
import export_models  # noqa: E402

IMAGENET_MEAN = np.array([0.485, 0.456, 0.406], np.float32).reshape(1, 3, 1, 1)
IMAGENET_STD = np.array([0.229, 0.224, 0.225], np.float32).reshape(1, 3, 1, 1)


def synthetic_image(side=224, seed=0):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:side, 0:side].astype(np.float32) / side
    fields = [0.5 + 0.4 * np.sin(2 * np.pi * (f * x + g * y) + p)
              for f, g, p in rng.uniform(0.5, 3.0, size=(3, 3))]
    rgb = np.stack(fields)[None] + rng.normal(0, 0.05, size=(1, 3, side, side))
    return ((np.clip(rgb, 0, 1) - IMAGENET_MEAN) / IMAGENET_STD).astype(np.float32)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: prepare.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    model = export_models.resnet18_model()
    image = synthetic_image()
    export_models._export(model, (torch.from_numpy(image),), os.path.join(out, "resnet18.onnx"),
                          ["input"], ["output"])
    with torch.no_grad():
        reference = model(torch.from_numpy(image)).numpy()
    np.save(os.path.join(out, "image.npy"), image)
    np.save(os.path.join(out, "reference.npy"), reference)
    print(f"wrote {out}/resnet18.onnx, image.npy and reference.npy (torch fp32)")


if __name__ == "__main__":
    main()
