#!/usr/bin/python3
"""End to end: row-moving transposes exported from torch, compiled to .om and
run on the simulator (hazards fatal); a transpose moves data only, so the
result must be bit-exact. Prints 'N passed, N failed'.

  transpose_models.py --bin build/bin
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

CASES = [  # (input shape, permutation): attention's head split, odd sizes, rank 3
    ((1, 128, 12, 64), (0, 2, 1, 3)),
    ((2, 40, 24, 16), (0, 2, 1, 3)),
    ((6, 10, 32), (1, 0, 2)),
]


class Permute(torch.nn.Module):
    def __init__(self, perm):
        super().__init__()
        self.perm = perm

    def forward(self, x):
        return x.permute(*self.perm)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    torch.manual_seed(0)
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        for index, (shape, perm) in enumerate(CASES):
            name = f"transpose_{'x'.join(map(str, shape))}_{''.join(map(str, perm))}"
            model, om = os.path.join(work, name + ".onnx"), os.path.join(work, name + ".om")
            x = torch.randn(*shape)
            torch.onnx.export(Permute(perm), x, model, opset_version=14, input_names=["x"],
                              output_names=["y"])
            np.save(os.path.join(work, name + ".npy"), x.numpy())
            steps = [[os.path.join(args.bin, "vinci-compile"), "--model", model, "--emit=om",
                      "--output", om],
                     [os.path.join(args.bin, "vinci-run"), "--model", om, "--hazards", "fatal",
                      "--input", os.path.join(work, name + ".npy"), "--output_dir",
                      os.path.join(work, name + ".out")]]
            why = ""
            for step in steps:
                proc = subprocess.run(step, capture_output=True, text=True, timeout=300)
                if proc.returncode != 0:
                    why = proc.stderr.strip().splitlines()[0] if proc.stderr else "failed"
                    break
            if not why:
                y = np.load(os.path.join(work, name + ".out", "output_0.npy"))
                if not np.array_equal(y, x.permute(*perm).numpy()):
                    why = "output differs from torch"
            print(f"{'FAIL' if why else 'PASS'}: {name}{': ' + why if why else ''}")
            failed += bool(why)
    print(f"{len(CASES) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
