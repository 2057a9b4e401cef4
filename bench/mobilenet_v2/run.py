#!/usr/bin/python3
"""MobileNetV2 (torchvision, weights=None, BatchNorm statistics measured on
random inputs as test/e2e/conv_models.py does, Nx3x224x224, opset 14)
through Vinci at batch 1 and 8; prints a JSON array with the figures of
bench/resnet18/run.py (see there).

  /usr/bin/python3 bench/mobilenet_v2/run.py [--batch N ...]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "resnet18"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "e2e"))
from run import run  # noqa: E402  (bench/resnet18/run.py)


def mobilenet_v2():
    import torch
    from conv_models import mobilenet_v2 as calibrated  # noqa: E402
    torch.manual_seed(0)
    return calibrated().eval()


if __name__ == "__main__":
    sys.exit(run("mobilenet_v2", mobilenet_v2, sys.argv[1:]))
