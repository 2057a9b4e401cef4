#!/usr/bin/python3
"""End to end: in-place reuse in the GM arena (backend/memplan/InPlace.h).

Small torch models whose elementwise kernels read a dying intermediate are
compiled to .om and run on the simulator (hazards fatal), then compared with
torch. For each model, the test also checks which elementwise kernel writes
over which input, from the task arguments that vinci-info prints:
  chain      softmax -> mul/sub/tanh over its output, which dies there: in place
             (multi-block, several tiles; and odd sizes with a tail tile)
  residual   the softmax output is read again later: its first reader may
             not write over it; the final add over a dying input may
  bias       add of a [1, 1, N] broadcast and a full [.., N] input, both
             dying: in place over the full input only
The models compile with SoftmaxPrologueFusion off: with it, a softmax
takes the elementwise kernel in front of it as its prologue (one row
kernel, which the planner offers no in-place reuse), and these cases are
about the elementwise kernels.
The simulator's hazard detector tracks GM per kernel argument, so it cannot
see an input and an output that share bytes. A read-after-write mistake
would show up here as a wrong result, not as a hazard. Every model ends in
a softmax over 300 to 1024 values, so outputs are near 1 / N (the largest is
below 4e-3): an absolute tolerance would pass an all-zero output, and even a
relative one an output with a softmax too many. So the comparison measures
each output's spread around its row mean (1 / N), where the result is, by
relative L2 error (at most MAX_REL_L2); the negative control beside each
case checks that zeros and one softmax too many fail it.

  inplace_e2e.py --bin build/bin
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import json

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "e2e"))
from e2e_common import error_figures, mismatch, rejects  # noqa: E402


class Chain(torch.nn.Module):
    def forward(self, x):
        s = torch.softmax(x, dim=-1)
        return torch.softmax(torch.tanh(s * 3.0 - 1.0), dim=-1)


class Residual(torch.nn.Module):
    def forward(self, x):
        s = torch.softmax(x, dim=-1)
        z = torch.softmax(s * 2.0 + 1.0, dim=-1)
        return torch.softmax(z + s, dim=-1)


class Bias(torch.nn.Module):
    def forward(self, x, b):
        return torch.softmax(torch.softmax(x, dim=-1) + torch.softmax(b, dim=-1), dim=-1)


# (name, model, input shapes, kernel name suffix, expected in-place input
# index of that kernel or None)
CASES = [
    ("chain", Chain(), [(8, 12, 1024)], "_mul", 0),
    ("chain_odd", Chain(), [(5, 37, 300)], "_mul", 0),
    ("residual_later_user", Residual(), [(4, 16, 512)], "_mul", None),
    ("residual_final_add", Residual(), [(4, 16, 512)], "_add", 0),
    ("bias", Bias(), [(4, 16, 512), (1, 1, 512)], "_add", 0),
]

# Logits of N(0, 4^2): the first softmax is peaked (its largest values near
# 0.3, not 1 / N), so every later kernel, and the output, carry a spread far
# above fp16's resolution.
INPUT_SCALE = 4.0
MAX_REL_L2 = 5e-3

TASK = re.compile(r"^\s*\d+ kernel \d+ '(\w+)' \((.*)\)$")
ARG = re.compile(r"(\w+)\[(\d+), \+(\d+)\]")


def spread(probabilities):
    """A softmax output less its row mean (1 / N, whatever the logits): the
    part that carries the result, which the comparison measures."""
    p = np.asarray(probabilities, np.float64)
    return p - p.mean(axis=-1, keepdims=True)


def in_place_input(info, suffix):
    """Index of the input sharing the first output's arena offset, or None."""
    for line in info.splitlines():
        match = TASK.match(line)
        if not match or not match.group(1).endswith(suffix):
            continue
        args = ARG.findall(match.group(2))
        *inputs, output = args  # these kernels have one output, last
        for index, (space, offset, _) in enumerate(inputs):
            if space == "arena" and output[0] == "arena" and offset == output[1]:
                return index
        return None
    raise RuntimeError(f"no kernel ending in '{suffix}' in vinci-info's task list")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    torch.manual_seed(0)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        switches = os.path.join(work, "no_prologue.json")
        with open(switches, "w") as f:
            json.dump({"Switch": {"UBFusion": {"SoftmaxPrologueFusion": "off"}}}, f)
        for name, model, shapes, suffix, expected in CASES:
            inputs = [torch.randn(*shape) * INPUT_SCALE for shape in shapes]
            onnx = os.path.join(work, name + ".onnx")
            om = os.path.join(work, name + ".om")
            torch.onnx.export(model, tuple(inputs), onnx, opset_version=14,
                              input_names=[f"x{i}" for i in range(len(inputs))],
                              output_names=["y"])
            files = []
            for i, tensor in enumerate(inputs):
                files.append(os.path.join(work, f"{name}_{i}.npy"))
                np.save(files[-1], tensor.numpy())
            why = ""
            steps = [[os.path.join(args.bin, "vinci-compile"), "--model", onnx, "--emit=om",
                      "--output", om, "--fusion_switch_file", switches],
                     [os.path.join(args.bin, "vinci-run"), "--model", om, "--hazards", "fatal",
                      "--input", *files, "--output_dir", os.path.join(work, name + ".out")]]
            for step in steps:
                proc = subprocess.run(step, capture_output=True, text=True, timeout=300)
                if proc.returncode != 0:
                    why = (proc.stderr.strip() or "failed").splitlines()[0]
                    break
            if not why:
                info = subprocess.run([os.path.join(args.bin, "vinci-info"), om],
                                      capture_output=True, text=True, check=True).stdout
                got = in_place_input(info, suffix)
                actual = np.load(os.path.join(work, name + ".out", "output_0.npy"))
                with torch.no_grad():
                    reference = model(*inputs).numpy()
                    # The negative control: what a kernel that never wrote its
                    # output, or one softmax too many (a kernel reading its own
                    # result back as its input), would give.
                    zeros = np.zeros_like(reference)
                    twice = torch.softmax(torch.from_numpy(reference), -1).numpy()
                if got != expected:
                    why = f"kernel *{suffix} writes over input {got}, expected {expected}"
                else:
                    why = (mismatch(spread(actual), spread(reference), MAX_REL_L2)
                           or rejects(spread(zeros), spread(reference), MAX_REL_L2,
                                      "an all-zero output")
                           or rejects(spread(twice), spread(reference), MAX_REL_L2,
                                      "one softmax too many"))
                if not why:
                    detail = (f"in place over input {got}" if got is not None
                              else "not in place")
                    print(f"PASS {name}: *{suffix} {detail}, spread "
                          f"{error_figures(spread(actual), spread(reference))}")
            if why:
                print(f"FAIL {name}: {why}")
            passed += not why
            failed += bool(why)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
