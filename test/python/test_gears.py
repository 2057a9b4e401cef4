"""ctest python_gears: gears from Python and vinci-run. A small transformer block
(a Linear, a softmax over the sequence, int64 positions) exported with dynamic
batch and sequence dims is compiled with batch gears and with dims gears; run()
picks the gear from the input shapes and matches torch at every gear; shapes
that are no gear, and gear options on an nn.Module, are one-line errors;
contexts of two gears run at once; vinci-run picks the gear too.

    PYTHONPATH=build/python /usr/bin/python3 test/python/test_gears.py --bin build/bin
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

import numpy as np
import torch
from torch import nn

import vinci

BIN = None


class Block(nn.Module):
    """x [batch, seq, 32], positions [batch, seq] int64 -> a softmax-mixed projection."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(64, 32)
        self.proj = nn.Linear(32, 32)

    def forward(self, x, positions):
        h = self.proj(x + self.embed(positions))
        attention = (h @ h.transpose(-1, -2) / 8).softmax(-1)
        return attention @ h


def max_error(got, want):
    return float(np.abs(got.astype(np.float64) - want.astype(np.float64)).max())


class GearsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="vinci-gears-")
        torch.manual_seed(0)
        cls.block = Block().eval()
        cls.onnx = os.path.join(cls.work, "block.onnx")
        args = (torch.randn(1, 16, 32), torch.zeros(1, 16, dtype=torch.int64))
        torch.onnx.export(cls.block, args, cls.onnx, input_names=["x", "positions"],
                          output_names=["y"], opset_version=14,
                          dynamic_axes={"x": {0: "batch", 1: "seq"},
                                        "positions": {0: "batch", 1: "seq"}, "y": {0: "batch", 1: "seq"}})
        cls.batch_om = vinci.compile(cls.onnx, output=os.path.join(cls.work, "batch.om"),
                                     input_shape={"x": (-1, 16, 32), "positions": (None, 16)},
                                     dynamic_batch_size=[1, 2, 4])
        cls.dims_om = vinci.compile(cls.onnx, output=os.path.join(cls.work, "dims.om"),
                                    input_shape="x:1,-1,32;positions:1,-1",
                                    dynamic_dims=[(16, 16), (48, 48)])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work)

    def inputs(self, batch, seq, seed=0):
        rng = np.random.default_rng(seed)
        return [rng.standard_normal((batch, seq, 32)).astype(np.float32),
                rng.integers(0, 64, (batch, seq)).astype(np.int64)]

    def reference(self, x, positions):
        with torch.no_grad():
            return self.block(torch.from_numpy(x), torch.from_numpy(positions)).numpy()

    def test_describes_the_gears(self):
        m = vinci.load(self.batch_om)
        self.assertEqual(m.gear_kind, "batch_size")
        self.assertEqual([g.values for g in m.gears], [(1,), (2,), (4,)])
        self.assertEqual(m.inputs[0].shape, (-1, 16, 32))
        self.assertEqual(m.gears[2].inputs[1].shape, (4, 16))
        self.assertEqual(m.gears[1].outputs[0].shape, (2, 16, 32))
        self.assertEqual(vinci.load(self.dims_om).gear_kind, "dims")

    def test_every_gear_matches_torch(self):
        for path, shapes in ((self.batch_om, [(1, 16), (2, 16), (4, 16)]),
                             (self.dims_om, [(1, 16), (1, 48)])):
            m = vinci.load(path)
            for batch, seq in shapes:
                x, positions = self.inputs(batch, seq, seed=batch * seq)
                (y,) = m.run([x, positions])
                want = self.reference(x, positions)
                self.assertEqual(y.shape, want.shape)
                # fp16 storage: errors against the fp32 reference's scale.
                self.assertLess(max_error(y, want), 2e-2 * np.abs(want).max(), (path, batch, seq))
                self.assertEqual(m.profile()["gear"], (batch,) if path == self.batch_om else (seq, seq))

    def test_no_gear_is_an_error_that_lists_the_gears(self):
        m = vinci.load(self.batch_om)
        with self.assertRaisesRegex(vinci.InputError,
                                    r"^.*batch\.om: input shapes x \[3,16,32\], positions \[3,16\] "
                                    r"match no gear \(its dynamic batch sizes: 1;2;4\)$"):
            m.run(self.inputs(3, 16))
        x, positions = self.inputs(2, 16)
        with self.assertRaisesRegex(vinci.InputError, "input 'positions' has dtype int32"):
            m.run([x, positions.astype(np.int32)])

    def test_gears_need_onnx(self):
        with self.assertRaisesRegex(vinci.CompileError, "need an ONNX model"):
            vinci.compile(self.block, (torch.randn(1, 16, 32), torch.zeros(1, 16, dtype=torch.int64)),
                          output=os.path.join(self.work, "module.om"), dynamic_batch_size=[1, 2])
        with self.assertRaisesRegex(vinci.CompileError,
                                    r"^--dynamic_dims gear '16' has 1 values; each gear has 2"):
            vinci.compile(self.onnx, output=os.path.join(self.work, "bad.om"),
                          input_shape="x:1,-1,32;positions:1,-1", dynamic_dims="16;32")
        self.assertFalse(os.path.exists(os.path.join(self.work, "bad.om")))

    def test_threads_run_different_gears(self):
        m = vinci.load(self.batch_om)
        errors = []

        def worker(batch):
            try:
                for seed in range(2):
                    x, positions = self.inputs(batch, 16, seed)
                    (y,) = m.run([x, positions])
                    want = self.reference(x, positions)
                    if max_error(y, want) > 2e-2 * np.abs(want).max():
                        errors.append(f"batch {batch}: error {max_error(y, want)}")
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(f"batch {batch}: {error}")

        threads = [threading.Thread(target=worker, args=(b,)) for b in (1, 4, 2, 4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_vinci_run_picks_the_gear(self):
        x, positions = self.inputs(2, 16)
        np.save(os.path.join(self.work, "x.npy"), x)
        np.save(os.path.join(self.work, "p.npy"), positions)
        out = os.path.join(self.work, "out")
        run = subprocess.run([os.path.join(BIN, "vinci-run"), "--model", self.batch_om, "--input",
                              f"{self.work}/x.npy,{self.work}/p.npy", "--output_dir", out],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("gear 1 of 3 (batch size 2)", run.stdout)
        want = self.reference(x, positions)
        self.assertLess(max_error(np.load(f"{out}/output_0.npy"), want), 2e-2 * np.abs(want).max())
        np.save(os.path.join(self.work, "x3.npy"), self.inputs(3, 16)[0])
        run = subprocess.run([os.path.join(BIN, "vinci-run"), "--model", self.batch_om, "--input",
                              f"{self.work}/x3.npy,{self.work}/p.npy", "--output_dir", out + "3"],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 1)
        self.assertEqual(run.stderr.count("\n"), 1, run.stderr)
        self.assertIn("match no gear (its dynamic batch sizes: 1;2;4)", run.stderr)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    args, rest = parser.parse_known_args()
    BIN = args.bin
    unittest.main(argv=[sys.argv[0]] + rest)
